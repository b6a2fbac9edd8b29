// Package llmtest is a scripted OpenAI-compatible HTTP server for tests.
//
// It speaks the real protocol (chat completions, server-sent-event streaming
// with an optional usage chunk, embeddings, model listing), so the code under
// test runs its real client. Chat answers come from matchers, then a FIFO
// queue, then a default; embeddings are deterministic (see Vector).
package llmtest

import (
	"cmp"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a scripted OpenAI-compatible server; safe for concurrent use.
type Server struct {
	srv  *httptest.Server
	done chan struct{} // closed at cleanup: hanging handlers return

	embedDim int
	models   []string
	fallback func(Request) Reply

	mu          sync.Mutex
	matchers    []func(Request) (Reply, bool)
	queue       []Reply
	requests    []Request
	chatCalls   int
	embedCalls  int
	inFlight    int
	maxInFlight int
}

// Option configures a Server.
type Option func(*Server)

// WithEmbedDim sets the embedding dimension (default 64).
func WithEmbedDim(n int) Option { return func(s *Server) { s.embedDim = n } }

// WithDefault sets the reply for chat requests no matcher or queued reply
// answers (default: 500 "llmtest: no scripted reply", so a test sees the gap).
func WithDefault(f func(Request) Reply) Option { return func(s *Server) { s.fallback = f } }

// WithModels sets the ids listed by /v1/models (default "test-model").
func WithModels(ids ...string) Option { return func(s *Server) { s.models = ids } }

// New starts a server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		done:     make(chan struct{}),
		embedDim: 64,
		models:   []string{"test-model"},
		fallback: func(Request) Reply {
			return Reply{Status: http.StatusInternalServerError, ErrorType: "server_error", ErrorMessage: "llmtest: no scripted reply"}
		},
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.done)
		s.srv.Close()
	})
	return s
}

// URL returns the base URL, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Enqueue appends replies for the next chat calls, answered first in, first out.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// Handle adds a matcher. Matchers see every chat and embeddings request, are
// tried in the order added and before the queue; f returns ok=false to pass.
func (s *Server) Handle(f func(req Request) (Reply, bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.matchers = append(s.matchers, f)
}

// Requests returns a copy of every chat and embeddings request, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatCalls returns the number of chat completion requests received.
func (s *Server) ChatCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chatCalls
}

// EmbedCalls returns the number of embeddings requests received.
func (s *Server) EmbedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCalls
}

// MaxInFlight returns the highest number of chat and embeddings requests the
// server was handling at the same time. A request counts from its arrival
// until just before the last write of its answer (or until a hanging
// handler notices the client left).
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// receive parses and records a request and counts it as in flight; the
// returned func marks it finished and may be called more than once.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) (Request, func(), bool) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("llmtest: read body: "+err.Error()))
		return Request{}, nil, false
	}
	req, err := parseRequest(r, body, at)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	if req.IsEmbed() {
		s.embedCalls++
	} else {
		s.chatCalls++
	}
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	// finish runs before the last write of the answer, so a client that
	// has its answer never overlaps the request it made.
	finish := sync.OnceFunc(func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	})
	if err != nil {
		finish()
		writeJSON(w, http.StatusBadRequest, errorBody("llmtest: "+err.Error()))
		return req, nil, false
	}
	return req, finish, true
}

// script picks the reply: matchers, then the queue, then (for chat) the default.
func (s *Server) script(req Request) (Reply, bool) {
	s.mu.Lock()
	matchers := append([]func(Request) (Reply, bool)(nil), s.matchers...)
	s.mu.Unlock()
	for _, m := range matchers {
		if rp, ok := m(req); ok {
			return rp, true
		}
	}
	if req.IsEmbed() {
		return Reply{}, false
	}
	s.mu.Lock()
	if len(s.queue) > 0 {
		rp := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return rp, true
	}
	s.mu.Unlock()
	return s.fallback(req), true
}

// wait sleeps d and reports false when the client or the server went away first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// hang blocks until the client or the server goes away.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// answerError writes rp when it is an error or raw reply and reports whether it did.
func answerError(w http.ResponseWriter, rp Reply, finish func()) bool {
	if rp.Status < 400 && rp.RawBody == "" {
		return false
	}
	finish()
	rp.Status = cmp.Or(rp.Status, http.StatusOK)
	writeError(w, rp)
	return true
}

func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	data := make([]map[string]any, 0, len(s.models))
	for _, id := range s.models {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "llmtest"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func errorBody(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}

func (s *Server) model(req Request) string {
	if strings.TrimSpace(req.Model) != "" {
		return req.Model
	}
	if len(s.models) > 0 {
		return s.models[0]
	}
	return "test-model"
}
