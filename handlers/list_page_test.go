package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Issue 21, item 7: the run left 7,305 conversations, and the chat page listed them all (8 MB of HTML);
// /documents had no paging. Both pages now list 50 at a time, newest first, with links to the others.
func TestLongListsArePaged(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	ctx := context.Background()
	const convs, docs = 7305, 120
	start := time.Unix(1_700_000_000, 0).UTC()
	for i := range convs {
		at := start.Add(time.Duration(i) * time.Minute)
		if err := b.app.Store.PutConversation(ctx, graphrag.Conversation{ID: fmt.Sprintf("c%05d", i), Title: fmt.Sprintf("Question %d", i), CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range docs {
		body := []byte(fmt.Sprintf("document %d", i))
		at := start.Add(time.Duration(i) * time.Minute)
		d := graphrag.Document{ID: fmt.Sprintf("d%03d", i), Name: fmt.Sprintf("doc-%03d.txt", i), Status: graphrag.StatusDone, CreatedAt: at, UpdatedAt: at}
		if _, _, err := b.app.Store.PutDocument(ctx, d, body); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, path, items, first, label string
		count                           int
		prev, next                      bool
	}{
		{"chat, first page", "/", "#conversations > li", "Question 7304", "Conversations 1–50 of 7,305", 50, false, true},
		{"chat, page 3", "/?cp=3", "#conversations > li", "Question 7204", "Conversations 101–150 of 7,305", 50, true, true},
		{"chat, last page", "/?cp=147", "#conversations > li", "Question 4", "Conversations 7301–7305 of 7,305", 5, true, false},
		{"chat, past the end is the last page", "/?cp=9999", "#conversations > li", "Question 4", "Conversations 7301–7305 of 7,305", 5, true, false},
		{"chat, with a conversation open", "/?c=c00001&cp=2", "#conversations > li", "Question 7254", "Conversations 51–100 of 7,305", 50, true, true},
		{"documents, first page", "/documents", "#documents tbody tr", "doc-119.txt", "Documents 1–50 of 120", 50, false, true},
		{"documents, last page", "/documents?page=3", "#documents tbody tr", "doc-019.txt", "Documents 101–120 of 120", 20, true, false},
		{"documents, a bad page number", "/documents?page=-4", "#documents tbody tr", "doc-119.txt", "Documents 1–50 of 120", 50, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, doc := b.get(tt.path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			html, _ := io.ReadAll(resp.Body)
			items := doc.Find(tt.items)
			if items.Length() != tt.count || !strings.Contains(items.First().Text(), tt.first) {
				t.Errorf("%d items, the first %q; want %d from %q", items.Length(), strings.TrimSpace(items.First().Text()), tt.count, tt.first)
			}
			nav := doc.Find("nav.pager")
			if got := strings.TrimSpace(nav.Find("span").Text()); got != tt.label {
				t.Errorf("pager %q, want %q", got, tt.label)
			}
			if (nav.Find("a[rel=prev]").Length() == 1) != tt.prev || (nav.Find("a[rel=next]").Length() == 1) != tt.next {
				t.Errorf("pager links: %q", nav.Text())
			}
			if n := len(html); n > 200<<10 {
				t.Errorf("the page is %d KB", n>>10)
			}
		})
	}
	// The links lead where they say, keeping the open conversation.
	_, doc := b.get("/?c=c00001&cp=2")
	next := doc.Find("nav.pager a[rel=next]").AttrOr("href", "")
	if next != "/?c=c00001&cp=3" {
		t.Errorf("next link %q", next)
	}
}
