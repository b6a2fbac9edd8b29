package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/urlfetch"
)

const guidePage = `<!doctype html><html><head><title>Travel guide</title></head>
<body><h1>Travel</h1><p>Employees of Nexa AI may work from Lisbon for up to 30 days a year.</p></body></html>`

// pageServer serves the guide on 127.0.0.1 and counts its requests; the returned options allow it.
func pageServer(t *testing.T) (*httptest.Server, *atomic.Int64, webtest.Options) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/guide":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, guidePage)
		case "/to-internal":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	allow := urlfetch.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Timeout: 5 * time.Second}
	return srv, &hits, webtest.Options{URLFetch: allow}
}

// RELIABILITY row 23: the documents page adds a public page like an upload, and refuses internal
// addresses with a message people can read.
func TestAddPageFromTheDocumentsPage(t *testing.T) {
	pages, _, opt := pageServer(t)
	b := newBrowser(t, opt)
	_, doc := b.get("/documents")
	form := doc.Find("form#add-page")
	if form.AttrOr("hx-post", "") != "/documents/url" || form.Find(`input[name="_csrf"]`).Length() != 1 {
		t.Fatalf("no add-page form with a CSRF field: %q", form.Text())
	}
	if form.Find(`label[for="page-url"]`).Length() != 1 || form.Find(`input#page-url[name="url"]`).Length() != 1 {
		t.Error("the address field has no label")
	}

	resp, doc := b.post("/documents/url", url.Values{"url": {pages.URL + "/guide"}}, true)
	li := doc.Find("#upload-result-list li")
	if resp.StatusCode != http.StatusOK || !li.HasClass("ok") || !strings.Contains(li.Text(), "being read") {
		t.Fatalf("add: %d %q (class %q)", resp.StatusCode, li.Text(), li.AttrOr("class", ""))
	}
	if doc.Find("#doc-live[hx-swap-oob] tr[data-state]").Length() != 1 {
		t.Error("the list is not refreshed out of band with the new row")
	}
	docs := b.app.WaitDone(t, 20*time.Second)
	if len(docs) != 1 || docs[0].Name != "127.0.0.1-guide.html" || docs[0].Status != "done" || docs[0].Title != "Travel guide" {
		t.Fatalf("documents: %+v", docs)
	}

	refusals := []struct {
		name, url, want string
	}{
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "That address is on a private network; Hopwise only fetches public web pages."},
		{"private network", "http://10.0.0.1/admin", "That address is on a private network; Hopwise only fetches public web pages."},
		{"redirect to the metadata address", pages.URL + "/to-internal", "That address is on a private network; Hopwise only fetches public web pages."},
		{"file", "file:///etc/passwd", "Only web pages (http:// or https://) can be added."},
		{"missing page", pages.URL + "/missing", "The web server answered 404 Not Found."},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			resp, doc := b.post("/documents/url", url.Values{"url": {tt.url}}, true)
			li := doc.Find("#upload-result-list li")
			if resp.StatusCode != http.StatusOK || !li.HasClass("bad") || li.Find("strong").Text() != tt.url {
				t.Fatalf("%d %q (class %q)", resp.StatusCode, li.Text(), li.AttrOr("class", ""))
			}
			if got := strings.TrimPrefix(li.Text(), tt.url+": "); got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
		})
	}

	// Without JavaScript the whole page comes back, with the refusal and its status.
	resp, doc = b.post("/documents/url", url.Values{"url": {"http://[::1]/"}}, false)
	if resp.StatusCode != http.StatusUnprocessableEntity || doc.Find("h1").Text() != "Documents" ||
		!strings.Contains(doc.Find("#upload-result-list li.bad").Text(), "private network") {
		t.Errorf("without JavaScript: %d %q", resp.StatusCode, doc.Find("#upload-result-list").Text())
	}
	if docs, _ := b.app.Store.Documents(context.Background()); len(docs) != 1 {
		t.Errorf("refused pages were stored: %d documents", len(docs))
	}
}

