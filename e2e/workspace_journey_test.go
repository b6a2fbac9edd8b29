package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Two companies' leave policies, one in each workspace: both answer the same question and share the name
// "Parental Leave", so only the workspace keeps them apart. Each has names the other has not.
type leavePolicy struct{ workspace, file, text, only string }

var leavePolicies = []leavePolicy{
	{"default", "acme-leave-policy.md", "Parental Leave at Acme lasts 20 weeks at full pay, approved by the Acme People Team in Lisbon.\n", "Acme"},
	{"globex", "globex-leave-policy.md", "Parental Leave at Globex lasts 12 weeks at full pay, approved by the Globex Benefits Desk in Oslo.\n", "Globex"},
}

const leaveQuestion = "How many weeks of parental leave do employees get?"

// TestBrowserWorkspacesKeepAnswersApart: an admin signs in through the sign-in page, creates a second
// workspace on the Admin page, and uploads one leave policy into each through the upload form, switching
// with the page header's workspace switch. Asked the same question in each, the streamed answer's sources,
// cited passages and trace name only that workspace's document, never the other's; the documents list, the
// chat's conversations and the graph explorer of each show nothing of the other. The scripted answer cites
// [1] to [4], each source it is given (a passage and three graph facts), and the trace lists every passage
// and fact looked at, so one of the other workspace reaching the answer would show. Screenshots
// 23-workspace-switch (on the Admin page, the new workspace chosen), 24-answer-in-a and 25-answer-in-b.
func TestBrowserWorkspacesKeepAnswersApart(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{
		Auth: auth.Options{Required: true}, Workspaces: true, TokenDelay: 10 * time.Millisecond,
		Limits:  handlers.Limits{AskPerMinute: 1000, UploadPerMinute: 1000},
		Answers: map[string]string{"parental leave": "Employees get the parental leave their policy sets out [1] [2] [3] [4]."},
	})
	if _, err := app.Auth.Bootstrap(t.Context(), "ana", "correct horse battery staple"); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, startServer(t, app))
	dir := t.TempDir()
	for _, p := range leavePolicies {
		if err := os.WriteFile(filepath.Join(dir, p.file), []byte(p.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := leavePolicies[0], leavePolicies[1]

	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#login-name")))
	s.do("sign in", chromedp.SendKeys(chromedp.CSS("#login-name"), "ana"),
		chromedp.SendKeys(chromedp.CSS("#login-password"), "correct horse battery staple"), chromedp.Submit(chromedp.CSS("#login")))
	s.waitFor("the documents page", "location.pathname === '/documents' && !!document.querySelector('#files')", 10*time.Second)
	if eval[bool](s, "!!document.querySelector('#workspace-select')") {
		t.Error("the header offers a workspace switch while there is one workspace")
	}
	s.upload(filepath.Join(dir, a.file))

	s.do("open admin", chromedp.Navigate(s.base+"/admin"), chromedp.WaitVisible(chromedp.CSS("#workspace-name")))
	s.do("name a workspace", chromedp.SendKeys(chromedp.CSS("#workspace-name"), "Globex HR"),
		chromedp.SendKeys(chromedp.CSS("#workspace-id"), b.workspace), chromedp.Submit(chromedp.CSS("#workspace-create")))
	s.waitFor("the workspace listed", "!!document.querySelector('#workspaces tr[data-workspace="+b.workspace+"]')", 10*time.Second)
	s.checkPage("admin")
	s.switchTo(b.workspace, "23-workspace-switch")
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#files")))
	if n := eval[int](s, "document.querySelectorAll('#documents tbody tr[data-state]').length"); n != 0 {
		t.Errorf("the new workspace lists %d documents before any upload: %q", n, eval[string](s, "document.querySelector('main').innerText"))
	}
	s.upload(filepath.Join(dir, b.file))

	for _, p := range []struct {
		in, other leavePolicy
		shot      string
	}{{a, b, "24-answer-in-a"}, {b, a, "25-answer-in-b"}} {
		s.switchTo(p.in.workspace, "")
		s.showsOnly(p.in, p.other)
		s.askInWorkspace(p.in, p.other)
		s.screenshot(p.shot)
		s.checkPage("answer in " + p.in.workspace)
	}
}

// upload sends one file through the documents page's form and waits until it is read.
func (s *session) upload(file string) {
	s.t.Helper()
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#files")))
	s.do("choose "+filepath.Base(file), chromedp.SetUploadFiles(chromedp.CSS("#files"), []string{file}))
	s.do("upload", chromedp.Click(chromedp.CSS("#upload button[type=submit]")))
	s.waitFor("upload accepted", "document.querySelectorAll('#upload-result-list li.ok').length === 1", 10*time.Second)
	s.waitFor(filepath.Base(file)+" done", "[...document.querySelectorAll('#documents tr[data-state=done]')].some(r => r.innerText.includes("+
		jsString(filepath.Base(file))+"))", 60*time.Second)
	s.checkPage("upload " + filepath.Base(file))
}

// switchTo picks a workspace in the switch of the page's header as a person does, and takes the screenshot
// shot of the switch with it chosen (unless shot is "").
func (s *session) switchTo(id, shot string) {
	s.t.Helper()
	s.do("the workspace switch", chromedp.WaitVisible(chromedp.CSS("#workspace-select")))
	s.do("choose "+id, chromedp.Focus(chromedp.CSS("#workspace-select")), chromedp.SetValue(chromedp.CSS("#workspace-select"), id))
	if shot != "" {
		s.screenshot(shot)
	}
	eval[bool](s, "window.__beforeSwitch = true")
	s.do("switch", chromedp.Click(chromedp.CSS("form.workspace-switch button[type=submit]")))
	s.waitFor("the chat of "+id, "!window.__beforeSwitch && document.readyState === 'complete' && location.pathname === '/' && "+
		"!!document.querySelector('#question') && document.querySelector('#workspace-select option[selected]').value === "+jsString(id), 10*time.Second)
}

// showsOnly checks the documents list and the graph explorer of in's workspace: its own document and
// names, none of other's.
func (s *session) showsOnly(in, other leavePolicy) {
	s.t.Helper()
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#documents")))
	rows := eval[[]string](s, "[...document.querySelectorAll('#documents tbody tr[data-state]')].map(r => r.innerText)")
	if len(rows) != 1 || !strings.Contains(rows[0], in.file) {
		s.t.Errorf("the documents list of %s shows %q, want %s alone", in.workspace, rows, in.file)
	}
	if eval[bool](s, "document.querySelector('main').innerText.includes("+jsString(other.file)+")") {
		s.t.Errorf("the documents page of %s names %s", in.workspace, other.file)
	}

	s.do("search the other's name", chromedp.Navigate(s.base+"/graph?q="+other.only), chromedp.WaitVisible(chromedp.CSS("#graph-q")))
	if eval[bool](s, "!!document.querySelector('#entity-results, #graph-canvas')") {
		s.t.Errorf("the graph of %s finds %s: %q", in.workspace, other.only, eval[string](s, "document.querySelector('main').innerText"))
	}
	s.do("search the shared name", chromedp.Navigate(s.base+"/graph?q=Parental+Leave"), chromedp.WaitVisible(chromedp.CSS("#graph-q")))
	s.waitFor("Parental Leave drawn", "document.querySelector('#graph-canvas') && +document.querySelector('#graph-canvas').dataset.nodes > 1", 10*time.Second)
	drawn := eval[[]string](s, "hopwiseGraph.nodes().map(n => n.data('name'))")
	if !strings.Contains(strings.Join(drawn, "|"), in.only) {
		s.t.Errorf("the graph of %s draws %q, none of its own names", in.workspace, drawn)
	}
	if strings.Contains(strings.Join(drawn, "|"), other.only) || eval[bool](s, "document.querySelector('main').innerText.includes("+jsString(other.only)+")") {
		s.t.Errorf("the graph of %s draws or names %s of the other workspace: %q", in.workspace, other.only, drawn)
	}
	s.checkPage("graph of " + in.workspace)
}

// askInWorkspace asks the leave question on the chat page of in's workspace, whose conversation list is
// empty though the other may have one, and checks that the finished answer's sources are in's document and
// that nothing of the answer, its sources or its trace (every passage kept or set aside) names other's.
func (s *session) askInWorkspace(in, other leavePolicy) {
	s.t.Helper()
	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	if n := eval[int](s, "document.querySelectorAll('#conversations a').length"); n != 0 {
		s.t.Errorf("the chat of %s lists %d conversations before its first question", in.workspace, n)
	}
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), leaveQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the answer streaming", "!!document.querySelector('article.turn[sse-connect] .answer p:not(.placeholder)')", 30*time.Second)
	s.waitFor("the finished answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length > 0", 60*time.Second)
	s.do("open the trace", chromedp.Click(chromedp.CSS("article.turn details.trace > summary")))
	cited := eval[[]string](s, "[...document.querySelectorAll('article.turn ol.citations > li')].map(li => li.textContent)")
	for _, c := range cited {
		if !strings.Contains(c, in.file) {
			s.t.Errorf("a source of the answer in %s is not %s: %q", in.workspace, in.file, c)
		}
	}
	turn := eval[string](s, "document.querySelector('article.turn').textContent")
	for _, name := range []string{other.file, other.only} {
		if strings.Contains(turn, name) {
			s.t.Errorf("the answer in %s names %q of the other workspace:\n%s", in.workspace, name, turn)
		}
	}
	if n := eval[int](s, "document.querySelectorAll('#conversations a').length"); n != 1 {
		s.t.Errorf("the chat of %s lists %d conversations, want its own one", in.workspace, n)
	}
	s.t.Logf("%s: %d sources: %q", in.workspace, len(cited), cited)
}
