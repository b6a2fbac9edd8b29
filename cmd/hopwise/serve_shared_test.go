package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Several `hopwise serve` on one Neo4j, behind a load balancer without sticky sessions (issue 19): any of
// them streams an answer or a document's progress whichever one was asked. Each test runs two real
// processes on the Neo4j of NEO4J_URI (wiped first).

// sharedLease is the processes' HOPWISE_LEASE.
const sharedLease = 5 * time.Second

// sharedServe is one of the processes.
type sharedServe struct {
	name, base string
	cmd        *exec.Cmd
	done       chan struct{}
	log        *lockedBuffer
}

// sharedNeo4j skips without NEO4J_URI, holds the test Neo4j for the test and wipes it.
func sharedNeo4j(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Skip("NEO4J_URI is not set: the processes share a Neo4j (make neo4j, then NEO4J_URI=bolt://127.0.0.1:7687)")
	}
	graphragtest.LockNeo4jFor(t) // other packages' tests wipe it too
	if err := graphragtest.WipeNeo4j(t.Context(), uri); err != nil {
		t.Fatal(err)
	}
	return uri
}

// startShared starts one of the processes, with entity resolution on (the default, whatever the caller's
// environment says).
func startShared(t *testing.T, bin, uri, modelURL, name string) *sharedServe {
	t.Helper()
	return startServeIn(t, bin, t.TempDir(), modelURL, name, "NEO4J_URI="+uri, "EMBED_DIM=256", "LLM_MODEL=test-model",
		"HOPWISE_LOG_LEVEL=info", "HOPWISE_SECRET=the-same-secret-on-every-process", "HOPWISE_LEASE="+sharedLease.String(),
		"ENTITY_RESOLUTION=true")
}

// startServeIn starts `hopwise serve` on dataDir with env beside hopwiseCmd's, and waits until it serves.
func startServeIn(t *testing.T, bin, dataDir, modelURL, name string, env ...string) *sharedServe {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &sharedServe{name: name, base: "http://" + addr, done: make(chan struct{}), log: &lockedBuffer{}}
	p.cmd = hopwiseCmd(context.Background(), bin, dataDir, modelURL, "serve", "--addr", addr)
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("hopwise serve %s:\n%s", p.name, p.log.String())
		}
	})
	// The first process on a wiped database creates its schema before it serves: on a loaded machine with a
	// cold Neo4j that took more than waitHealthy's 30 s.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if resp, err := http.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.done:
			t.Fatalf("hopwise serve %s exited before it served:\n%s", name, p.log.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("hopwise serve %s did not answer /healthz within 2 minutes", name)
		}
	}
}

func (p *sharedServe) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// sharedBrowser is one person's browser: its session cookie goes to every process (cookies ignore ports),
// and the CSRF token one process derived from it holds for all (they share HOPWISE_SECRET).
type sharedBrowser struct {
	t      *testing.T
	client *http.Client
	token  string
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func newSharedBrowser(t *testing.T, p *sharedServe) *sharedBrowser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &sharedBrowser{t: t, client: &http.Client{Jar: jar}}
	body := b.get(p.base + "/")
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on %s/", p.base)
	}
	b.token = m[1]
	return b
}

func (b *sharedBrowser) get(u string) string {
	b.t.Helper()
	resp, err := b.client.Get(u)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	return string(body)
}

// htmx posts as the page's scripts do.
func (b *sharedBrowser) htmx(u, contentType string, body io.Reader) string {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", b.token)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("POST %s: %d %s", u, resp.StatusCode, out)
	}
	return string(out)
}

var streamAttr = regexp.MustCompile(`sse-connect="([^"]+)"`)

