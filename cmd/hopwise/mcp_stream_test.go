package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/mcpserver/mcptest"
)

// TestMCPCommandAskStreamsFromServe asks through `hopwise mcp` (stdio) while `hopwise serve` runs on the
// same data directory (issue 19): the web server lists the question while it is answered and streams its
// answer from the events the mcp process stores; the answer it streams is the one the call returns, and
// the call's progress notifications came from the same stored events.
func TestMCPCommandAskStreamsFromServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model, data, env := scriptedSamplesWith(t, bin, webtest.Options{TokenDelay: 40 * time.Millisecond})
	web := startServeIn(t, bin, data, model.URL(), "serve", env...)
	br := newSharedBrowser(t, web)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, cs, progress := mcpStdio(ctx, t, bin, data, model.URL(), env)
	defer cs.Close()
	type outcome struct {
		ans apiv1.Answer
		msg string
		err error
	}
	called := make(chan outcome, 1)
	go func() {
		ans, msg, err := mcptest.Ask(ctx, cs, webtest.DelhiQuestion, "ask-1")
		called <- outcome{ans, msg, err}
	}()

	// The web server lists the question while the mcp process answers it.
	var convID, turnID string
	for deadline := time.Now().Add(time.Minute); turnID == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the web server did not list the MCP question as running within a minute")
		}
		var page apiv1.ConversationPage
		if err := json.Unmarshal([]byte(br.get(web.base+"/api/v1/conversations")), &page); err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Conversations {
			var conv apiv1.Conversation
			if err := json.Unmarshal([]byte(br.get(web.base+"/api/v1/conversations/"+c.ID)), &conv); err != nil {
				t.Fatal(err)
			}
			for _, tr := range conv.Turns {
				if tr.Status == agent.TurnRunning {
					convID, turnID = conv.ID, tr.ID
				}
			}
		}
	}
	evs, ok := br.stream(web.base+"/api/v1/conversations/"+convID+"/turns/"+turnID+"/events", "").until("done", "")
	if !ok || count(evs, "token") == 0 {
		t.Fatalf("the web server's stream of the MCP question: %d tokens, done %v: %+v", count(evs, "token"), ok, evs)
	}
	o := <-called
	if o.err != nil || o.msg != "" || o.ans.TurnID != turnID || o.ans.Status != agent.TurnDone || !strings.Contains(o.ans.Answer, "600 EUR") {
		t.Fatalf("the MCP answer: %+v %q %v (turn streamed %s)", o.ans, o.msg, o.err, turnID)
	}
	var stored []string
	for _, ev := range evs[:len(evs)-1] {
		stored = append(stored, ev.data)
	}
	mcptest.CheckStreamed(t, stored, o.ans, progress)
}
