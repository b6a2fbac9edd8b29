package handlers_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// browser is a client that behaves like the pages: it keeps the CSRF cookie and sends the token back.
type browser struct {
	t      *testing.T
	app    *webtest.App
	srv    *httptest.Server
	client *http.Client
	token  string
}

func newBrowser(t *testing.T, opt webtest.Options) *browser {
	t.Helper()
	app := webtest.New(t, opt)
	srv := httptest.NewServer(app.Handler)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	b := &browser{t: t, app: app, srv: srv, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
	_, doc := b.get("/documents")
	var headers map[string]string
	if err := json.Unmarshal([]byte(doc.Find("body").AttrOr("hx-headers", "")), &headers); err != nil {
		t.Fatalf("hx-headers: %v", err)
	}
	b.token = headers["X-CSRF-Token"]
	if b.token == "" {
		t.Fatal("no CSRF token in the page")
	}
	return b
}

func (b *browser) do(req *http.Request) (*http.Response, *goquery.Document) {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		b.t.Fatalf("parse %s: %v", req.URL, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, doc
}

func (b *browser) get(path string) (*http.Response, *goquery.Document) {
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	return b.do(req)
}

// post sends a form like htmx does (htmx=true: HX-Request and the token header) or like a plain form.
func (b *browser) post(path string, form url.Values, htmx bool) (*http.Response, *goquery.Document) {
	if !htmx {
		form.Set("_csrf", b.token)
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.token)
	}
	return b.do(req)
}

type file struct {
	name string
	body []byte
}

func multipartBody(t testing.TB, files []file) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range files {
		part, err := w.CreateFormFile("files", f.name)
		if err != nil {
			t.Fatal(err)
		}
		part.Write(f.body)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

// upload sends files as the upload form does, with htmx or without JavaScript.
func (b *browser) upload(files []file, htmx bool) (*http.Response, *goquery.Document) {
	body, ctype := multipartBody(b.t, files)
	path := "/documents?_csrf=" + url.QueryEscape(b.token)
	if htmx {
		path = "/documents"
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+path, body)
	req.Header.Set("Content-Type", ctype)
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.token)
	}
	return b.do(req)
}

// demoFiles reads the demo corpus.
func demoFiles(t testing.TB) []file {
	t.Helper()
	dir := webtest.DemoCorpus(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	var out []file
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, file{filepath.Base(p), body})
	}
	return out
}

type sseEvent struct{ name, id, data string }

// readSSE reads events until one named until (included) or the end of the stream.
func readSSE(t testing.TB, r io.Reader, until string) []sseEvent {
	t.Helper()
	var out []sseEvent
	var ev sseEvent
	var data []string
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.name != "" {
				ev.data = strings.Join(data, "\n")
				out = append(out, ev)
				if ev.name == until {
					return out
				}
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "data:":
			data = append(data, "")
		}
	}
}

func fragment(t testing.TB, html string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
