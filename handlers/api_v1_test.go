package handlers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// getJSON GETs path as a script does (no browser header) and decodes the answer into v.
func getJSON(t *testing.T, b *browser, path string, v any) int {
	t.Helper()
	resp, err := http.Get(b.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("GET %s: %d, not JSON: %v", path, resp.StatusCode, err)
	}
	return resp.StatusCode
}

func send(t *testing.T, method, u string, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

type docPage struct {
	Documents []struct {
		ID, Name, Status string
	}
	Total      int
	Offset     int
	NextOffset *int `json:"next_offset"`
}

func TestAPIV1DocumentsPageAndAddressing(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	var p docPage
	if code := getJSON(t, b, "/api/v1/documents?limit=4", &p); code != http.StatusOK || len(p.Documents) != 4 || p.Total != 6 ||
		p.NextOffset == nil || *p.NextOffset != 4 {
		t.Fatalf("first page: %d %+v", code, p)
	}
	var last docPage
	getJSON(t, b, "/api/v1/documents?offset=4&limit=4", &last)
	if len(last.Documents) != 2 || last.NextOffset != nil || last.Documents[0].ID == p.Documents[0].ID {
		t.Fatalf("last page: %+v", last)
	}
	var bad struct{ Error string }
	if code := getJSON(t, b, "/api/v1/documents?limit=many", &bad); code != http.StatusBadRequest || !strings.Contains(bad.Error, "limit") {
		t.Errorf("limit=many: %d %q", code, bad.Error)
	}
	if code := getJSON(t, b, "/api/v1/documents?offset=-1", &bad); code != http.StatusBadRequest || bad.Error != "Offset cannot be negative." {
		t.Errorf("offset=-1: %d %q", code, bad.Error)
	}

	var byName struct{ ID, Name, Status string }
	if code := getJSON(t, b, "/api/v1/documents/"+url.PathEscape("munich-city-distances.md"), &byName); code != http.StatusOK ||
		byName.Name != "munich-city-distances.md" || byName.Status != "done" {
		t.Fatalf("by name: %d %+v", code, byName)
	}
	var byID struct{ ID, Name string }
	getJSON(t, b, "/api/v1/documents/"+byName.ID, &byID)
	if byID != (struct{ ID, Name string }{byName.ID, byName.Name}) {
		t.Errorf("by ID: %+v", byID)
	}

	resp, err := http.Get(b.srv.URL + "/api/v1/documents/" + byName.ID + "/original")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := os.ReadFile(filepath.Join(webtest.DemoCorpus(t), "munich-city-distances.md"))
	if string(got) != string(want) || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") ||
		resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("original: %d bytes (want %d), %q, %q", len(got), len(want), resp.Header.Get("Content-Disposition"), resp.Header.Get("Content-Type"))
	}

	if resp := send(t, http.MethodDelete, b.srv.URL+"/api/v1/documents/munich-city-distances.md", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete by name: %d", resp.StatusCode)
	}
	var gone struct{ Error string }
	if code := getJSON(t, b, "/api/v1/documents/"+byName.ID, &gone); code != http.StatusNotFound || gone.Error == "" {
		t.Errorf("deleted: %d %+v", code, gone)
	}
	if code := getJSON(t, b, "/api/v1/documents/"+byName.ID+"/original", &gone); code != http.StatusNotFound {
		t.Errorf("deleted original: %d", code)
	}
}

// Two uploads of different bytes under one name: the name is ambiguous and the answer lists both IDs.
func TestAPIV1AmbiguousName(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	for _, body := range []string{"First notes about Munich.", "Second notes about Delhi."} {
		mp, ctype := multipartBody(t, []file{{"notes.txt", []byte(body)}})
		resp, err := http.Post(b.srv.URL+"/api/v1/documents", ctype, mp)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("upload: %v %v", err, resp)
		}
		resp.Body.Close()
	}
	b.app.WaitDone(t, 30e9)
	var e struct{ Error string }
	var p docPage
	getJSON(t, b, "/api/v1/documents", &p)
	if code := getJSON(t, b, "/api/v1/documents/notes.txt", &e); code != http.StatusConflict ||
		!strings.Contains(e.Error, p.Documents[0].ID) || !strings.Contains(e.Error, p.Documents[1].ID) {
		t.Errorf("ambiguous: %d %q (documents %+v)", code, e.Error, p.Documents)
	}
}

