package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// kill9 kills the process with SIGKILL: nothing of it runs after, no lease is released, no turn stored.
func (p *sharedServe) kill9() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Waits on the shared Neo4j: generous, because on this machine (2 cores, several test runs at once) a
// six-passage document took minutes, but bounded, and each wait longer than slowWait is logged so a
// slowdown shows in the test's output instead of hiding behind the deadline.
const (
	killWait  = 6 * time.Minute  // a job taken over and finished, or a process holding one mid-extraction
	storeCall = 30 * time.Second // one read of the store by the test
	slowWait  = 20 * time.Second
	// killPassages are the long document's: enough that b is seen mid-job on a quiet machine (a passage
	// takes the scripted model 200 ms), few enough that a finishes them in minutes at load 40, where a
	// passage's writes to Neo4j took about 10 s.
	killPassages = 16
)

// hopeless is what a wait's check returns when what it waits for cannot come (a document that failed
// will not recover): the test ends at once with it.
type hopeless struct{ error }

// pollStore calls check every 100 ms until it reports done, and fails the test with what check last saw
// when limit passes. A read of the store that fails (it timed out under load) is logged and read again; a
// check that returns a hopeless error ends the test at once.
func pollStore(t *testing.T, what string, limit time.Duration, check func(ctx context.Context) (done bool, seen string, err error)) {
	t.Helper()
	start := time.Now()
	deadline, nextLog := start.Add(limit), start.Add(30*time.Second)
	var seen string
	var lastErr error
	for {
		ctx, cancel := context.WithTimeout(t.Context(), storeCall)
		done, s, err := check(ctx)
		cancel()
		var stop hopeless
		switch {
		case errors.As(err, &stop):
			t.Fatalf("%s: %v", what, stop.error)
		case err != nil:
			if lastErr == nil {
				t.Logf("%s: reading the store: %v (read again)", what, err)
			}
			lastErr = err
		case done:
			if took := time.Since(start); took > slowWait {
				t.Logf("%s took %s (slow: the machine's load or Neo4j)", what, took.Round(time.Second))
			}
			return
		default:
			seen, lastErr = s, nil
		}
		now := time.Now()
		if now.After(deadline) {
			t.Fatalf("%s: not within %s; last seen: %s; last error: %v", what, limit, seen, lastErr)
		}
		if now.After(nextLog) {
			t.Logf("%s: still waiting after %s: %s", what, now.Sub(start).Round(time.Second), seen)
			nextLog = now.Add(30 * time.Second)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// docRow is a document's state in a line.
func docRow(d graphrag.Document) string {
	return fmt.Sprintf("%s %s %d/%d extracted, %d embedded, %d failed", d.Name, d.Status, d.ChunksExtracted, d.Chunks, d.ChunksEmbedded, d.FailedChunks)
}

// failedDoc is the error of a document whose job failed (a user would see it failed: no wait helps).
func failedDoc(docs []graphrag.Document) error {
	for _, d := range docs {
		if d.Status == graphrag.StatusFailed {
			return fmt.Errorf("%s failed: %s", d.Name, d.Error)
		}
	}
	return nil
}

// TestSharedServeKill9 kills one of two `hopwise serve` on one Neo4j with SIGKILL mid-ingest and, started
// again, mid-answer (issue 19). The jobs of the documents uploaded through the killed one are taken over by
// the other and finished with nothing lost: every passage stored once, embedded and read for names and
// facts. The page reconnecting to the other process shows the answer the killed one was writing as
// interrupted, as far as it got, with a button that asks again, which the other answers.
func TestSharedServeKill9(t *testing.T) {
	uri := sharedNeo4j(t)
	bin := buildHopwise(t)
	start := time.Now()
	phase := func(what string) { t.Logf("%6.1f s  %s", time.Since(start).Seconds(), what) }
	model := webtest.ScriptedModel(t, webtest.Options{ExtractDelay: 200 * time.Millisecond, TokenDelay: 150 * time.Millisecond})
	a, b := startShared(t, bin, uri, model.URL(), "a"), startShared(t, bin, uri, model.URL(), "b")
	phase("both processes serve")
	br := newSharedBrowser(t, a)
	docs := sharedDocs(t, killPassages)
	store := openBackend(t, "neo4j", "")
	t.Cleanup(func() { store.Close() })

	// Mid-ingest: uploaded through b, whose ingester runs the jobs; b is killed while it holds one whose
	// passages are stored and partly read for names and facts.
	br.upload(b, docs)
	phase("uploaded through b")
	pid := fmt.Sprintf("/%d/", b.cmd.Process.Pid)
	var killedAt graphrag.Document
	before := 0 // a's log when b was seen holding killedAt's job
	pollStore(t, "b holding a job mid-extraction", killWait, func(ctx context.Context) (bool, string, error) {
		all, err := store.Documents(ctx)
		if err != nil {
			return false, "", err
		}
		var rows []string
		for _, d := range all {
			rows = append(rows, docRow(d))
			if d.Status != graphrag.StatusExtracting || d.ChunksExtracted == 0 || d.ChunksExtracted >= d.Chunks {
				continue
			}
			l, err := store.Lease(ctx, graphrag.JobLease(d.ID))
			if err != nil {
				return false, "", err
			}
			if l.Held && strings.Contains(l.Holder, pid) {
				killedAt, before = d, len(a.log.String())
				return true, "", nil
			}
			rows = append(rows, fmt.Sprintf("(%s held by %q, not b)", d.Name, l.Holder))
		}
		if err := failedDoc(all); err != nil {
			return false, "", hopeless{err}
		}
		if len(all) == len(docs) && allDone(all) {
			return false, "", hopeless{fmt.Errorf("every document was finished before b was seen mid-extraction: %v", rows)}
		}
		return false, strings.Join(rows, "; "), nil
	})
	b.kill9()
	phase(fmt.Sprintf("b killed at %d of %d passages of %s read", killedAt.ChunksExtracted, killedAt.Chunks, killedAt.Name))

	var after []graphrag.Document
	pollStore(t, "a finishing every document after b was killed", killWait, func(ctx context.Context) (bool, string, error) {
		all, err := store.Documents(ctx)
		if err != nil {
			return false, "", err
		}
		if err := failedDoc(all); err != nil {
			return false, "", hopeless{err}
		}
		var rows []string
		for _, d := range all {
			rows = append(rows, docRow(d))
		}
		after = all
		return len(all) == len(docs) && allDone(all), strings.Join(rows, "; "), nil
	})
	phase("a finished every document")
	// a took the job over: at once as the job of a process gone (HolderGone), or at its next scan when the
	// lease ran out first (on a loaded machine b's renewals may have timed out before the kill, and the
	// jobs went back and forth between the two; nothing is lost either way, as the counts below check).
	tookOver := false
	for _, line := range strings.Split(a.log.String()[before:], "\n") {
		if strings.Contains(line, "doc="+killedAt.ID) && (strings.Contains(line, "taking it over") || strings.Contains(line, "taking over ingest")) {
			tookOver = true
		}
	}
	if !tookOver {
		t.Errorf("a's log does not say it took over the job of %s after b was killed", killedAt.Name)
	}
	total := 0
	for _, d := range after {
		total += d.Chunks
		if d.ChunksExtracted != d.Chunks || d.ChunksEmbedded != d.Chunks || d.FailedChunks != 0 || d.Entities == 0 {
			t.Errorf("%s after the kill: %s, %d entities", d.Name, docRow(d), d.Entities)
		}
		chunks, err := store.DocumentChunks(t.Context(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		ordinals := map[int]bool{}
		for _, c := range chunks {
			ordinals[c.Ordinal] = true
		}
		if len(chunks) != d.Chunks || len(ordinals) != d.Chunks {
			t.Errorf("%s: %d passages stored, %d different, want %d once each", d.Name, len(chunks), len(ordinals), d.Chunks)
		}
		if d.Name == "rail-timetable.md" && d.Chunks < killPassages {
			t.Errorf("rail-timetable.md has %d passages, want one a line at least (%d)", d.Chunks, killPassages)
		}
	}
	if st, err := store.Stats(t.Context()); err != nil || st.Documents != len(docs) || st.Chunks != total || st.Embedded != total {
		t.Errorf("the store after the kill: %+v (%v), want %d documents and %d passages, all embedded", st, err, len(docs), total)
	}

	// Mid-answer: asked and streamed through b (started again), which runs it; b dies; the page's
	// EventSource reconnects with the last event's ID and the load balancer sends it to a.
	b = startShared(t, bin, uri, model.URL(), "b2")
	phase("b started again")
	path := br.ask(b, webtest.DelhiQuestion)
	fromB := br.stream(b.base+path, "")
	seen, ok := fromB.until("answer", "")
	if !ok {
		t.Fatalf("b's stream ended before any answer: %+v", seen)
	}
	lastID := seen[len(seen)-1].id
	b.kill9()
	phase("b killed mid-answer, after event " + lastID)
	fromA := br.stream(a.base+path, lastID)
	rest, ok := fromA.until("done", "")
	if !ok {
		t.Fatalf("a's stream ended without done: %+v", rest)
	}
	done := rest[len(rest)-1].data
	if !strings.Contains(done, "stopped before it was finished") {
		t.Fatalf("the turn of the killed process, as a showed it: %s", done)
	}
	phase("a showed the turn interrupted")
	convID, turnID := turnOf(t, path)
	_, turns, err := store.Conversation(t.Context(), graphrag.AllConversations, convID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range turns {
		if tr.ID == turnID && (tr.Status != agent.TurnInterrupted || tr.Answer == "") {
			t.Errorf("the stored turn of the killed process: status %q, answer %q; want interrupted with the answer as far as it got", tr.Status, tr.Answer)
		}
	}
	retry := regexp.MustCompile(`hx-post="(/chat/retry/[^"]+)"`).FindStringSubmatch(done)
	if retry == nil {
		t.Fatalf("no retry button on the interrupted turn: %s", done)
	}
	again := streamAttr.FindStringSubmatch(br.htmx(a.base+strings.ReplaceAll(retry[1], "&amp;", "&"),
		"application/x-www-form-urlencoded", strings.NewReader("")))
	if again == nil {
		t.Fatal("asking again gave no streaming turn")
	}
	final, ok := br.stream(a.base+strings.ReplaceAll(again[1], "&amp;", "&"), "").until("done", "")
	if !ok || !strings.Contains(final[len(final)-1].data, "600 EUR") {
		t.Fatalf("the answer asked again: %+v", final)
	}
	phase("a answered it again")
}

func allDone(docs []graphrag.Document) bool {
	for _, d := range docs {
		if d.Status != graphrag.StatusDone {
			return false
		}
	}
	return true
}

var streamPath = regexp.MustCompile(`^/chat/stream/([^?]+)\?c=([^&]+)`)

// turnOf is the conversation and turn of a page's stream path (/chat/stream/{turn}?c={conversation}).
func turnOf(t *testing.T, path string) (conversation, turn string) {
	t.Helper()
	m := streamPath.FindStringSubmatch(path)
	if m == nil {
		t.Fatalf("stream path %q is not /chat/stream/{turn}?c={conversation}", path)
	}
	return m[2], m[1]
}
