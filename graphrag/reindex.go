package graphrag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// ErrReindexRunning: a re-index is already running, in this process or (*ReindexHeldError) another one
// sharing the store.
var ErrReindexRunning = errors.New("a re-index is already running")

// ReindexOptions say what a re-index does again: embed every passage and fact with the configured
// embedding model, extract the graph of every passage with the configured chat model, or both (the
// embeddings first, so the new facts are embedded in the new space).
type ReindexOptions struct {
	Embeddings bool
	Graph      bool
	Batch      int // passages and facts per embedding call, passages per round of extraction (default 32)
}

// Reindex steps, as ReindexProgress names them.
const (
	StepEmbeddings = "embeddings"
	StepGraph      = "graph"
)

// ReindexProgress is a snapshot of a re-index: the step, what of it is done, and how it ended.
type ReindexProgress struct {
	Step        string
	Done, Total int
	Kept        int    // graph step: passages whose extraction failed again, which keep their graph
	Finished    bool   // the whole re-index ended, well or not
	Error       string // why it stopped, when it did
}

// Reindexer re-embeds and re-extracts a store's passages with the configured models. Everything it has
// done is kept in the store (Store.ReembedState, ReextractState), so a re-index interrupted at any point,
// by a crash or a cancelled context, goes on where it stopped the next time it runs; searches keep
// answering from the old vectors and the old graph until the new ones are complete.
type Reindexer struct {
	store  Store
	embed  Embedder       // the configured embedding model
	space  EmbeddingSpace // its model and dimension
	logger *slog.Logger
	graph  *GraphReindex // what extracts the graph again (WithGraph); nil: only embeddings
	// holder names this Reindexer as the holder of the store's re-index lease, held for leaseTTL at a
	// time while a re-index runs (reindex_lease.go).
	holder   string
	leaseTTL time.Duration

	mu      sync.Mutex
	running bool
	last    ReindexProgress
	bg      sync.WaitGroup // re-indexes started in the background
}

// NewReindexer returns a Reindexer that moves store to space, whose vectors embed gives.
func NewReindexer(store Store, embed Embedder, space EmbeddingSpace, logger *slog.Logger) *Reindexer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Reindexer{store: store, embed: embed, space: space, logger: logger,
		holder: NewHolder("reindex"), leaseTTL: DefaultReindexLease}
}

// Space is the embedding space the Reindexer moves the store to: the configured model's.
func (r *Reindexer) Space() EmbeddingSpace { return r.space }

// Run re-indexes in the caller's goroutine, reporting progress (which may be nil) after every batch.
// Only one re-index runs at a time on a store: a second in this process is ErrReindexRunning, one while
// another process holds the store's re-index lease a *ReindexHeldError (which is ErrReindexRunning too).
func (r *Reindexer) Run(ctx context.Context, opt ReindexOptions, progress func(ReindexProgress)) error {
	held, release, err := r.claim(ctx, opt)
	if err != nil {
		return err
	}
	defer release()
	return r.runClaimed(held, opt, progress)
}

// Start runs a re-index in the background until it ends or ctx does, and returns a channel closed then;
// Progress follows it.
func (r *Reindexer) Start(ctx context.Context, opt ReindexOptions) (<-chan struct{}, error) {
	held, release, err := r.claim(ctx, opt)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		defer close(done)
		defer release()
		if err := r.runClaimed(held, opt, nil); err != nil && ctx.Err() == nil {
			r.logger.Warn("re-index failed", "err", err)
		}
	}()
	return done, nil
}

// claim marks a re-index running, unless one is in this process, and takes the store's re-index lease,
// unless another process holds it; release ends the lease once the re-index has ended. held ends when
// ctx does or another process took the lease over.
func (r *Reindexer) claim(ctx context.Context, opt ReindexOptions) (held context.Context, release func(), err error) {
	if !opt.Embeddings && !opt.Graph {
		return nil, nil, errors.New("graphrag: re-index: nothing to do")
	}
	if opt.Graph && !r.CanReextract() {
		return nil, nil, errors.New("graphrag: re-index: this process has no chat model to extract the graph with")
	}
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		return nil, nil, ErrReindexRunning
	}
	r.running = true
	r.mu.Unlock()
	if held, release, err = r.holdLease(ctx); err != nil {
		r.mu.Lock()
		r.running = false
		r.mu.Unlock()
		return nil, nil, err
	}
	step := StepEmbeddings
	if !opt.Embeddings {
		step = StepGraph
	}
	r.mu.Lock()
	r.last = ReindexProgress{Step: step}
	r.mu.Unlock()
	return held, release, nil
}

