package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var conversationCases = []testCase{
	{"conversations and turns round trip in order", testConversations},
}

// tick makes the next update visibly later for stores with coarse clocks.
func tick() { time.Sleep(10 * time.Millisecond) }

func testConversations(t *testing.T, f *fixture) {
	put := func(c graphrag.Conversation) {
		t.Helper()
		if err := f.s.PutConversation(f.ctx, c); err != nil {
			t.Fatalf("PutConversation(%s): %v", c.ID, err)
		}
	}
	putTurn := func(tr graphrag.Turn) {
		t.Helper()
		if err := f.s.PutTurn(f.ctx, tr); err != nil {
			t.Fatalf("PutTurn(%s): %v", tr.ID, err)
		}
	}
	order := func(want ...string) {
		t.Helper()
		cs, err := f.s.Conversations(f.ctx)
		if err != nil {
			t.Fatalf("Conversations: %v", err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Conversations = %v, want %v (most recently updated first)", got, want)
		}
	}

	put(graphrag.Conversation{ID: "c1", Title: "Denied boarding"})
	tick()
	put(graphrag.Conversation{ID: "c2", Title: "Expenses"})
	order("c2", "c1")
	tick()

	second := graphrag.Turn{ID: "t2", ConversationID: "c1", Ordinal: 2, Question: "And from Delhi?", Status: "running",
		Trace: []byte(`{"steps":["retrieve"]}`), Citations: []byte(`[]`)}
	first := graphrag.Turn{ID: "t1", ConversationID: "c1", Ordinal: 1, Question: "How much for denied boarding?",
		Answer: "It depends on distance.", Status: "done", Trace: []byte(`{"steps":["retrieve","generate"]}`),
		Citations: []byte(`[{"n":1,"chunk":"d1-0000"}]`)}
	putTurn(second)
	putTurn(first)
	order("c1", "c2")
	c, turns, err := f.s.Conversation(f.ctx, "c1")
	if err != nil {
		t.Fatalf("Conversation(c1): %v", err)
	}
	created := c.CreatedAt
	if c.Title != "Denied boarding" || c.Turns != 2 || len(turns) != 2 {
		t.Fatalf("Conversation(c1) = %+v with %d turns, want title and 2 turns", c, len(turns))
	}
	for i, want := range []graphrag.Turn{first, second} {
		got := turns[i]
		if got.ID != want.ID || got.ConversationID != "c1" || got.Ordinal != want.Ordinal || got.Question != want.Question ||
			got.Answer != want.Answer || got.Status != want.Status || string(got.Trace) != string(want.Trace) ||
			string(got.Citations) != string(want.Citations) {
			t.Errorf("turn %d = %+v, want %+v", i, got, want)
		}
		if got.CreatedAt.IsZero() {
			t.Errorf("turn %d has no CreatedAt", i)
		}
	}

	second.Answer, second.Status = "600 EUR: the flight is over 3,500 km.", "done"
	putTurn(second)
	tick()
	put(graphrag.Conversation{ID: "c1", Title: "Denied boarding from Delhi"})
	c, turns, err = f.s.Conversation(f.ctx, "c1")
	if err != nil || len(turns) != 2 || turns[1].Answer != second.Answer || turns[1].Status != "done" {
		t.Fatalf("after replacing turn t2: %d turns, %v; want 2 with the new answer", len(turns), err)
	}
	if c.Title != "Denied boarding from Delhi" || !c.CreatedAt.Equal(created) {
		t.Errorf("renamed conversation = title %q created %v, want new title and created %v", c.Title, c.CreatedAt, created)
	}
	if c.UpdatedAt.Before(c.CreatedAt) {
		t.Errorf("UpdatedAt %v before CreatedAt %v", c.UpdatedAt, c.CreatedAt)
	}
	tick()
	putTurn(graphrag.Turn{ID: "t3", ConversationID: "c2", Ordinal: 1, Question: "Meal limit?", Status: "running"})
	order("c2", "c1")

	_, _, err = f.s.Conversation(f.ctx, "missing")
	wantErr(t, "Conversation(missing)", err, graphrag.ErrNotFound)
	err = f.s.PutTurn(f.ctx, graphrag.Turn{ID: "t9", ConversationID: "missing", Ordinal: 1})
	wantErr(t, "PutTurn into a missing conversation", err, graphrag.ErrNotFound)

	if err := f.s.DeleteConversation(f.ctx, "c1"); err != nil {
		t.Fatalf("DeleteConversation(c1): %v", err)
	}
	_, _, err = f.s.Conversation(f.ctx, "c1")
	wantErr(t, "Conversation after delete", err, graphrag.ErrNotFound)
	order("c2")
	if err := f.s.DeleteConversation(f.ctx, "c1"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("DeleteConversation again: %v; want nil or ErrNotFound", err)
	}
}
