package neo4j

import (
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// devScript runs a script of the dev Neo4j launcher (deploy/neo4j-dev).
func devScript(t *testing.T, name string) {
	t.Helper()
	cmd := osexec.Command(filepath.Join("..", "..", "deploy", "neo4j-dev", name))
	cmd.Stderr = t.Output()
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// TestRestartFailsFastAndRecovers stops the dev Neo4j under a live Store: calls must fail fast with
// ErrUnavailable, and the same Store must work again once the server is back, without reopening.
func TestRestartFailsFastAndRecovers(t *testing.T) {
	if os.Getenv("NEO4J_DEV_RESTART") != "1" {
		t.Skip("NEO4J_DEV_RESTART=1 not set: this test stops and restarts the dev Neo4j of deploy/neo4j-dev")
	}
	s := openTest(t, 4)
	doc, _ := putDoc(t, s, "survivor.txt", "kept across the restart")

	restarted := false
	t.Cleanup(func() {
		if !restarted {
			devScript(t, "start.sh")
		}
	})
	devScript(t, "stop.sh")

	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Documents", func(ctx context.Context) error { _, err := s.Documents(ctx); return err }},
		{"PutConversation", func(ctx context.Context) error {
			return s.PutConversation(ctx, graphrag.Conversation{ID: "during-outage"})
		}},
		{"SearchText", func(ctx context.Context) error { _, err := s.SearchText(ctx, "kept", 3); return err }},
		{"Ping", s.Ping},
	}
	for _, c := range calls {
		start := time.Now()
		err := c.call(t.Context())
		if !errors.Is(err, graphrag.ErrUnavailable) {
			t.Errorf("%s while Neo4j is down: got %v, want ErrUnavailable", c.name, err)
		}
		d := time.Since(start)
		if d > 3*time.Second {
			t.Errorf("%s took %v to fail while Neo4j is down", c.name, d)
		}
		t.Logf("%s failed in %v: %v", c.name, d.Round(time.Millisecond), err)
	}

	devScript(t, "start.sh")
	restarted = true
	back := time.Now()
	deadline := back.Add(60 * time.Second)
	for {
		got, err := s.Document(t.Context(), doc.ID)
		if err == nil {
			if got.Chunks != 1 {
				t.Errorf("after the restart the document has %d chunks, want 1", got.Chunks)
			}
			t.Logf("the same Store answered %v after start.sh returned", time.Since(back).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Store did not recover within 60 s of the restart: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if err := s.PutConversation(t.Context(), graphrag.Conversation{ID: "after-outage", Title: "back"}); err != nil {
		t.Errorf("write after the restart: %v", err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping after the restart: %v", err)
	}
}