// runClaimed runs the re-index claim started and reports its end.
func (r *Reindexer) runClaimed(ctx context.Context, opt ReindexOptions, progress func(ReindexProgress)) error {
	report := func(p ReindexProgress) {
		r.mu.Lock()
		r.last = p
		r.mu.Unlock()
		if progress != nil {
			progress(p)
		}
	}
	err := r.run(ctx, opt, report)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errLeaseLost) {
		err = cause
	}
	r.mu.Lock()
	end := ReindexProgress{Step: r.last.Step, Done: r.last.Done, Total: r.last.Total, Kept: r.last.Kept, Finished: true}
	r.mu.Unlock()
	if err != nil {
		end.Error = err.Error()
	}
	report(end)
	r.mu.Lock()
	r.running = false
	r.mu.Unlock()
	return err
}

// Wait waits until the re-indexes started in the background have stopped.
func (r *Reindexer) Wait() { r.bg.Wait() }

// Progress is the last snapshot of the re-index running in this process, or of the last one that ran;
// running says whether one runs now.
func (r *Reindexer) Progress() (p ReindexProgress, running bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last, r.running
}

func (r *Reindexer) run(ctx context.Context, opt ReindexOptions, report func(ReindexProgress)) error {
	if opt.Batch <= 0 {
		opt.Batch = 32
	}
	if opt.Embeddings {
		if err := r.reembed(ctx, opt.Batch, report); err != nil {
			return err
		}
	}
	if opt.Graph {
		return r.reextract(ctx, opt.Batch, report)
	}
	return nil
}

// commitTries bounds the commits a re-embedding tries: each finds what was embedded meanwhile (new
// uploads) and stages it first.
const commitTries = 5

// reembed stages a vector of the configured model for every passage and fact that has none yet, then
// commits them all at once.
func (r *Reindexer) reembed(ctx context.Context, batch int, report func(ReindexProgress)) error {
	if r.space.Dim <= 0 {
		return errors.New("graphrag: re-embed: the embedding model's dimension is not known")
	}
	st, err := r.store.ReembedState(ctx)
	if err != nil {
		return fmt.Errorf("graphrag: re-embed: %w", err)
	}
	if st.Target != r.space {
		if st.Target.Dim != 0 {
			r.logger.Info("re-embed: another model was being staged; starting over", "was", st.Target, "now", r.space)
		}
		if err := r.store.BeginReembed(ctx, r.space); err != nil {
			return fmt.Errorf("graphrag: re-embed: %w", err)
		}
		st.ChunksStaged, st.RelationsStaged = 0, 0
	}
	done, total := st.ChunksStaged+st.RelationsStaged, st.Chunks+st.Relations
	r.logger.Info("re-embedding", "model", r.space.Model, "dim", r.space.Dim, "done", done, "total", total)
	report(ReindexProgress{Step: StepEmbeddings, Done: done, Total: total})
	// Every round stages at least one item or ends; the cap is the rounds all of them need, twice, plus
	// room for what new uploads add meanwhile.
	rounds := 2*(total/batch+1) + 100
	for tries := 0; rounds > 0; rounds-- {
		chunks, rels, err := r.store.ReembedTodo(ctx, batch)
		if err != nil {
			return fmt.Errorf("graphrag: re-embed: %w", err)
		}
		if len(chunks)+len(rels) == 0 {
			err := r.store.CommitReembed(ctx)
			if errors.Is(err, ErrReembedIncomplete) && tries < commitTries {
				tries++
				continue
			}
			if err != nil {
				return fmt.Errorf("graphrag: re-embed: %w", err)
			}
			report(ReindexProgress{Step: StepEmbeddings, Done: total, Total: total})
			r.logger.Info("re-embedded", "model", r.space.Model, "dim", r.space.Dim, "passages and facts", total)
			return nil
		}
		n, err := r.stage(ctx, chunks, rels)
		if err != nil {
			return fmt.Errorf("graphrag: re-embed: %w", err)
		}
		done += n
		total = max(total, done)
		report(ReindexProgress{Step: StepEmbeddings, Done: done, Total: total})
	}
	return errors.New("graphrag: re-embed: passages keep arriving faster than they are embedded; run it again")
}

