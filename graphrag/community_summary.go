package graphrag

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/llm"
)

//go:embed prompts/community_system.txt
var communitySystem string

// Bounds of one summary prompt: a large community is described by its most related parts.
const (
	summaryEntities   = 30
	summaryFacts      = 40
	summaryPassages   = 4
	summaryPassageLen = 700
	// SummaryMaxTokens bounds the answer of one summary call.
	SummaryMaxTokens = 500
	// DefaultMaxSummaries is how many communities one run summarises unless asked otherwise: the
	// heaviest ones, which cover most of what the documents say.
	DefaultMaxSummaries = 50
)

// communityGraph is what summaries read from the store.
type communityGraph interface {
	CommunityStore
	Entities(ctx context.Context, keys []string) ([]Entity, error)
	Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]Edge, error)
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
}

// Communities keeps the graph's communities current and writes their summaries with a model.
type Communities struct {
	store  communityGraph
	client *llm.Client
	log    *slog.Logger

	mu     sync.Mutex
	lapsed map[string]bool // IDs of communities that took the place of summarized ones, until summarized
}

// NewCommunities returns the communities of store's graph; client writes summaries (nil: Summarize
// refuses).
func NewCommunities(store communityGraph, client *llm.Client, logger *slog.Logger) *Communities {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Communities{store: store, client: client, log: logger, lapsed: map[string]bool{}}
}

// CommunityCounts says how many communities there are and how many have a current summary.
type CommunityCounts struct {
	Communities, Summarized int
	// Lapsed counts the communities without a summary that took the place of summarized ones when
	// documents were added or removed (PlanLapsed writes theirs again).
	Lapsed int
}

// Refresh detects the communities of the graph as it is now and stores them; communities that did not
// change keep their summaries, the others wait for a new one (SummaryPlan). A community that takes the
// place of one that had a summary (Successors) is counted as lapsed until it has one again. It calls no
// model.
func (cs *Communities) Refresh(ctx context.Context) (CommunityCounts, error) {
	before, err := cs.store.Communities(ctx)
	if err != nil {
		return CommunityCounts{}, fmt.Errorf("graphrag: communities: %w", err)
	}
	links, err := cs.store.GraphLinks(ctx)
	if err != nil {
		return CommunityCounts{}, fmt.Errorf("graphrag: communities: %w", err)
	}
	if err := cs.store.PutCommunities(ctx, DetectCommunities(links)); err != nil {
		return CommunityCounts{}, fmt.Errorf("graphrag: communities: %w", err)
	}
	after, err := cs.List(ctx)
	if err != nil {
		return CommunityCounts{}, err
	}
	took := Successors(before, after)
	cs.mu.Lock()
	next := map[string]bool{}
	for _, c := range after {
		if !c.Summarized() && (cs.lapsed[c.ID] || took[c.ID]) {
			next[c.ID] = true
		}
	}
	cs.lapsed = next
	cs.mu.Unlock()
	return cs.counts(after), nil
}

// Successors are the IDs of the communities of after without a summary that took the place of summarized
// ones of before: they share more than half of the members of the smaller of the two. A community of new
// names only, or one that took a few members of a summarized one, is none.
func Successors(before, after []Community) map[string]bool {
	owner := map[string]int{} // member -> the summarized community of before it was in
	for i, c := range before {
		if c.Summarized() {
			for _, k := range c.Entities {
				owner[k] = i
			}
		}
	}
	out := map[string]bool{}
	for _, c := range after {
		if c.Summarized() {
			continue
		}
		shared := map[int]int{}
		for _, k := range c.Entities {
			if i, ok := owner[k]; ok {
				shared[i]++
			}
		}
		for i, n := range shared {
			if 2*n > min(len(before[i].Entities), len(c.Entities)) {
				out[c.ID] = true
				break
			}
		}
	}
	return out
}

// List returns the stored communities, heaviest first.
func (cs *Communities) List(ctx context.Context) ([]Community, error) {
	list, err := cs.store.Communities(ctx)
	if err != nil {
		return nil, fmt.Errorf("graphrag: communities: %w", err)
	}
	return list, nil
}

