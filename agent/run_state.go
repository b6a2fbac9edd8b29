package agent

import (
	"strings"
	"sync"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/websearch"
)

// source is one piece of evidence: a passage of a document, a graph fact or a web result.
type source struct {
	kind  string // KindChunk, KindFact or KindWeb
	chunk graphrag.Chunk
	fact  graphrag.Fact
	web   websearch.Result
}

// key identifies a source across passes.
func (s source) key() string {
	switch s.kind {
	case KindFact:
		return "f:" + s.fact.ID
	case KindWeb:
		return "w:" + s.web.URL
	default:
		return "c:" + s.chunk.ID
	}
}

// text is what the model reads.
func (s source) text() string {
	switch s.kind {
	case KindFact:
		return s.fact.Sentence
	case KindWeb:
		return s.web.Title + "\n" + s.web.Snippet
	default:
		return s.chunk.Text
	}
}

// origin names where the source comes from, for people and prompts.
func (s source) origin() string {
	switch s.kind {
	case KindFact:
		if len(s.fact.Sources) > 0 {
			return "graph fact from " + docName(s.fact.Sources[0])
		}
		return "graph fact"
	case KindWeb:
		return "web page " + s.web.URL
	default:
		name := docName(s.chunk)
		if len(s.chunk.Section) > 0 {
			name += ", section " + strings.Join(s.chunk.Section, " › ")
		}
		return "document " + name
	}
}

func docName(c graphrag.Chunk) string {
	switch {
	case c.DocName != "":
		return c.DocName
	case c.DocTitle != "":
		return c.DocTitle
	default:
		return c.DocID
	}
}

// state is what a run knows. The question is never rewritten; kept sources, facts and query batches only
// grow, without duplicates.
type state struct {
	question   string   // the standalone question the loop works on
	queries    []string // every query searched, the question first
	batches    [][]string
	hypothesis string
	missing    string
	kept       []source        // useful evidence, in the order it was accepted
	keptKeys   map[string]bool // keys of kept
	loops      int             // retrieval passes graded
	revisions  int
	webTried   bool

	answer      string
	sources     []source        // what the answer was written from, numbered [1]..[n]
	shown       strings.Builder // text streamed since the last answer_reset
	streamed    bool            // tokens of some answer were emitted
	direct      bool
	notFound    bool
	audited     bool
	grounded    string
	unsupported []string
	useful      bool
	critique    string
	attributed  bool     // the model cited nothing; Hopwise matched sources by wording
	unmatched   []string // sentences of an attributed answer that match no source
}

// keep adds sources not kept yet and returns how many were new.
func (st *state) keep(srcs []source) int {
	n := 0
	for _, s := range srcs {
		if st.keptKeys[s.key()] {
			continue
		}
		st.keptKeys[s.key()] = true
		st.kept = append(st.kept, s)
		n++
	}
	return n
}

// addQueries appends the queries not searched yet, as one batch, and returns them.
func (st *state) addQueries(qs []string) []string {
	seen := map[string]bool{}
	for _, q := range st.queries {
		seen[normQuery(q)] = true
	}
	var fresh []string
	for _, q := range qs {
		q = strings.TrimSpace(q)
		if q == "" || seen[normQuery(q)] {
			continue
		}
		seen[normQuery(q)] = true
		fresh = append(fresh, q)
	}
	if len(fresh) > 0 {
		st.queries = append(st.queries, fresh...)
		st.batches = append(st.batches, fresh)
	}
	return fresh
}

func normQuery(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.Trim(q, " ?.!"))), " ")
}

// subQueries are the queries other than the question.
func (st *state) subQueries() []string { return st.queries[1:] }

// approved reports an answer the audit found fully grounded and useful.
func (st *state) approved() bool {
	return st.answer != "" && st.grounded == GroundedFully && st.useful
}

// run is one execution of the loop.
type run struct {
	a      *Agent
	cfg    Config
	in     Input
	st     state
	rec    *recorder
	meter  *llm.Meter
	start  time.Time
	rounds int
	// queued is the time spent in line for the model, waitStart when the wait now going on began; deadline
	// ends the run (startClock); over is set when the run has returned.
	queued    time.Duration
	waitStart time.Time
	deadline  *time.Timer
	over      bool
	// mu guards rounds and the clock's fields for nodes that count from several goroutines.
	mu sync.Mutex
}

func (r *run) started(node, summary string) {
	r.rec.send(Event{Type: EventNodeStarted, Node: node, Summary: summary})
}

func (r *run) finished(node, summary string) {
	r.rec.send(Event{Type: EventNodeFinished, Node: node, Summary: summary})
}

// round counts one sequential step of model calls.
func (r *run) round() {
	r.mu.Lock()
	r.rounds++
	r.mu.Unlock()
}

func (r *run) usage() Usage {
	u := r.meter.Snapshot()
	r.mu.Lock()
	defer r.mu.Unlock()
	return Usage{Calls: u.Calls, Rounds: r.rounds, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		Elapsed: time.Since(r.start), Queued: r.queued}
}
