package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func skipWithoutChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
}

// TestBrowserReplacesADocumentAndOpensACitationAtItsPage: Chromium's 13-page print of the long sample is
// uploaded, then replaced from its page by LibreOffice's 19-page export of the same text (the Replace
// form); once only the new version is listed, its passages name the new version's pages, the Delhi-Munich
// answer cites only the new version, each citation at a page of it, and the first opens the new original
// in Chromium's PDF viewer at that page.
func TestBrowserReplacesADocumentAndOpensACitationAtItsPage(t *testing.T) {
	skipWithoutChromium(t)
	app := webtest.New(t, webtest.Options{})
	s := newSession(t, startServer(t, app))
	fixture := func(name string) string {
		p, err := filepath.Abs(filepath.Join("..", "graphrag", "parse", "testdata", "realworld", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#files")))
	s.do("choose the PDF", chromedp.SetUploadFiles(chromedp.CSS("#files"), []string{fixture("long-chromium.pdf")}))
	s.do("upload", chromedp.Click(chromedp.CSS("#upload button[type=submit]")))
	s.waitFor("the PDF done", "document.querySelectorAll('#documents tr[data-state=done]').length === 1", 60*time.Second)
	old := app.WaitDone(t, 10*time.Second)[0]

	s.do("open its page", chromedp.Navigate(s.base+"/documents/"+old.ID), chromedp.WaitVisible(chromedp.CSS("#replace-file")))
	s.do("choose the new version", chromedp.SetUploadFiles(chromedp.CSS("#replace-file"), []string{fixture("long-libreoffice.pdf")}))
	s.do("replace", chromedp.Click(chromedp.CSS("#replace button[type=submit]")))
	s.waitFor("new version accepted", "!!document.querySelector('#upload-result-list li.ok')", 10*time.Second)
	s.waitFor("only the new version left", fmt.Sprintf("!document.querySelector('#doc-%s') && document.querySelectorAll('#documents tr[data-state=done]').length === 1", old.ID), 90*time.Second)
	docs := app.WaitDone(t, 10*time.Second)
	if len(docs) != 1 || docs[0].ID == old.ID {
		t.Fatalf("documents after the replace: %+v, want the new version alone", docs)
	}
	next := docs[0]

	s.do("open the new version's page", chromedp.Navigate(s.base+"/documents/"+next.ID), chromedp.WaitVisible(chromedp.CSS("#chunks")))
	s.do("show the last passage", chromedp.ScrollIntoView(chromedp.CSS("#chunks li:last-child")))
	s.screenshot("50-replaced-document-pages")
	label := eval[string](s, "document.querySelector('#chunks li:last-child .section a.original').innerText")
	var last int
	if _, err := fmt.Sscanf(label, "page %d", &last); err != nil || last <= 13 {
		t.Errorf("the new version's last passage is on %q, want a page past the old version's 13", label)
	}
	s.checkPage("replaced document page")

	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), webtest.DelhiQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the cited answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length > 0", 60*time.Second)
	links := eval[[]string](s, "[...document.querySelectorAll('article.turn ol.citations a.original')].map(a => a.getAttribute('href'))")
	if len(links) == 0 {
		t.Fatal("the answer's citations link no original")
	}
	for _, l := range links {
		if !strings.HasPrefix(l, "/documents/"+next.ID+"/original#page=") {
			t.Errorf("citation link %q: want the new version %s at a page", l, next.ID)
		}
	}
	s.do("open the first citation", chromedp.Click(chromedp.CSS("article.turn .answer a[href^='#cite-']")))
	s.waitFor("the cited passage open", "!!document.querySelector('ol.citations > li details[open]')", 5*time.Second)
	s.screenshot("51-replaced-citations")
	s.checkPage("chat after the replace")
	s.do("open the cited page", chromedp.Navigate(s.base+links[0]))
	s.waitFor("the PDF viewer", "document.contentType === 'application/pdf'", 10*time.Second)
	_, page, _ := strings.Cut(links[0], "#")
	if got := eval[string](s, "location.hash"); got != "#"+page {
		t.Errorf("opened at %q, want #%s", got, page)
	}
	time.Sleep(time.Second) // the viewer draws the page after the load
	s.screenshot("52-replaced-citation-at-page")
}

// TestBrowserReindexesFromTheStatusPage: the demo store (256 dimensions) with a new embedding model of
// 32 configured: the Status page warns that searches use the old model's vectors, its Re-index button
// shows the progress as it runs (the section polls itself), then that it is done, naming the new model,
// without the warning, also after a reload; then a question is answered with citations.
func TestBrowserReindexesFromTheStatusPage(t *testing.T) {
	skipWithoutChromium(t)
	next := llmtest.New(t, llmtest.WithEmbedDim(32))
	next.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Delay: 600 * time.Millisecond}, req.IsEmbed()
	})
	app := webtest.New(t, webtest.Options{Demo: true, ReindexTo: next, ReindexDim: 32})
	s := newSession(t, startServer(t, app))
	s.do("open status", chromedp.Navigate(s.base+"/status"), chromedp.WaitVisible(chromedp.CSS("#reindex-needed")))
	s.do("show the search index", chromedp.ScrollIntoView(chromedp.CSS("#reindex")))
	s.screenshot("53-status-reindex-needed")
	s.checkPage("status")
	s.do("re-index", chromedp.Click(chromedp.CSS("#reindex form button[type=submit]")))
	s.waitFor("the progress", "/Re-indexing: [1-9]/.test(document.querySelector('#reindex-progress')?.innerText || '')", 20*time.Second)
	s.screenshot("54-status-reindex-running")
	s.waitFor("the re-index done", "(document.querySelector('#reindex-progress')?.innerText || '').includes('Re-index done') && !document.querySelector('#reindex-needed')", 60*time.Second)
	s.screenshot("55-status-reindex-done")
	s.do("reload status", chromedp.Navigate(s.base+"/status"), chromedp.WaitVisible(chromedp.CSS("#reindex")))
	if n := eval[int](s, "document.querySelectorAll('#reindex-needed').length"); n != 0 {
		t.Errorf("the status page still warns after the re-index")
	}
	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), webtest.DelhiQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the cited answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length > 0", 60*time.Second)
	s.checkPage("chat after the re-index")
}