// Counts counts the stored communities and their summaries.
func (cs *Communities) Counts(ctx context.Context) (CommunityCounts, error) {
	list, err := cs.List(ctx)
	if err != nil {
		return CommunityCounts{}, err
	}
	return cs.counts(list), nil
}

func (cs *Communities) counts(list []Community) CommunityCounts {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := CommunityCounts{Communities: len(list)}
	for _, c := range list {
		switch {
		case c.Summarized():
			n.Summarized++
		case cs.lapsed[c.ID]:
			n.Lapsed++
		}
	}
	return n
}

// SummaryPlan is the work of one summary run, known before any model call: one call per community (more
// only when an answer must be repaired), with its prompt's tokens estimated at four bytes a token and its
// answer's at most SummaryMaxTokens.
type SummaryPlan struct {
	jobs                []summaryJob
	Calls               int // model calls the run makes when every answer is valid
	PromptTokens        int // estimated
	MaxCompletionTokens int // the bound on what the answers may add
	Left                int // communities without a current summary beyond the run's maximum
}

// Tokens is the estimate of the run's prompt and completion tokens together.
func (p SummaryPlan) Tokens() int { return p.PromptTokens + p.MaxCompletionTokens }

type summaryJob struct {
	community Community
	prompt    string
}

// Plan prepares the summaries of the heaviest communities without a current one, at most max of them
// (DefaultMaxSummaries when max <= 0), and estimates their cost. It reads the store and calls no model.
func (cs *Communities) Plan(ctx context.Context, max int) (SummaryPlan, error) {
	return cs.plan(ctx, max, func(Community) bool { return true })
}

// PlanLapsed is Plan for the lapsed communities only: those that took the place of summarized ones when
// documents were added or removed, whose summaries were asked for already.
func (cs *Communities) PlanLapsed(ctx context.Context, max int) (SummaryPlan, error) {
	cs.mu.Lock()
	lapsed := maps.Clone(cs.lapsed)
	cs.mu.Unlock()
	return cs.plan(ctx, max, func(c Community) bool { return lapsed[c.ID] })
}

func (cs *Communities) plan(ctx context.Context, max int, want func(Community) bool) (SummaryPlan, error) {
	if max <= 0 {
		max = DefaultMaxSummaries
	}
	list, err := cs.List(ctx)
	if err != nil {
		return SummaryPlan{}, err
	}
	var p SummaryPlan
	for _, c := range list {
		if c.Summarized() || !want(c) {
			continue
		}
		if len(p.jobs) == max {
			p.Left++
			continue
		}
		prompt, err := cs.prompt(ctx, c)
		if err != nil {
			return SummaryPlan{}, err
		}
		p.jobs = append(p.jobs, summaryJob{community: c, prompt: prompt})
		p.PromptTokens += (len(communitySystem) + len(prompt)) / 4
		p.MaxCompletionTokens += SummaryMaxTokens
	}
	p.Calls = len(p.jobs)
	return p, nil
}

