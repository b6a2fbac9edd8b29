package agent_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func scriptNexa(m *model, gradeDelay time.Duration) {
	m.on(taskCondense, func(c call) llmtest.Reply {
		return reply(map[string]string{"question": "In which year did Nexa AI open its Delhi office?"})
	})
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
	m.on(taskGrade, func(c call) llmtest.Reply {
		r := grades(c, "The company history answers it.", "", func(it item) (bool, string) {
			return strings.Contains(it.Text, "Lena Vogt and Arjun Mehta") || strings.Contains(it.Text, "Delhi, opened in 2023"), "company history"
		})
		r.Delay = gradeDelay
		return r
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		if strings.Contains(c.question(), "Delhi") {
			return say(fmt.Sprintf("Nexa AI opened its Delhi office in 2023 [%d].", c.find("Delhi, opened in 2023")))
		}
		return say(fmt.Sprintf("Nexa AI was founded by Lena Vogt and Arjun Mehta [%d].", c.find("Lena Vogt and Arjun Mehta")))
	})
	m.on(taskAudit, func(c call) llmtest.Reply { return audit("fully", true, "") })
}

func TestChatKeepsConversationsWithTheirTraces(t *testing.T) {
	m := newModel(t)
	scriptNexa(m, 0)
	store := demoStore(t)
	chat := agent.NewChat(m.agent(agent.Config{}, nil, nil), store)
	ctx := context.Background()

	conv, err := chat.Start(ctx, graphrag.AllConversations, "", "Who founded Nexa AI?")
	if err != nil {
		t.Fatal(err)
	}
	first, res1, err := chat.Ask(ctx, conv.ID, "Who founded Nexa AI?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.ConversationID != conv.ID || first.Ordinal != 1 || first.Status != agent.TurnDone || !strings.Contains(first.Answer, "Lena Vogt") {
		t.Fatalf("first turn = %+v", first)
	}
	again, err := chat.Start(ctx, graphrag.AllConversations, conv.ID, "When did they open the Delhi office?")
	if err != nil || again.ID != conv.ID {
		t.Fatalf("Start with the conversation's ID = %+v, %v; want the same conversation", again, err)
	}
	second, res2, err := chat.Ask(ctx, conv.ID, "When did they open the Delhi office?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Standalone != "In which year did Nexa AI open its Delhi office?" || res2.Question != "When did they open the Delhi office?" {
		t.Fatalf("question %q condensed to %q", res2.Question, res2.Standalone)
	}
	cp := m.prompts(taskCondense)
	if len(cp) != 1 || !strings.Contains(cp[0], "Who founded Nexa AI?") || !strings.Contains(cp[0], "Lena Vogt and Arjun Mehta") {
		t.Fatalf("condense prompt lacks the earlier exchange: %q", cp)
	}
	if m.count(taskCondense) != 1 {
		t.Errorf("%d condense calls, want one (only for the follow-up)", m.count(taskCondense))
	}
	if !strings.Contains(res2.Answer, "2023") || !strings.HasPrefix(path(res2.Trace)[0], agent.NodeCondense) {
		t.Errorf("answer %q path %v", res2.Answer, path(res2.Trace))
	}

	stored, turns, err := store.Conversation(ctx, graphrag.AllConversations, first.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Title != "Who founded Nexa AI?" || len(turns) != 2 || turns[1].ID != second.ID || turns[1].Status != agent.TurnDone {
		t.Fatalf("stored %+v with turns %+v", stored, turns)
	}
	for i, res := range []agent.Result{res1, res2} {
		trace, err := agent.DecodeTrace(turns[i].Trace)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(path(trace), path(res.Trace)) || trace[len(trace)-1].Type != agent.EventAnswer {
			t.Errorf("turn %d trace %v, want %v ending with the answer", i+1, path(trace), path(res.Trace))
		}
		cites, err := agent.DecodeCitations(turns[i].Citations)
		if err != nil {
			t.Fatal(err)
		}
		if len(cites) == 0 || !reflect.DeepEqual(cites, res.Citations) {
			t.Errorf("turn %d citations %+v, want %+v", i+1, cites, res.Citations)
		}
	}
}

func TestChatRecordsCancelledTurns(t *testing.T) {
	m := newModel(t)
	scriptNexa(m, 10*time.Second)
	store := demoStore(t)
	chat := agent.NewChat(m.agent(agent.Config{}, nil, nil), store)
	ctx, cancel := context.WithCancel(context.Background())
	var turnID string
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for m.count(taskGrade) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	conv, err := chat.Start(ctx, graphrag.AllConversations, "", "Who founded Nexa AI?")
	if err != nil {
		t.Fatal(err)
	}
	turn, _, err := chat.Ask(ctx, conv.ID, "Who founded Nexa AI?", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	turnID = turn.ID
	_, turns, err := store.Conversation(context.Background(), graphrag.AllConversations, turn.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 1 || turns[0].ID != turnID || turns[0].Status != agent.TurnCancelled {
		t.Fatalf("turns = %+v, want the turn stored as cancelled", turns)
	}
	trace, err := agent.DecodeTrace(turns[0].Trace)
	if err != nil || len(trace) == 0 || trace[len(trace)-1].Type != agent.EventError {
		t.Errorf("trace %v err %v: want the steps so far, ending with the error", path(trace), err)
	}
}

func TestChatStartCreatesOnlyNewConversations(t *testing.T) {
	m := newModel(t)
	store := demoStore(t)
	chat := agent.NewChat(m.agent(agent.Config{}, nil, nil), store)
	ctx := context.Background()

	long := "Wie viele Urlaubstage bekommen Mitarbeitende in München, und ändert sich das nach fünf Jahren Betriebszugehörigkeit im Unternehmen?"
	conv, err := chat.Start(ctx, graphrag.AllConversations, "", long)
	if err != nil {
		t.Fatal(err)
	}
	want := "Wie viele Urlaubstage bekommen Mitarbeitende in München, und ändert sich das…"
	if conv.ID == "" || conv.Title != want {
		t.Errorf("new conversation %+v, want an ID and the title %q (cut at a word, counted in runes)", conv, want)
	}
	if _, _, err := store.Conversation(ctx, graphrag.AllConversations, conv.ID); err != nil {
		t.Errorf("the conversation Start returned is not stored: %v", err)
	}

	if _, err := chat.Start(ctx, graphrag.AllConversations, "c-unknown", "Who founded Nexa AI?"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Start with an unknown ID: err = %v, want graphrag.ErrNotFound", err)
	}
	if _, _, err := store.Conversation(ctx, graphrag.AllConversations, "c-unknown"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Start created the unknown conversation: err = %v", err)
	}
	if _, _, err := chat.Ask(ctx, "c-unknown", "Who founded Nexa AI?", nil); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Ask in an unknown conversation: err = %v, want graphrag.ErrNotFound", err)
	}

	// A conversation belongs to the account that started it: another account's scope cannot continue it.
	alice, bob := graphrag.ConversationScope{Owner: "acct-alice"}, graphrag.ConversationScope{Owner: "acct-bob"}
	owned, err := chat.Start(ctx, alice, "", "Who founded Nexa AI?")
	if err != nil || owned.Owner != "acct-alice" {
		t.Fatalf("Start as alice = %+v, %v; want a conversation owned by acct-alice", owned, err)
	}
	if stored, _, err := store.Conversation(ctx, alice, owned.ID); err != nil || stored.Owner != "acct-alice" {
		t.Errorf("alice's conversation as stored = %+v, %v", stored, err)
	}
	if _, err := chat.Start(ctx, bob, owned.ID, "And who else?"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Start as bob in alice's conversation: err = %v, want graphrag.ErrNotFound", err)
	}
	if _, err := chat.Start(ctx, alice, conv.ID, "And who else?"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Start as alice in a conversation without an owner: err = %v, want graphrag.ErrNotFound", err)
	}
	if m.count(taskGenerate)+m.count(taskDecide) != 0 {
		t.Error("Ask in an unknown conversation called the model")
	}
}

func TestDecodeEmpty(t *testing.T) {
	if tr, err := agent.DecodeTrace(nil); tr != nil || err != nil {
		t.Errorf("DecodeTrace(nil) = %v, %v", tr, err)
	}
	if cs, err := agent.DecodeCitations([]byte("")); cs != nil || err != nil {
		t.Errorf("DecodeCitations(empty) = %v, %v", cs, err)
	}
	if _, err := agent.DecodeTrace([]byte("{")); err == nil {
		t.Error("DecodeTrace accepted broken JSON")
	}
}
