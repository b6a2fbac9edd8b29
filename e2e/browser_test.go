// Package e2e drives the real web app in headless Chromium: upload the demo corpus through the form, ask
// the Delhi-Munich question with the scripted model, explore the graph, delete a document. Screenshots go to
// artifacts/e2e/ at the repository root.
package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// chromium is the browser the journey drives: HOPWISE_CHROMIUM (make test sets it to the chromium it finds),
// else Debian's.
var chromium = cmp.Or(os.Getenv("HOPWISE_CHROMIUM"), "/usr/bin/chromium")

// cspProbe records Content-Security-Policy violations of every page, before any of its scripts runs.
const cspProbe = `window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});`

type session struct {
	t        *testing.T
	ctx      context.Context
	base     string
	shots    string
	failures []string
}

func startServer(t *testing.T, app *webtest.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := handlers.NewHTTPServer(ln.Addr().String(), app.Handler)
	go srv.Serve(ln)
	t.Cleanup(func() {
		app.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// newSession starts Chromium with the flags of every test, and extra ones (--host-resolver-rules).
func newSession(t *testing.T, base string, extra ...chromedp.ExecAllocatorOption) *session {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 110*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })

	shots := filepath.Join("..", "artifacts", "e2e")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, ctx: ctx, base: base, shots: shots}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspProbe}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			s.failures = append(s.failures, "javascript exception: "+(&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
		}
	}()
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() { // a delete confirmation: a person says yes; any other dialog is a script that should not run
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			if ev.Type != page.DialogTypeConfirm || !strings.HasPrefix(ev.Message, "Delete") {
				s.failures = append(s.failures, fmt.Sprintf("unexpected %s dialog: %q", ev.Type, ev.Message))
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return s
}

func (s *session) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	if err := chromedp.Do(s.ctx, steps...); err != nil {
		s.screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
		s.t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](s *session, js string) T {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		s.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is true.
func (s *session) waitFor(what, js string, within time.Duration, diagnose ...func()) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for !eval[bool](s, "!!("+js+")") {
		if time.Now().After(deadline) {
			for _, d := range diagnose {
				d()
			}
			s.screenshot("timeout-" + strings.ReplaceAll(what, " ", "-"))
			s.t.Fatalf("waited %s for %s (%s)", within, what, js)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *session) screenshot(name string) {
	s.t.Helper()
	png, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return
	}
	name += ".png"
	if err := os.WriteFile(filepath.Join(s.shots, name), png, 0o644); err != nil {
		s.t.Errorf("save screenshot: %v", err)
	}
}

// checkPage fails on CSP violations and script errors seen so far.
func (s *session) checkPage(where string) {
	s.t.Helper()
	if v := eval[[]string](s, "window.__violations || []"); len(v) > 0 {
		s.t.Errorf("%s: Content-Security-Policy violations: %v", where, v)
	}
	for _, f := range s.failures {
		s.t.Errorf("%s: %s", where, f)
	}
	s.failures = nil
}

func TestBrowserJourney(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	corpus := webtest.DemoCorpus(t)
	app := webtest.New(t, webtest.Options{TokenDelay: 15 * time.Millisecond})
	s := newSession(t, startServer(t, app))
	files, _ := filepath.Glob(filepath.Join(corpus, "*.md"))

	// 1. Upload the demo corpus through the form and watch it being processed.
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#files")))
	s.screenshot("01-documents-empty")
	s.do("choose files", chromedp.SetUploadFiles(chromedp.CSS("#files"), files))
	s.do("upload", chromedp.Click(chromedp.CSS("#upload button[type=submit]")))
	s.waitFor("upload results", fmt.Sprintf("document.querySelectorAll('#upload-result-list li.ok').length === %d", len(files)), 10*time.Second)
	s.screenshot("02-documents-processing")
	s.waitFor("every document done", fmt.Sprintf("document.querySelectorAll('#documents tr[data-state=done]').length === %d", len(files)), 60*time.Second, func() {
		docs, err := app.Store.Documents(context.Background())
		for _, d := range docs {
			t.Logf("stored: %s %s %d/%d %s", d.Name, d.Status, d.ChunksExtracted, d.Chunks, d.Error)
		}
		t.Logf("store: %v; page listens: %v", err, eval[bool](s, "!!document.querySelector('#doc-live[sse-connect]')"))
	})
	s.waitFor("the progress stream closed", "!document.querySelector('#doc-live[sse-connect]') || document.querySelectorAll('#documents progress').length === 0", 5*time.Second)
	s.screenshot("03-documents-done")
	s.checkPage("documents")

	// 2. Ask the Delhi-Munich question; the answer streams with its trace, then shows its citations.
	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	if n := eval[int](s, "document.querySelectorAll('#empty-state .examples button').length"); n < 2 {
		t.Errorf("empty chat suggests %d questions", n)
	}
	s.screenshot("04-chat-empty")
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), webtest.DelhiQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the answer streaming", "!!document.querySelector('article.turn[sse-connect] .answer strong, article.turn[sse-connect] .answer p:not(.placeholder)')", 30*time.Second)
	s.screenshot("05-chat-streaming")
	s.waitFor("the finished answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length === 2", 60*time.Second)
	answer := eval[string](s, "document.querySelector('article.turn .answer').innerText")
	if !strings.Contains(answer, "600 EUR") {
		t.Errorf("answer: %q", answer)
	}
	if n := eval[int](s, "document.querySelectorAll('article.turn details.trace .steps > li').length"); n < 4 {
		t.Errorf("trace has %d steps", n)
	}
	if !strings.HasPrefix(eval[string](s, "location.pathname + location.search"), "/?c=") {
		t.Error("the address does not name the conversation")
	}
	s.do("open a citation", chromedp.Click(chromedp.CSS("article.turn .answer a[href^='#cite-']")))
	s.waitFor("the cited passage open", "!!document.querySelector('ol.citations > li details[open]')", 5*time.Second)
	s.do("open the trace", chromedp.Click(chromedp.CSS("article.turn details.trace > summary")))
	s.screenshot("06-chat-answer-citations-trace")
	s.checkPage("chat")

	addHostileEntity(t, app)

	// 3. The graph behind the answer, then the explorer: search Munich, select Delhi, expand it.
	graphURL := eval[string](s, "(document.querySelector('article.turn details.trace a[href^=\"/graph?\"]') || {}).href || ''")
	if graphURL == "" {
		t.Error("no link to the graph behind this answer")
	} else {
		s.do("graph behind the answer", chromedp.Navigate(graphURL))
		s.waitFor("facts drawn", "document.querySelector('#graph-canvas') && +document.querySelector('#graph-canvas').dataset.edges > 0", 10*time.Second)
		s.screenshot("07-graph-behind-answer")
	}
	s.do("open graph", chromedp.Navigate(s.base+"/graph"), chromedp.WaitVisible(chromedp.CSS("#graph-q")))
	s.do("search Munich", chromedp.SendKeys(chromedp.CSS("#graph-q"), "Munich"), chromedp.Submit(chromedp.CSS("#graph-q")))
	s.waitFor("Munich drawn", "document.querySelector('#graph-canvas') && +document.querySelector('#graph-canvas').dataset.nodes > 5", 10*time.Second)
	// Row 20 of RELIABILITY.md: a name made of HTML is drawn and shown as text, and runs nothing.
	if got := eval[string](s, "hopwiseGraph.getElementById("+jsString(hostileKey)+").data('name') || ''"); got != hostileName {
		t.Errorf("hostile entity drawn as %q", got)
	}
	eval[bool](s, "hopwiseGraph.getElementById("+jsString(hostileKey)+").emit('tap') && true")
	s.waitFor("hostile entity's details", "document.querySelector('#graph-detail h2') && document.querySelector('#graph-detail h2').innerText === "+jsString(hostileName), 5*time.Second)
	if n := eval[int](s, "document.querySelectorAll('#graph-detail script, #graph-detail img').length"); n != 0 {
		t.Errorf("the detail panel holds %d script or image elements", n)
	}
	s.checkPage("hostile name")
	before := eval[int](s, "+document.querySelector('#graph-canvas').dataset.nodes")
	eval[bool](s, "hopwiseGraph.getElementById('delhi').select().emit('tap') && true")
	s.waitFor("Delhi's details", "!!document.querySelector('#graph-detail button[data-expand=delhi]')", 5*time.Second)
	s.do("expand Delhi", chromedp.Click(chromedp.CSS("#graph-detail button[data-expand=delhi]")))
	s.waitFor("Delhi expanded", fmt.Sprintf("+document.querySelector('#graph-canvas').dataset.nodes > %d", before), 10*time.Second)
	s.screenshot("08-graph-munich-expanded")
	s.checkPage("graph")

	// 4. Delete a document, confirming the dialog.
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#documents")))
	s.do("delete", chromedp.Click(chromedp.CSS("button[aria-label='Delete munich-travel-tips.md']")))
	s.waitFor("row removed", fmt.Sprintf("document.querySelectorAll('#documents tbody tr').length === %d", len(files)-1), 10*time.Second)
	s.waitFor("deletion said", "document.querySelector('#flash').innerText.includes('Deleted')", 5*time.Second)
	s.screenshot("09-documents-after-delete")
	s.checkPage("delete")
	if docs, _ := app.Store.Documents(context.Background()); len(docs) != len(files)-1 {
		t.Errorf("documents after delete: %d", len(docs))
	}

	// 4b. Replace a document with an edited version from its page: the list ends with only the new one
	// (the old row goes even when the replace finished before the progress stream opened).
	name := filepath.Base(files[len(files)-1])
	olds, err := app.Store.DocumentsNamed(context.Background(), name)
	if err != nil || len(olds) != 1 {
		t.Fatalf("documents named %s: %d, %v", name, len(olds), err)
	}
	src, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(edited, append(src, "\n\nRevised: the Zugspitze excursion now leaves from Garmisch.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	s.do("open the document", chromedp.Navigate(s.base+"/documents/"+olds[0].ID), chromedp.WaitVisible(chromedp.CSS("#replace-file")))
	s.do("choose the new version", chromedp.SetUploadFiles(chromedp.CSS("#replace-file"), []string{edited}))
	s.do("replace", chromedp.Click(chromedp.CSS("#replace button[type=submit]")))
	s.waitFor("new version accepted", "!!document.querySelector('#upload-result-list li.ok')", 10*time.Second)
	s.waitFor("only the new version left", fmt.Sprintf("!document.querySelector('#doc-%s') && document.querySelectorAll('#documents tr[data-state=done]').length === %d", olds[0].ID, len(files)-1), 60*time.Second)
	s.screenshot("09b-documents-replaced")
	s.checkPage("replace")
	if news, _ := app.Store.DocumentsNamed(context.Background(), name); len(news) != 1 || news[0].ID == olds[0].ID {
		t.Errorf("documents named %s after the replace: %+v", name, news)
	}

	// 5. The chat on a phone.
	s.do("phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.screenshot("10-chat-phone")
	s.do("status", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.base+"/status"), chromedp.WaitVisible(chromedp.CSS("#checks")))
	s.screenshot("11-status")
	s.checkPage("status")
}

const hostileName = `<img src=x onerror=alert(1)><script>alert(2)</script>`

var hostileKey = graphrag.NormalizeKey(hostileName)

func jsString(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// addHostileEntity links an entity whose name is HTML to Munich, as a careless extraction could.
func addHostileEntity(t *testing.T, app *webtest.App) {
	t.Helper()
	ctx := context.Background()
	docs, err := app.Store.Documents(ctx)
	if err != nil || len(docs) == 0 {
		t.Fatalf("documents: %v", err)
	}
	chunks, err := app.Store.DocumentChunks(ctx, docs[0].ID)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks: %v", err)
	}
	c := chunks[0]
	err = app.Store.PutExtraction(ctx, graphrag.Extraction{ChunkID: c.ID,
		Entities: []graphrag.Entity{
			{Key: hostileKey, Name: hostileName, Type: "<b>kind</b>", Description: hostileName, Aliases: []string{hostileName}, ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}},
			{Key: "munich", Name: "Munich", Type: "city", Aliases: []string{"Munich"}, ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}},
		},
		Relations: []graphrag.Relation{{ID: graphrag.RelationID(hostileKey, "NEAR", "munich"), Source: hostileKey, Target: "munich",
			SourceName: hostileName, TargetName: "Munich", Type: "NEAR", Description: hostileName, ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}