// stage embeds one batch of passages and facts with the configured model and stages the vectors.
func (r *Reindexer) stage(ctx context.Context, chunks []Chunk, rels []Relation) (int, error) {
	texts := make([]string, 0, len(chunks)+len(rels))
	for _, c := range chunks {
		texts = append(texts, c.Text)
	}
	for _, rel := range rels {
		texts = append(texts, FactText(rel))
	}
	callCtx, cancel := context.WithTimeout(ctx, embedDeadline)
	defer cancel()
	vecs, err := r.embed.Embed(callCtx, texts)
	if err != nil {
		return 0, fmt.Errorf("embedding failed: %w", err)
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("embedding failed: %d vectors for %d texts", len(vecs), len(texts))
	}
	cv, rv := make(map[string][]float32, len(chunks)), make(map[string][]float32, len(rels))
	for i, c := range chunks {
		cv[c.ID] = vecs[i]
	}
	for i, rel := range rels {
		rv[rel.ID] = vecs[len(chunks)+i]
	}
	for _, v := range vecs {
		if len(v) != r.space.Dim {
			return 0, fmt.Errorf("the embedding model %q gave %d values, not the %d it is configured with: %w",
				r.space.Model, len(v), r.space.Dim, ErrDimension)
		}
	}
	if err := r.store.StageEmbeddings(ctx, cv, rv); err != nil {
		return 0, err
	}
	return len(texts), nil
}

// embedDeadline bounds one embedding call of a re-index beyond the client's own deadline per attempt,
// so that retries cannot hold a batch forever.
const embedDeadline = 10 * time.Minute

// ReindexStatus is what a status page shows of re-indexing: the store's state, the configured model's
// space, whether searches use another model's vectors than it (a re-index is needed), and the re-index
// running in this process, or the last one.
type ReindexStatus struct {
	State      ReembedState
	Configured EmbeddingSpace
	Needed     bool
	Running    bool
	Last       ReindexProgress
	// Graph is the store's re-extraction of the graph; CanReextract says whether this process can run one
	// (it has a chat model), GraphModel is the configured chat model.
	Graph        ReextractState
	CanReextract bool
	GraphModel   string
	// Elsewhere is the store's re-index lease when another process holds it: a re-index runs there, and
	// none can start here until it ends.
	Elsewhere Lease
}

// Status reads the store's re-embedding state with this process's re-index.
func (r *Reindexer) Status(ctx context.Context) (ReindexStatus, error) {
	// Progress first: a re-index reports its end after it committed, so the store read after a finished
	// report shows the commit.
	last, running := r.Progress()
	st, err := r.store.ReembedState(ctx)
	if err != nil {
		return ReindexStatus{}, fmt.Errorf("graphrag: re-index status: %w", err)
	}
	graph, err := r.store.ReextractState(ctx)
	if err != nil {
		return ReindexStatus{}, fmt.Errorf("graphrag: re-index status: %w", err)
	}
	elsewhere, err := r.leaseElsewhere(ctx)
	if err != nil {
		return ReindexStatus{}, fmt.Errorf("graphrag: re-index status: %w", err)
	}
	out := ReindexStatus{State: st, Configured: r.space, Needed: r.space.Dim > 0 && !InSpace(st.Active, r.space),
		Running: running, Last: last, Graph: graph, CanReextract: r.CanReextract(), Elsewhere: elsewhere}
	if r.graph != nil {
		out.GraphModel = r.graph.Model
	}
	return out, nil
}

// Resumable reports whether the store holds a re-embedding to the configured model that did not finish
// and no process runs: a process that starts should run it again.
func (s ReindexStatus) Resumable() bool {
	return !s.Running && !s.Elsewhere.Held && s.State.Target.Dim > 0 && s.State.Target == s.Configured
}

// GraphResumable reports whether the store holds a re-extraction of the graph that did not finish, no
// process runs it and this process can run it: a process that starts should run it again (with the configured chat model;
// what another model staged is dropped).
func (s ReindexStatus) GraphResumable() bool {
	return !s.Running && !s.Elsewhere.Held && s.CanReextract && s.Graph.Model != ""
}