func TestAPIV1SearchPassagesAndGraph(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	var res struct {
		Query    string
		Passages []struct {
			ID, Text     string
			DocumentName string `json:"document_name"`
			Rank         int
		}
		Facts []struct {
			Sentence, Source, Target string
			Passages                 []string `json:"passage_ids"`
		}
	}
	if code := getJSON(t, b, "/api/v1/search?q="+url.QueryEscape("distance between Delhi and Munich")+"&k=3", &res); code != http.StatusOK {
		t.Fatalf("search: %d", code)
	}
	if len(res.Passages) != 3 || res.Passages[0].Rank != 1 || len(res.Facts) == 0 {
		t.Fatalf("search: %+v", res)
	}
	found, table := false, false
	for _, f := range res.Facts {
		found = found || (strings.Contains(f.Source+f.Target, "Delhi") && len(f.Passages) > 0)
	}
	for _, p := range res.Passages {
		table = table || p.DocumentName == "munich-city-distances.md"
	}
	if !found || !table {
		t.Errorf("no fact about Delhi, or not the distances table: %+v %+v", res.Facts, res.Passages)
	}
	var e struct{ Error string }
	if code := getJSON(t, b, "/api/v1/search?q=+", &e); code != http.StatusBadRequest || e.Error != "Give a query." {
		t.Errorf("empty query: %d %q", code, e.Error)
	}

	var p struct{ ID, Text string }
	if code := getJSON(t, b, "/api/v1/passages/"+res.Passages[0].ID, &p); code != http.StatusOK || p.Text != res.Passages[0].Text {
		t.Errorf("passage: %d %+v", code, p)
	}
	if code := getJSON(t, b, "/api/v1/passages/nope", &e); code != http.StatusNotFound {
		t.Errorf("unknown passage: %d", code)
	}

	var ents struct{ Entities []struct{ Key, Name string } }
	if getJSON(t, b, "/api/v1/graph/entities?q=Lufthansa", &ents); len(ents.Entities) == 0 {
		t.Fatalf("entities: %+v", ents)
	}
	var n struct {
		Entities  []struct{ Key, Name string }
		Relations []struct {
			Source, Target, Type string
			Hop                  int
		}
	}
	if code := getJSON(t, b, "/api/v1/graph/neighbourhood?entity=Munich", &n); code != http.StatusOK || len(n.Relations) == 0 || len(n.Entities) < 2 {
		t.Fatalf("neighbourhood by name: %d %+v", code, n)
	}
	for _, r := range n.Relations {
		if r.Hop != 1 {
			t.Errorf("hops=1 reached %+v", r)
		}
	}
	if code := getJSON(t, b, "/api/v1/graph/neighbourhood?entity=Munich&hops=3", &e); code != http.StatusBadRequest || e.Error != "Hops is 1 or 2." {
		t.Errorf("hops=3: %d %q", code, e.Error)
	}
	if code := getJSON(t, b, "/api/v1/graph/neighbourhood?entity=Atlantis", &e); code != http.StatusNotFound {
		t.Errorf("unknown entity: %d %q", code, e.Error)
	}
}

func TestAPIV1Conversations(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	resp, err := http.Post(b.srv.URL+"/api/v1/ask", "application/json", strings.NewReader(`{"question":"`+webtest.DelhiQuestion+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		ConversationID string `json:"conversation_id"`
	}
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || ans.ConversationID == "" {
		t.Fatalf("ask: %d %+v", resp.StatusCode, ans)
	}
	var list struct {
		Conversations []struct {
			ID        string
			TurnCount int `json:"turn_count"`
		}
		Total int
	}
	if getJSON(t, b, "/api/v1/conversations", &list); list.Total != 1 || list.Conversations[0].ID != ans.ConversationID ||
		list.Conversations[0].TurnCount != 1 {
		t.Fatalf("list: %+v", list)
	}
	var conv struct {
		Title string
		Turns []struct {
			Question, Answer, Status string
			Citations                []struct {
				N       int
				ChunkID string `json:"chunk_id"`
			}
		}
	}
	getJSON(t, b, "/api/v1/conversations/"+ans.ConversationID, &conv)
	if len(conv.Turns) != 1 || conv.Turns[0].Status != "done" || !strings.Contains(conv.Turns[0].Answer, "600 EUR") ||
		len(conv.Turns[0].Citations) != 2 || conv.Turns[0].Citations[0].ChunkID == "" {
		t.Fatalf("conversation: %+v", conv)
	}
	if resp := send(t, http.MethodDelete, b.srv.URL+"/api/v1/conversations/"+ans.ConversationID, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	var e struct{ Error string }
	if code := getJSON(t, b, "/api/v1/conversations/"+ans.ConversationID, &e); code != http.StatusNotFound {
		t.Errorf("deleted: %d", code)
	}
	if resp := send(t, http.MethodDelete, b.srv.URL+"/api/v1/conversations/"+ans.ConversationID, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("delete again: %d", resp.StatusCode)
	}
}
