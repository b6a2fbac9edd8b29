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
)

// TestBrowserOpensTheOriginalAtItsPage: a 13-page PDF uploaded through the form; on its page each passage
// names the page it starts on, and its link opens the original in Chromium's PDF viewer at that page; the
// answer to the Delhi-Munich question cites it (a passage or a fact drawn from one), each citation linked
// to the original at its page.
func TestBrowserOpensTheOriginalAtItsPage(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{})
	s := newSession(t, startServer(t, app))
	pdf, err := filepath.Abs(filepath.Join("..", "graphrag", "parse", "testdata", "realworld", "long-chromium.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#files")))
	s.do("choose the PDF", chromedp.SetUploadFiles(chromedp.CSS("#files"), []string{pdf}))
	s.do("upload", chromedp.Click(chromedp.CSS("#upload button[type=submit]")))
	s.waitFor("the PDF done", "document.querySelectorAll('#documents tr[data-state=done]').length === 1", 60*time.Second)
	docs := app.WaitDone(t, 10*time.Second)
	s.do("open its page", chromedp.Navigate(s.base+"/documents/"+docs[0].ID), chromedp.WaitVisible(chromedp.CSS("#chunks")))
	s.do("show the last passage", chromedp.ScrollIntoView(chromedp.CSS("#chunks li:last-child")))
	s.screenshot("12-document-passage-pages")
	href := eval[string](s, "document.querySelector('#chunks li:last-child .section a.original').getAttribute('href')")
	label := eval[string](s, "document.querySelector('#chunks li:last-child .section a.original').innerText")
	var n int
	if _, err := fmt.Sscanf(label, "page %d", &n); err != nil || n < 12 || !strings.HasSuffix(href, fmt.Sprintf("/original#page=%d", n)) {
		t.Fatalf("last passage links %q as %q, want page 12 or 13", href, label)
	}
	s.checkPage("document page")
	s.do("open the original at its page", chromedp.Navigate(s.base+href))
	s.waitFor("the PDF viewer", "document.contentType === 'application/pdf'", 10*time.Second)
	if got := eval[string](s, "location.hash"); got != fmt.Sprintf("#page=%d", n) {
		t.Errorf("opened at %q, want #page=%d", got, n)
	}
	time.Sleep(time.Second) // the viewer draws the page after the load
	s.screenshot("13-original-at-page")

	// The Delhi-Munich answer cites passages of this PDF; each citation opens the original at its page.
	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), webtest.DelhiQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the cited answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length > 0", 60*time.Second)
	cites := eval[int](s, "document.querySelectorAll('article.turn ol.citations > li').length")
	links := eval[[]string](s, "[...document.querySelectorAll('article.turn ol.citations a.original')].map(a => a.getAttribute('href') + ' ' + a.textContent.trim().replace(/\\s+/g, ' '))")
	if len(links) != cites {
		t.Fatalf("%d citations, %d links to the original: %q", cites, len(links), links)
	}
	for _, l := range links {
		var cited int
		if i := strings.Index(l, "#page="); i < 0 || !strings.Contains(l, "Open the original at page ") {
			t.Errorf("citation link %q does not open a page", l)
		} else if _, err := fmt.Sscanf(l[i:], "#page=%d", &cited); err != nil || !strings.HasSuffix(l, fmt.Sprintf("at page %d", cited)) {
			t.Errorf("citation link %q: its page and its label differ", l)
		}
	}
	s.do("open the first citation", chromedp.Click(chromedp.CSS("article.turn .answer a[href^='#cite-']")))
	s.waitFor("the cited passage open", "!!document.querySelector('ol.citations > li details[open]')", 5*time.Second)
	s.screenshot("14-chat-citations-with-pages")
	s.checkPage("chat")
	first, _, _ := strings.Cut(links[0], " ")
	s.do("open the cited page", chromedp.Navigate(s.base+first))
	s.waitFor("the PDF viewer", "document.contentType === 'application/pdf'", 10*time.Second)
	time.Sleep(time.Second)
	s.screenshot("15-citation-original-at-page")
}
