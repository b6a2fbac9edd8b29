package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// A script uses the JSON API without any browser header: upload, list, ask (JSON and SSE), delete.
func TestJSONAPIForScripts(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	body, ctype := multipartBody(t, demoFiles(t))
	resp, err := http.Post(b.srv.URL+"/api/documents", ctype, body)
	if err != nil {
		t.Fatal(err)
	}
	var up struct {
		Files []struct{ Name, Outcome, DocumentID string }
	}
	json.NewDecoder(resp.Body).Decode(&up)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(up.Files) != 6 || up.Files[0].Outcome != "accepted" {
		t.Fatalf("upload: %d %+v", resp.StatusCode, up)
	}
	b.app.WaitDone(t, 30*time.Second)

	resp, _ = http.Get(b.srv.URL + "/api/documents")
	var list struct{ Documents []struct{ ID, Status string } }
	json.NewDecoder(resp.Body).Decode(&list)
	if len(list.Documents) != 6 || list.Documents[0].Status != "done" {
		t.Fatalf("list: %+v", list)
	}

	resp, err = http.Post(b.srv.URL+"/api/ask", "application/json", strings.NewReader(`{"question":"`+webtest.DelhiQuestion+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		ConversationID string `json:"conversation_id"`
		Status         string
		Result         struct {
			Answer    string
			Citations []struct{ N int }
		}
	}
	json.NewDecoder(resp.Body).Decode(&ans)
	if !strings.Contains(ans.Result.Answer, "600 EUR") || len(ans.Result.Citations) != 2 || ans.Status != "done" {
		t.Fatalf("answer: %+v", ans)
	}

	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/ask", strings.NewReader(`{"question":"And from Paris?","conversation_id":"`+ans.ConversationID+`"}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := readSSE(t, resp.Body, "done")
	resp.Body.Close()
	tokens := 0
	for _, ev := range events {
		if ev.name == "token" {
			tokens++
		}
	}
	if tokens == 0 || events[len(events)-1].name != "done" {
		t.Errorf("stream: %d tokens, last %q", tokens, events[len(events)-1].name)
	}
	var done struct {
		ConversationID string `json:"conversation_id"`
		Status         string
	}
	if err := json.Unmarshal([]byte(events[len(events)-1].data), &done); err != nil || done.ConversationID != ans.ConversationID || done.Status != "done" {
		t.Errorf("stream's done: %+v %v; want the follow-up done in conversation %s", done, err, ans.ConversationID)
	}

	// A conversation ID the server does not know is refused before any work, and no conversation is made.
	resp, err = http.Post(b.srv.URL+"/api/ask", "application/json", strings.NewReader(`{"question":"And from Paris?","conversation_id":"c-unknown"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if convs, _ := b.app.Store.Conversations(context.Background(), graphrag.AllConversations); resp.StatusCode != http.StatusNotFound || len(convs) != 1 {
		t.Errorf("ask in an unknown conversation: %d, %d conversations; want 404 and still one", resp.StatusCode, len(convs))
	}

	req, _ = http.NewRequest(http.MethodDelete, b.srv.URL+"/api/documents/"+list.Documents[0].ID, nil)
	resp, _ = http.DefaultClient.Do(req)
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	resp, _ = http.Get(b.srv.URL + "/api/documents/" + list.Documents[0].ID)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleted document: %d", resp.StatusCode)
	}
	resp, _ = http.Get(b.srv.URL + "/healthz")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("health: %d", resp.StatusCode)
	}
}

func TestStatusPageMasksSecrets(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	_, doc := b.get("/status")
	rows := doc.Find("#checks tbody tr")
	if rows.Length() != 3 || !strings.Contains(rows.First().Text(), "Yes") {
		t.Errorf("checks: %s", rows.Text())
	}
	if !strings.Contains(doc.Find("#settings").Text(), "sk-…ab") {
		t.Errorf("settings: %s", doc.Find("#settings").Text())
	}
}
