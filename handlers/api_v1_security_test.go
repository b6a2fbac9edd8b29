package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// A page of another site can make a visitor's browser send requests to Hopwise on 127.0.0.1: it cannot
// read the answers, but a form post or a fetch without CORS would still upload, delete or ask. The
// programs' routes take no cookie and no CSRF token, so they refuse every request a browser marks as
// coming from elsewhere, and serve scripts, which send no such header.
func TestProgramRoutesRefuseOtherOrigins(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	var p docPage
	getJSON(t, b, "/api/v1/documents", &p)
	doc := b.srv.URL + "/api/v1/documents/" + p.Documents[0].ID
	cases := []struct {
		name, method, url string
		header            http.Header
		want              int
	}{
		{"script reads", "GET", doc, nil, 200},
		{"address bar reads", "GET", doc, http.Header{"Sec-Fetch-Site": {"none"}}, 200},
		{"own page reads", "GET", doc, http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {b.srv.URL}}, 200},
		{"other site reads", "GET", doc, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"other port reads", "GET", doc, http.Header{"Sec-Fetch-Site": {"same-site"}, "Origin": {"http://127.0.0.1:1"}}, 403},
		{"other site deletes", "DELETE", doc, http.Header{"Origin": {"https://evil.example"}}, 403},
		{"address bar cannot delete", "DELETE", doc, http.Header{"Sec-Fetch-Site": {"none"}}, 403},
		{"opaque origin deletes", "DELETE", doc, http.Header{"Origin": {"null"}}, 403},
		{"other site asks", "POST", b.srv.URL + "/api/v1/ask", http.Header{"Origin": {"https://evil.example"}, "Content-Type": {"text/plain"}}, 403},
		{"other site uploads", "POST", b.srv.URL + "/api/v1/documents", http.Header{"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"multipart/form-data; boundary=x"}}, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if resp := send(t, tc.method, tc.url, tc.header); resp.StatusCode != tc.want {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.url, resp.StatusCode, tc.want)
			}
		})
	}
	var d struct{ ID string }
	if code := getJSON(t, b, "/api/v1/documents/"+p.Documents[0].ID, &d); code != http.StatusOK {
		t.Errorf("the document is gone after refused deletes: %d", code)
	}

	// A page on a name that was made to resolve to 127.0.0.1 (DNS rebinding) is served nothing.
	req, _ := http.NewRequest(http.MethodGet, doc, nil)
	req.Host = "rebound.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %d", resp.StatusCode)
	}

	// The browser's own session cookie does not make a script call: a cookie-carrying POST needs the token.
	req, _ = http.NewRequest(http.MethodPost, b.srv.URL+"/api/v1/ask", strings.NewReader(`{"question":"Who?"}`))
	req.Header.Set("Cookie", "hopwise_session=00112233445566778899aabbccddeeff")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cookie without token: %d", resp.StatusCode)
	}
}

// A client library keeps the cookies it is sent (Python's openai and mcp packages do): the program routes
// set none, so its next POST is still a script's.
func TestProgramRoutesSetNoSessionCookie(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	for _, path := range []string{"/api/v1/documents", "/v1/models", "/api/documents"} {
		resp := send(t, http.MethodGet, b.srv.URL+path, nil)
		if c := resp.Header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("%s sets %v", path, c)
		}
	}
	if resp := send(t, http.MethodGet, b.srv.URL+"/documents", nil); len(resp.Header.Values("Set-Cookie")) != 1 {
		t.Errorf("the documents page sets no session cookie")
	}
}
