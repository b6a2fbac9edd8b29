// Package agent is Hopwise's research loop, a multi-agent Self-RAG: it decides whether a question needs the
// user's documents, retrieves (hybrid search, multi-query, HyDE, graph facts), grades what it found in
// batches while writing a hypothesis of how to answer, generates a cited answer, audits it for grounding and
// usefulness, and asks itself new sub-questions until the answer is supported or a budget runs out; a web
// search fallback (CRAG) covers questions the documents do not. It knows nothing of HTTP or HTML: callers
// receive typed events.
package agent

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/rerank"
	"github.com/hopwise/hopwise/websearch"
)

// Techniques switch the loop's techniques on and off, for ablations in the evaluation.
type Techniques struct {
	Decide      bool // ask whether a question needs the documents (off: search for every question)
	MultiQuery  bool // expansion queries written by the decide call
	HyDE        bool // embed a hypothetical answer passage instead of the query (never for identifiers)
	Graph       bool // graph facts from the entities the queries name
	Grading     bool // grade documents (off: keep everything retrieved)
	Audit       bool // audit answers (off: accept the first answer)
	WebFallback bool // web search when the documents stay silent (needs a Searcher)
	Rerank      bool // rerank fused results (needs a Reranker)
}

// DefaultTechniques is everything on except HyDE, which costs a model call per query and is enabled by
// configuration. Rerank and WebFallback only take effect when New gets a Reranker and a Searcher.
func DefaultTechniques() Techniques {
	return Techniques{Decide: true, MultiQuery: true, Graph: true, Grading: true, Audit: true, WebFallback: true, Rerank: true}
}

// flags pairs each technique's name (for AGENT_SKIP and the evaluation's ablations) with its switch.
func (t *Techniques) flags() []struct {
	name string
	on   *bool
} {
	return []struct {
		name string
		on   *bool
	}{
		{"decide", &t.Decide}, {"graph", &t.Graph}, {"multiquery", &t.MultiQuery}, {"hyde", &t.HyDE},
		{"grading", &t.Grading}, {"audit", &t.Audit}, {"web", &t.WebFallback}, {"rerank", &t.Rerank},
	}
}

// TechniqueNames name the techniques for configuration (AGENT_SKIP) and the evaluation's ablations.
var TechniqueNames = func() []string {
	var names []string
	for _, f := range new(Techniques).flags() {
		names = append(names, f.name)
	}
	return names
}()

// Set switches the technique called name on or off.
func (t *Techniques) Set(name string, on bool) error {
	for _, f := range t.flags() {
		if f.name == strings.ToLower(strings.TrimSpace(name)) {
			*f.on = on
			return nil
		}
	}
	return fmt.Errorf("unknown technique %q; known: %s", name, strings.Join(TechniqueNames, ", "))
}

// Skip switches off each technique of a comma-separated list ("" switches off none).
func (t *Techniques) Skip(list string) error {
	for name := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		if err := t.Set(name, false); err != nil {
			return err
		}
	}
	return nil
}

// Config bounds a run. Zero values take the defaults; a zero Techniques means DefaultTechniques.
type Config struct {
	MaxLoops     int           // retrieval passes (default 3)
	MaxRevisions int           // answer revisions once the passes are spent (default 2; negative: none)
	MaxLLMCalls  int           // chat calls, structured repairs included (default 24)
	MaxTokens    int           // prompt plus completion tokens (default 60000)
	MaxRunTime   time.Duration // wall time (default 3 minutes)
	K            int           // chunks per retrieval pass (default 6)
	Techniques   Techniques
	// Profile picks the loop: "" the full research loop, ProfileLocal the short loop for small local
	// models (local.go), which uses only the Graph, Rerank and MultiQuery switches of Techniques.
	Profile string
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxLoops, 3)
	def(&c.MaxLLMCalls, 24)
	def(&c.MaxTokens, 60000)
	def(&c.K, 6)
	switch {
	case c.MaxRevisions == 0:
		c.MaxRevisions = 2
	case c.MaxRevisions < 0:
		c.MaxRevisions = 0
	}
	if c.MaxRunTime <= 0 {
		c.MaxRunTime = 3 * time.Minute
	}
	if c.Techniques == (Techniques{}) {
		c.Techniques = DefaultTechniques()
	}
	if c.Profile == ProfileLocal {
		c.MaxLoops = min(c.MaxLoops, 2) // a third pass cost more time than it found (docs/benchmarks.md)
	}
	return c
}

// Agent answers questions; it is safe for concurrent runs.
type Agent struct {
	llm       *llm.Client
	retriever *graphrag.Retriever
	web       websearch.Searcher
	rerank    rerank.Reranker
	// collection answers questions about the whole collection from community summaries (nil: never).
	collection CollectionReader
	cfg        Config
	log        *slog.Logger
}

// New returns an Agent. web nil turns the web fallback off and rr nil turns reranking off, whatever the
// Techniques say.
func New(client *llm.Client, retriever *graphrag.Retriever, web websearch.Searcher, rr rerank.Reranker, cfg Config, logger *slog.Logger) *Agent {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	if web == nil {
		cfg.Techniques.WebFallback = false
	}
	if rr == nil {
		cfg.Techniques.Rerank = false
	}
	return &Agent{llm: client, retriever: retriever, web: web, rerank: rr, cfg: cfg, log: logger}
}

// Config returns the effective configuration.
func (a *Agent) Config() Config { return a.cfg }