// prompt describes a community with its most related names, its best supported facts and the passages
// its relations come from most.
func (cs *Communities) prompt(ctx context.Context, c Community) (string, error) {
	keys := c.Entities[:min(len(c.Entities), summaryEntities)]
	ents, err := cs.store.Entities(ctx, keys)
	if err != nil {
		return "", fmt.Errorf("graphrag: community %s: %w", c.ID, err)
	}
	edges, err := cs.store.Neighborhood(ctx, keys, 1, MaxHubRelations)
	if err != nil {
		return "", fmt.Errorf("graphrag: community %s: %w", c.ID, err)
	}
	chunks, err := cs.store.Chunks(ctx, c.ChunkIDs[:min(len(c.ChunkIDs), summaryPassages)])
	if err != nil {
		return "", fmt.Errorf("graphrag: community %s: %w", c.ID, err)
	}
	var b strings.Builder
	b.WriteString("Names:\n")
	for _, e := range ents {
		b.WriteString("- " + e.Name)
		if e.Type != "" {
			b.WriteString(" (" + e.Type + ")")
		}
		if e.Description != "" {
			b.WriteString(": " + e.Description)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nFacts:\n")
	rank := map[string]int{}
	for i, id := range c.Relations {
		rank[id] = i + 1
	}
	edges = slices.DeleteFunc(edges, func(e Edge) bool { return rank[e.ID] == 0 })
	slices.SortFunc(edges, func(a, b Edge) int { return rank[a.ID] - rank[b.ID] })
	for _, e := range edges[:min(len(edges), summaryFacts)] {
		b.WriteString("- " + FactSentence(e.Relation) + "\n")
	}
	b.WriteString("\nPassages:\n")
	for i, ch := range chunks {
		fmt.Fprintf(&b, "[%d] from %q:\n%s\n\n", i+1, ch.DocName, clipText(ch.Text, summaryPassageLen))
	}
	return b.String(), nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return strings.ToValidUTF8(s[:cut], "") + " …"
}

// SummaryProgress is how far a summary run is.
type SummaryProgress struct {
	Done, Total int // communities finished (written or failed) of the run's
	Failed      int // communities whose summary could not be written
	Changed     int // communities that changed while their summary was written, so it was not stored
	Calls       int // model calls made so far
	Tokens      int // prompt and completion tokens used so far
	Current     string
}

// communityReport is the summary call's answer.
type communityReport struct {
	Title   string `json:"title" maxLength:"80" minLength:"1"`
	Summary string `json:"summary" maxLength:"1500" minLength:"1"`
}

// Validate refuses an empty report.
func (r communityReport) Validate() error {
	if strings.TrimSpace(r.Title) == "" || strings.TrimSpace(r.Summary) == "" {
		return errors.New("title and summary must not be empty")
	}
	return nil
}

// Summarize writes the plan's summaries one community at a time, each in one model call (with the
// client's deadline and retries), and stores each as soon as it is written; progress is called after each
// community. A summary that fails is counted and the run goes on; the end of ctx stops it with what was
// done stored.
func (cs *Communities) Summarize(ctx context.Context, p SummaryPlan, progress func(SummaryProgress)) (SummaryProgress, error) {
	if cs.client == nil {
		return SummaryProgress{}, errors.New("graphrag: communities: no model to write summaries with")
	}
	meter := llm.NewMeter()
	mctx := llm.WithMeter(ctx, meter)
	st := SummaryProgress{Total: len(p.jobs)}
	report := func() {
		u := meter.Snapshot()
		st.Calls, st.Tokens = u.Calls, u.PromptTokens+u.CompletionTokens
		if progress != nil {
			progress(st)
		}
	}
	for _, j := range p.jobs {
		st.Current = strings.Join(j.community.Entities[:min(3, len(j.community.Entities))], ", ")
		report()
		err := cs.summarizeOne(mctx, j)
		switch {
		case ctx.Err() != nil:
			report()
			return st, fmt.Errorf("graphrag: summaries stopped: %w", context.Cause(ctx))
		case errors.Is(err, ErrNotFound):
			st.Changed++
		case err != nil:
			cs.log.Warn("graphrag: community summary failed", "community", j.community.ID, "err", err)
			st.Failed++
		}
		st.Done++
	}
	st.Current = ""
	report()
	return st, nil
}

func (cs *Communities) summarizeOne(ctx context.Context, j summaryJob) error {
	r, err := llm.Structured[communityReport](ctx, cs.client, llm.Request{
		Purpose:   "community_summary",
		Messages:  []llm.Message{{Role: "system", Content: communitySystem}, {Role: "user", Content: j.prompt}},
		MaxTokens: SummaryMaxTokens,
	})
	if err != nil {
		return err
	}
	c := j.community
	if err := cs.store.SetCommunitySummary(ctx, c.ID, c.Signature, strings.TrimSpace(r.Title), strings.TrimSpace(r.Summary)); err != nil {
		return err
	}
	cs.mu.Lock()
	delete(cs.lapsed, c.ID)
	cs.mu.Unlock()
	return nil
}
