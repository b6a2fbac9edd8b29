package llm

import (
	"context"
	"log/slog"
	"math"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Default limits of calls in flight, by endpoint. A local server on loopback (llama.cpp, llama-cpp-python,
// Ollama on this machine) computes one answer at a time: a second call would wait inside the server with
// its deadline and stream-idle clock running, so Hopwise keeps the line itself, where people can see it.
// A hosted API serves many at once and says 429 when it has had enough, which lowers the limit.
const (
	LocalConcurrency       = 1
	LocalEmbedConcurrency  = 2
	HostedConcurrency      = 64
	HostedEmbedConcurrency = 16
)

// DefaultConcurrency is the limit of chat calls in flight for the endpoint at baseURL.
func DefaultConcurrency(baseURL string) int {
	if Loopback(baseURL) {
		return LocalConcurrency
	}
	return HostedConcurrency
}

// DefaultEmbedConcurrency is the limit of embeddings requests in flight for the endpoint at baseURL.
func DefaultEmbedConcurrency(baseURL string) int {
	if Loopback(baseURL) {
		return LocalEmbedConcurrency
	}
	return HostedEmbedConcurrency
}

// Loopback reports an endpoint on this machine: localhost or a loopback address.
func Loopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// A Line is one question's place in the queue for model calls. Calls whose context carries the same Line
// share one share of the slots: when calls must wait, the next slot goes to the line with the fewest calls
// in flight, then to the one served least recently, then to the one waiting longest. A question that makes
// one call is never queued behind all the calls of another question's long loop. Calls without a Line
// (ingestion, the command line) share one line of their own.
type Line struct {
	report func(Place)

	mu      sync.Mutex
	cur     Place
	running bool          // a reporter goroutine delivers cur
	signal  chan struct{} // cur changed; capacity 1
}

// Place is where a Line stands. While Waiting (for the calls of other lines, or for an endpoint's
// Retry-After), Ahead is how many other lines get a call served before it does; when the wait ends, Waiting
// is false and Waited says how long it lasted.
type Place struct {
	Ahead   int
	Waiting bool
	Waited  time.Duration
}

// reportEvery is how often a waiting line hears that it moved up: the start and the end of a wait are
// reported at once, the moves in between at most this often.
const reportEvery = 250 * time.Millisecond

// NewLine returns a Line whose waits are reported to report (which may be nil), one call at a time and in
// order, from a goroutine that lives while the line waits. Only chat calls report; embeddings requests take
// their turns without a word (they are short, and a question makes them beside its chat calls).
func NewLine(report func(Place)) *Line {
	return &Line{report: report, signal: make(chan struct{}, 1)}
}

type lineKey struct{}

// WithLine returns a context whose model calls take their turns in l.
func WithLine(ctx context.Context, l *Line) context.Context {
	return context.WithValue(ctx, lineKey{}, l)
}

func lineFrom(ctx context.Context) *Line {
	l, _ := ctx.Value(lineKey{}).(*Line)
	return l
}

// set records where the line stands now; the reporter delivers it.
func (l *Line) set(p Place) {
	if l == nil || l.report == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p == l.cur {
		return
	}
	l.cur = p
	switch {
	case l.running:
		select {
		case l.signal <- struct{}{}:
		default:
		}
	case p.Waiting:
		l.running = true
		go l.deliver()
	}
}

// deliver reports the line's place until a wait it reported has ended and no new one has begun; a wait that
// ended before it was reported is not reported at all.
func (l *Line) deliver() {
	var last Place
	var lastAt time.Time
	for {
		l.mu.Lock()
		p := l.cur
		if !p.Waiting && !last.Waiting {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		if p != last {
			l.report(p)
			last, lastAt = p, time.Now()
		}
		if p.Waiting {
			<-l.signal
			l.throttle(lastAt)
		}
	}
}

// throttle holds a move up until reportEvery after the last report; the end of a wait goes at once.
func (l *Line) throttle(lastAt time.Time) {
	for {
		l.mu.Lock()
		waiting := l.cur.Waiting
		l.mu.Unlock()
		wait := reportEvery - time.Since(lastAt)
		if !waiting || wait <= 0 {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-l.signal:
		}
		t.Stop()
	}
}

// Slots is the state of one endpoint's calls: the configured maximum in flight, the limit now (lower after
// 429s), the calls in flight, the calls waiting and how long the endpoint asked for no new calls.
type Slots struct {
	Max, Limit, InFlight, Waiting int
	PausedFor                     time.Duration
}

// scheduler hands out the slots of one endpoint: at most limit calls in flight, a fair share for each line
// when calls wait (see Line), and the limit adapting to the endpoint's 429s (AIMD): halved on a 429, at least 1, no new
// call before its Retry-After, then grown by one for every limit calls that succeed, at most max.
type scheduler struct {
	name    string // "chat" or "embeddings", in logs
	max     int
	reports bool // tell lines where they stand
	log     *slog.Logger

	mu       sync.Mutex
	limit    float64
	inFlight int
	waiting  int
	seq      uint64    // slots granted so far
	cutAt    uint64    // seq when the limit was last cut: the 429s of calls granted before do not cut it again
	paused   time.Time // no grants before this (Retry-After)
	wake     *time.Timer
	flows    map[*Line]*flow
	turns    []*flow // lines with calls waiting
}

// flow is one line's calls at one scheduler, from its first call until it has none in flight or waiting.
type flow struct {
	line     *Line
	inFlight int
	last     uint64 // seq of its last slot; 0 for none yet
	queue    []*waiter
	since    time.Time // when the line began waiting
	blocked  time.Time // when it began waiting for other lines' calls (not only for its own); zero: it does not
}

// before reports whether a is served before b: fewer calls in flight, then served less recently, then
// waiting longer.
func (a *flow) before(b *flow) bool {
	switch {
	case a.inFlight != b.inFlight:
		return a.inFlight < b.inFlight
	case a.last != b.last:
		return a.last < b.last
	}
	return a.since.Before(b.since)
}

type waiter struct {
	ready   chan struct{} // closed when granted
	granted bool
	seq     uint64
}

func newScheduler(name string, most int, reports bool, log *slog.Logger) *scheduler {
	most = max(most, 1)
	return &scheduler{name: name, max: most, reports: reports, log: log, limit: float64(most), flows: map[*Line]*flow{}}
}

// slot is a granted call's hold on the scheduler, returned by release.
type slot struct {
	f   *flow
	seq uint64
}

// outcome is what the endpoint said to a call: ok (it answered), overloaded (429, not out of quota) and how
// long it asked to wait.
type outcome struct {
	ok, overloaded bool
	retryAfter     time.Duration
}

// acquire waits for a slot for a call with ctx's Line; a context that ends first leaves the line and frees
// any slot granted meanwhile.
func (s *scheduler) acquire(ctx context.Context) (slot, error) {
	s.mu.Lock()
	f := s.flow(lineFrom(ctx))
	if len(s.turns) == 0 && s.free(time.Now()) {
		seq := s.grant(f)
		s.mu.Unlock()
		return slot{f, seq}, nil
	}
	w := &waiter{ready: make(chan struct{})}
	s.enqueue(f, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return slot{f, w.seq}, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted { // granted as the context ended: the slot goes to the next call
		s.inFlight--
		f.inFlight--
	} else {
		s.leave(f, w)
	}
	s.drop(f)
	s.dispatch()
	return slot{}, ctx.Err()
}

// release returns a slot with what the endpoint said to its call.
func (s *scheduler) release(sl slot, o outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	sl.f.inFlight--
	switch {
	case o.overloaded:
		s.cut(sl.seq, o.retryAfter)
	case o.ok && s.limit < float64(s.max):
		s.limit = math.Min(s.limit+1/s.limit, float64(s.max))
		if s.limit == float64(s.max) {
			s.log.Info("llm: no 429 for a while, back to the most calls at once", "endpoint", s.name, "limit", s.max)
		}
	}
	s.drop(sl.f)
	s.dispatch()
}

// cut halves the limit once per burst of 429s and pauses new calls for retryAfter.
func (s *scheduler) cut(seq uint64, retryAfter time.Duration) {
	if seq > s.cutAt {
		before := s.limit
		s.limit = math.Max(1, math.Floor(s.limit/2))
		s.cutAt = s.seq
		s.log.Warn("llm: rate limited, fewer calls at once", "endpoint", s.name, "limit", int(s.limit), "was", int(before),
			"retry_after", retryAfter)
	}
	if retryAfter <= 0 {
		return
	}
	if until := time.Now().Add(min(retryAfter, maxRetryAfter)); until.After(s.paused) {
		s.paused = until
	}
}

func (s *scheduler) free(now time.Time) bool {
	return s.inFlight < int(s.limit) && !now.Before(s.paused)
}

func (s *scheduler) flow(l *Line) *flow {
	f := s.flows[l]
	if f == nil {
		f = &flow{line: l}
		s.flows[l] = f
	}
	return f
}

// drop forgets a line with nothing in flight or waiting.
func (s *scheduler) drop(f *flow) {
	if f.inFlight == 0 && len(f.queue) == 0 && s.flows[f.line] == f {
		delete(s.flows, f.line)
	}
}

func (s *scheduler) grant(f *flow) uint64 {
	s.inFlight++
	f.inFlight++
	s.seq++
	f.last = s.seq
	return s.seq
}

func (s *scheduler) enqueue(f *flow, w *waiter) {
	s.waiting++
	f.queue = append(f.queue, w)
	if len(f.queue) == 1 {
		f.since = time.Now()
		s.turns = append(s.turns, f)
	}
	s.dispatch()
}

// leave takes a waiter that gave up out of its line.
func (s *scheduler) leave(f *flow, w *waiter) {
	if i := slices.Index(f.queue, w); i >= 0 {
		f.queue = slices.Delete(f.queue, i, i+1)
		s.waiting--
	}
	if len(f.queue) == 0 {
		s.turns = slices.DeleteFunc(s.turns, func(t *flow) bool { return t == f })
		s.ended(f)
	}
}

// dispatch grants the free slots, each to the line whose turn it is, then tells the lines still waiting
// where they stand; while the endpoint's Retry-After lasts, a timer dispatches when it is over.
func (s *scheduler) dispatch() {
	now := time.Now()
	for len(s.turns) > 0 && s.free(now) {
		next := 0
		for i, f := range s.turns {
			if f.before(s.turns[next]) {
				next = i
			}
		}
		f := s.turns[next]
		w := f.queue[0]
		f.queue = f.queue[1:]
		s.waiting--
		if len(f.queue) == 0 {
			s.turns = slices.Delete(s.turns, next, next+1)
			s.ended(f)
		}
		w.seq, w.granted = s.grant(f), true
		close(w.ready)
	}
	if s.reports {
		s.report(now)
	}
	if len(s.turns) > 0 && now.Before(s.paused) && s.wake == nil {
		s.wake = time.AfterFunc(s.paused.Sub(now), func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.wake = nil
			s.dispatch()
		})
	}
}

// report tells the waiting lines where they stand. A line whose calls wait only for its own calls in flight
// (a question's grading batches on a local server that takes one call at a time) is not waiting for the
// model to be free: it hears nothing, or that its wait is over.
func (s *scheduler) report(now time.Time) {
	for _, f := range s.turns {
		ahead := 0
		for _, g := range s.turns {
			if g != f && g.before(f) {
				ahead++
			}
		}
		switch {
		case ahead > 0 || s.inFlight > f.inFlight || now.Before(s.paused):
			if f.blocked.IsZero() {
				f.blocked = now
			}
			f.line.set(Place{Ahead: ahead, Waiting: true})
		case !f.blocked.IsZero():
			s.ended(f)
		}
	}
}

// ended tells a line that waited for others that its wait is over.
func (s *scheduler) ended(f *flow) {
	if s.reports && !f.blocked.IsZero() {
		f.line.set(Place{Waited: time.Since(f.blocked)})
		f.blocked = time.Time{}
	}
}

// slots reports the scheduler's state.
func (s *scheduler) slots() Slots {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Slots{Max: s.max, Limit: int(s.limit), InFlight: s.inFlight, Waiting: s.waiting,
		PausedFor: max(time.Until(s.paused), 0)}
}