func TestAddPageNeedsTheCSRFToken(t *testing.T) {
	pages, hits, opt := pageServer(t)
	b := newBrowser(t, opt)
	body := url.Values{"url": {pages.URL + "/guide"}}.Encode()
	for _, h := range []map[string]string{{}, {"X-CSRF-Token": "forged"}, {"Sec-Fetch-Site": "cross-site", "X-CSRF-Token": b.token}} {
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/documents/url", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, _ := b.do(req)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("headers %v: status %d, want 403", h, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/documents/url", strings.NewReader(`{"url":"`+pages.URL+`/guide"}`))
	req.Header.Set("Origin", "https://evil.example")
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("API from another origin: %d, want 403", resp.StatusCode)
	}
	if hits.Load() != 0 {
		t.Errorf("a refused request fetched the page %d time(s)", hits.Load())
	}
}

type addedPage struct {
	URL, Name, Outcome, Message string
	DocumentID                  string `json:"document_id"`
}

func postURL(t *testing.T, base, body string) (int, addedPage) {
	t.Helper()
	resp, err := http.Post(base+"/api/documents/url", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out addedPage
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// RELIABILITY row 23: a script adds a page through the JSON API; internal addresses are refused with 422.
func TestAddPageThroughTheJSONAPI(t *testing.T) {
	pages, _, opt := pageServer(t)
	b := newBrowser(t, opt)
	status, got := postURL(t, b.srv.URL, `{"url":"`+pages.URL+`/guide"}`)
	if status != http.StatusOK || got.Outcome != "accepted" || got.DocumentID == "" || got.Name != "127.0.0.1-guide.html" {
		t.Fatalf("add: %d %+v", status, got)
	}
	b.app.WaitDone(t, 20*time.Second)
	status, got = postURL(t, b.srv.URL, `{"url":"`+pages.URL+`/guide"}`)
	if status != http.StatusOK || got.Outcome != "duplicate" {
		t.Errorf("again: %d %+v", status, got)
	}

	tests := []struct {
		name, body string
		status     int
		message    string
	}{
		{"metadata address", `{"url":"http://169.254.169.254/latest/meta-data/"}`, http.StatusUnprocessableEntity,
			"That address is on a private network; Hopwise only fetches public web pages."},
		{"private address written as one number", `{"url":"http://167772161/"}`, http.StatusUnprocessableEntity,
			"That address is on a private network; Hopwise only fetches public web pages."},
		{"IPv4-mapped metadata address", `{"url":"http://[::ffff:169.254.169.254]/"}`, http.StatusUnprocessableEntity,
			"That address is on a private network; Hopwise only fetches public web pages."},
		{"ftp", `{"url":"ftp://example.org/a.txt"}`, http.StatusUnprocessableEntity, "Only web pages (http:// or https://) can be added."},
		{"missing page", `{"url":"` + pages.URL + `/missing"}`, http.StatusBadGateway, "The web server answered 404 Not Found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := postURL(t, b.srv.URL, tt.body)
			if status != tt.status || got.Outcome != "rejected" || got.Message != tt.message {
				t.Errorf("%d %+v, want %d %q", status, got, tt.status, tt.message)
			}
		})
	}
	for _, body := range []string{`{"url":""}`, `not json`} {
		if status, _ := postURL(t, b.srv.URL, body); status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", body, status)
		}
	}
	if docs, _ := b.app.Store.Documents(context.Background()); len(docs) != 1 {
		t.Errorf("documents: %d, want 1", len(docs))
	}
}

// Adding pages counts against the same per-client limit as uploads.
func TestAddPageSharesTheUploadRateLimit(t *testing.T) {
	b := newBrowser(t, webtest.Options{Limits: handlers.Limits{UploadPerMinute: 2}})
	if resp, _ := b.upload([]file{{"a.txt", []byte("hello")}}, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	if status, _ := postURL(t, b.srv.URL, `{"url":"http://10.0.0.1/"}`); status != http.StatusUnprocessableEntity {
		t.Fatalf("first page: %d", status)
	}
	resp, doc := b.post("/documents/url", url.Values{"url": {"http://10.0.0.1/"}}, true)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(doc.Text(), "wait a minute") {
		t.Errorf("third request: %d %q", resp.StatusCode, doc.Text())
	}
}
