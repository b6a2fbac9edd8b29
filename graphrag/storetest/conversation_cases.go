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
	{"a conversation is seen only by its owner's scope", testConversationOwners},
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
		cs, err := f.s.Conversations(f.ctx, graphrag.AllConversations)
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
	c, turns, err := f.s.Conversation(f.ctx, graphrag.AllConversations, "c1")
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
	c, turns, err = f.s.Conversation(f.ctx, graphrag.AllConversations, "c1")
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

	_, _, err = f.s.Conversation(f.ctx, graphrag.AllConversations, "missing")
	wantErr(t, "Conversation(missing)", err, graphrag.ErrNotFound)
	err = f.s.PutTurn(f.ctx, graphrag.Turn{ID: "t9", ConversationID: "missing", Ordinal: 1})
	wantErr(t, "PutTurn into a missing conversation", err, graphrag.ErrNotFound)

	if err := f.s.DeleteConversation(f.ctx, graphrag.AllConversations, "c1"); err != nil {
		t.Fatalf("DeleteConversation(c1): %v", err)
	}
	_, _, err = f.s.Conversation(f.ctx, graphrag.AllConversations, "c1")
	wantErr(t, "Conversation after delete", err, graphrag.ErrNotFound)
	order("c2")
	if err := f.s.DeleteConversation(f.ctx, graphrag.AllConversations, "c1"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("DeleteConversation again: %v; want nil or ErrNotFound", err)
	}
}

// testConversationOwners: an account's scope lists, opens and deletes its own conversations only; one of
// another account is ErrNotFound as a missing one is, and stays; those without an owner are seen by the
// scopes that ask for them (admins) and by All; a rename never changes the owner.
func testConversationOwners(t *testing.T, f *fixture) {
	alice := graphrag.ConversationScope{Owner: "acct-alice"}
	bob := graphrag.ConversationScope{Owner: "acct-bob"}
	admin := graphrag.ConversationScope{Owner: "acct-admin", Unowned: true}
	for _, c := range []graphrag.Conversation{
		{ID: "ca", Title: "Alice's expenses", Owner: "acct-alice"},
		{ID: "cb", Title: "Bob's salary", Owner: "acct-bob"},
		{ID: "cold", Title: "Before accounts"},
	} {
		if err := f.s.PutConversation(f.ctx, c); err != nil {
			t.Fatalf("PutConversation(%s): %v", c.ID, err)
		}
		tick()
	}
	if err := f.s.PutTurn(f.ctx, graphrag.Turn{ID: "tb", ConversationID: "cb", Ordinal: 1, Question: "What is my salary?",
		Answer: "Secret.", Status: "done"}); err != nil {
		t.Fatalf("PutTurn(tb): %v", err)
	}
	list := func(name string, scope graphrag.ConversationScope, want ...string) {
		t.Helper()
		cs, err := f.s.Conversations(f.ctx, scope)
		if err != nil {
			t.Fatalf("Conversations(%s): %v", name, err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.ID+"@"+c.Owner)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Conversations(%s) = %v, want %v", name, got, want)
		}
	}
	list("alice", alice, "ca@acct-alice")
	list("bob", bob, "cb@acct-bob")
	list("admin", admin, "cold@")
	list("all", graphrag.AllConversations, "cb@acct-bob", "cold@", "ca@acct-alice")
	list("the zero scope", graphrag.ConversationScope{})

	c, turns, err := f.s.Conversation(f.ctx, bob, "cb")
	if err != nil || c.Owner != "acct-bob" || len(turns) != 1 {
		t.Fatalf("Conversation(bob, cb) = %+v, %d turns, %v; want bob's with its turn", c, len(turns), err)
	}
	for _, tc := range []struct {
		name  string
		scope graphrag.ConversationScope
		id    string
	}{{"alice opens bob's", alice, "cb"}, {"admin opens bob's", admin, "cb"}, {"bob opens the unowned", bob, "cold"},
		{"the zero scope opens the unowned", graphrag.ConversationScope{}, "cold"}} {
		_, turns, err := f.s.Conversation(f.ctx, tc.scope, tc.id)
		wantErr(t, "Conversation: "+tc.name, err, graphrag.ErrNotFound)
		if len(turns) != 0 {
			t.Errorf("Conversation: %s returned %d turns", tc.name, len(turns))
		}
	}
	if _, _, err := f.s.Conversation(f.ctx, admin, "cold"); err != nil {
		t.Errorf("Conversation(admin, cold): %v; an admin's scope sees the unowned", err)
	}

	// A rename (or any put) by someone else never takes the conversation over.
	if err := f.s.PutConversation(f.ctx, graphrag.Conversation{ID: "cb", Title: "Renamed", Owner: "acct-alice"}); err != nil {
		t.Fatalf("PutConversation(cb renamed): %v", err)
	}
	if c, _, err := f.s.Conversation(f.ctx, bob, "cb"); err != nil || c.Owner != "acct-bob" || c.Title != "Renamed" {
		t.Errorf("after the rename Conversation(bob, cb) = %+v, %v; want bob's, renamed", c, err)
	}
	list("alice after the rename", alice, "ca@acct-alice")

	// Deleting outside one's scope leaves the conversation and its turns.
	if err := f.s.DeleteConversation(f.ctx, alice, "cb"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Fatalf("DeleteConversation(alice, cb): %v", err)
	}
	if err := f.s.DeleteConversation(f.ctx, bob, "cold"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Fatalf("DeleteConversation(bob, cold): %v", err)
	}
	if _, turns, err := f.s.Conversation(f.ctx, bob, "cb"); err != nil || len(turns) != 1 {
		t.Errorf("bob's conversation after alice deleted it: %d turns, %v; want it kept with its turn", len(turns), err)
	}
	list("admin after bob deleted the unowned", admin, "cold@")
	if err := f.s.DeleteConversation(f.ctx, bob, "cb"); err != nil {
		t.Fatalf("DeleteConversation(bob, cb): %v", err)
	}
	list("bob after deleting his", bob)
	list("all at the end", graphrag.AllConversations, "cold@", "ca@acct-alice")
}