// ask asks through p as the chat page does and returns the path its answer streams from.
func (b *sharedBrowser) ask(p *sharedServe, question string) string {
	b.t.Helper()
	html := b.htmx(p.base+"/chat/ask", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"question": {question}}.Encode()))
	m := streamAttr.FindStringSubmatch(html)
	if m == nil {
		b.t.Fatalf("no streaming turn in %s", html)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// upload sends files through p as the documents page does.
func (b *sharedBrowser) upload(p *sharedServe, files map[string]string) {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for name, content := range files {
		fw, err := w.CreateFormFile("files", name)
		if err != nil {
			b.t.Fatal(err)
		}
		fw.Write([]byte(content))
	}
	w.Close()
	b.htmx(p.base+"/documents", w.FormDataContentType(), &body)
}

// sseEvent is one server-sent event.
type sseEvent struct{ name, id, data string }

// sseStream is an open event stream.
type sseStream struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

func (b *sharedBrowser) stream(u, lastEventID string) *sseStream {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		cancel()
		b.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		b.t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	s := &sseStream{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	b.t.Cleanup(s.close)
	return s
}

func (s *sseStream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// next reads the next event; ok is false at the end of the stream.
func (s *sseStream) next() (ev sseEvent, ok bool) {
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return sseEvent{}, false
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.name != "" {
				ev.data = strings.Join(data, "\n")
				return ev, true
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "data:":
			data = append(data, "")
		}
	}
}

// until reads events until one named name whose data contains text (any data when empty); the events
// read are returned with ok false when the stream ended first.
func (s *sseStream) until(name, text string) (events []sseEvent, ok bool) {
	for {
		ev, more := s.next()
		if !more {
			return events, false
		}
		events = append(events, ev)
		if ev.name == name && strings.Contains(ev.data, text) {
			return events, true
		}
	}
}

func count(events []sseEvent, name string) int {
	n := 0
	for _, e := range events {
		if e.name == name {
			n++
		}
	}
	return n
}

// manyPassages is a document of n sections, each its own passage, so its job takes a while.
func manyPassages(n int) string {
	var b strings.Builder
	b.WriteString("# Regional rail timetable\n\n")
	for i := range n {
		fmt.Fprintf(&b, "## Line R%d\n\nLine R%d runs from Station %d to Harbour %d every %d minutes. "+
			"The operator of line R%d is Company %d, which bought it in %d.\n\n", i, i, i, i, 10+i%20, i, i%7, 1990+i)
		b.WriteString(strings.Repeat(fmt.Sprintf("Trains on line R%d stop at every station between the two ends. ", i), 15))
		b.WriteString("\n\n")
	}
	return b.String()
}

// sharedDocs are the documents the tests upload: a long one (manyPassages(n)) and two of the samples
// that answer webtest.DelhiQuestion.
func sharedDocs(t *testing.T, n int) map[string]string {
	t.Helper()
	docs := map[string]string{"rail-timetable.md": manyPassages(n)}
	for _, name := range []string{"flight-compensation-eu-vs-us.md", "munich-city-distances.md"} {
		src, err := os.ReadFile(demoDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(src)
	}
	return docs
}

// TestSharedServeUploadAndAsk uploads through one process and watches the progress through the other, and
// asks through one and streams the answer from the other (which starts it), while the first follows it too.
func TestSharedServeUploadAndAsk(t *testing.T) {
	uri := sharedNeo4j(t)
	bin := buildHopwise(t)
	model := webtest.ScriptedModel(t, webtest.Options{ExtractDelay: 300 * time.Millisecond, TokenDelay: 40 * time.Millisecond})
	a, b := startShared(t, bin, uri, model.URL(), "a"), startShared(t, bin, uri, model.URL(), "b")
	br := newSharedBrowser(t, a)

	// Uploaded through a, whose ingester runs the jobs; b's documents page shows their progress and end.
	docs := sharedDocs(t, 40)
	br.upload(a, docs)
	events, ok := br.stream(b.base+"/documents/events", "").until("idle", "")
	if !ok {
		t.Fatalf("b's progress stream ended without idle after %d events", len(events))
	}
	var steps []string
	ready := map[string]bool{}
	for _, ev := range events {
		if !strings.HasPrefix(ev.name, "doc-") {
			continue
		}
		for _, step := range []string{"Waiting to start", "Reading the file", "Indexing passages", "Finding names and facts"} {
			if strings.Contains(ev.data, step) && strings.Contains(ev.data, "rail-timetable") {
				steps = append(steps, step)
			}
		}
		for name := range docs {
			if strings.Contains(ev.data, name) && strings.Contains(ev.data, "Ready") {
				ready[name] = true
			}
		}
	}
	t.Logf("b showed the long document's job as: %v", steps)
	if len(steps) < 2 {
		t.Errorf("b showed %d rows of the job a ran before its end, want its progress: %+v", len(steps), events)
	}
	for name := range docs {
		if !ready[name] {
			t.Errorf("b never showed %s ready", name)
		}
	}

	// Asked through a, streamed from b: b starts the run; a's stream of the same turn (a second tab, or the
	// load balancer's next pick) follows it from the store.
	path := br.ask(a, webtest.DelhiQuestion)
	fromB := br.stream(b.base+path, "")
	first, ok := fromB.until("answer", "")
	if !ok {
		t.Fatalf("b's stream ended before any answer: %+v", first)
	}
	fromA := br.stream(a.base+path, "")
	restB, okB := fromB.until("done", "")
	restA, okA := fromA.until("done", "")
	if !okB || !okA {
		t.Fatalf("streams ended without done: b %v, a %v", okB, okA)
	}
	for who, evs := range map[string][]sseEvent{"b": append(first, restB...), "a": restA} {
		done := evs[len(evs)-1].data
		if !strings.Contains(done, "600 EUR") || strings.Contains(done, "sse-connect") {
			t.Errorf("%s's final turn: %s", who, done)
		}
		if count(evs, "step") < 3 || count(evs, "answer") == 0 {
			t.Errorf("%s streamed %d steps and %d answers before done", who, count(evs, "step"), count(evs, "answer"))
		}
	}
}
