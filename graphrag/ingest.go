package graphrag

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/hopwise/hopwise/graphrag/parse"
)

// IngestOptions bound the ingest pipeline.
type IngestOptions struct {
	Workers            int   // documents processed at once (default 2)
	ExtractConcurrency int   // chunks of one document extracted at once (default 4)
	EmbedBatch         int   // chunks per embedding call (default 32)
	MaxBytes           int64 // largest source file (default 25 MiB)
	MaxTokens          int   // chunk size (default 350)
	MaxChunks          int   // chunks per document (default 5000)
	// Resolver rewrites each extraction before it is stored (the edits in force, entity resolution);
	// nil stores extractions as the extractor resolved them.
	Resolver Resolver
	// Lease is how long this process's hold on a job lasts unless renewed (DefaultJobLease when 0): the
	// processes sharing a store take over the jobs of one that died this long after.
	Lease time.Duration
	// WriteRetry bounds how often a job's store write that meets a transient error is made again before
	// the document fails (retry_write.go).
	WriteRetry WriteRetry
}

func (o IngestOptions) withDefaults() IngestOptions {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Workers, 2)
	def(&o.ExtractConcurrency, 4)
	def(&o.EmbedBatch, 32)
	def(&o.MaxTokens, 350)
	def(&o.MaxChunks, 5000)
	if o.MaxBytes <= 0 {
		o.MaxBytes = 25 << 20
	}
	if o.Lease <= 0 {
		o.Lease = DefaultJobLease
	}
	o.WriteRetry = o.WriteRetry.withDefaults()
	return o
}

// Ingester runs ingest jobs: parse, chunk, embed, extract, each step recorded in the store so a job
// resumes where it stopped after a crash. One job at a time per document; Delete waits for it.
//
// Jobs wait in a FIFO of document IDs with no bound: every ID stands for a document the store already holds
// with its source, so the queue grows with the store and never beyond it (tens of bytes per document), and
// no upload is refused or kept waiting because many are queued.
type Ingester struct {
	store   Store
	embed   Embedder
	extract ChunkExtractor
	opt     IngestOptions
	logger  *slog.Logger
	bus     *bus
	holder  string        // this Ingester, as the holder of its jobs' leases
	wake    chan struct{} // a token per job queued, up to one per worker: an idle worker waits for one

	mu      sync.Mutex
	pending []string // IDs in arrival order, each also in queued
	locks   map[string]*sync.Mutex
	running map[string]context.CancelFunc
	queued  map[string]bool
}

// NewIngester returns an Ingester; call Run to start its workers.
func NewIngester(store Store, embed Embedder, extract ChunkExtractor, opt IngestOptions, logger *slog.Logger) *Ingester {
	opt = opt.withDefaults()
	return &Ingester{
		store: store, embed: embed, extract: extract, opt: opt, logger: logger, bus: newBus(), holder: NewHolder("ingest"),
		wake: make(chan struct{}, opt.Workers), locks: map[string]*sync.Mutex{},
		running: map[string]context.CancelFunc{}, queued: map[string]bool{},
	}
}

// Subscribe returns a channel of progress snapshots and a function that ends the subscription. A subscriber
// that falls behind loses the oldest snapshots, final ones included: to wait for a job's end, read the
// document's status from the store as well.
func (in *Ingester) Subscribe() (<-chan Progress, func()) { return in.bus.subscribe() }

// Submit stores a file and queues its job, returning at once. The same bytes uploaded again return the
// existing document with duplicate=true and change nothing; a document whose job failed is queued again,
// and one whose job was interrupted is resumed. Reading more than MaxBytes fails with parse.ErrTooLarge.
func (in *Ingester) Submit(ctx context.Context, name string, r io.Reader) (doc Document, duplicate bool, err error) {
	name = filepath.Base(name)
	src, err := in.readSource(name, r)
	if err != nil {
		return Document{}, false, err
	}
	return in.submit(ctx, name, src, "")
}

// readSource reads an upload, refusing more than MaxBytes with parse.ErrTooLarge.
func (in *Ingester) readSource(name string, r io.Reader) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(r, in.opt.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("graphrag: read %s: %w", name, err)
	}
	if int64(len(src)) > in.opt.MaxBytes {
		return nil, fmt.Errorf("graphrag: %s: %w: larger than %d MiB", name, parse.ErrTooLarge, in.opt.MaxBytes>>20)
	}
	return src, nil
}

// submit stores the document of src, replacing the document replaces names once complete (none when
// empty), and queues its job.
func (in *Ingester) submit(ctx context.Context, name string, src []byte, replaces string) (doc Document, duplicate bool, err error) {
	hash := ContentHash(src)
	now := time.Now().UTC()
	doc, created, err := in.store.PutDocument(ctx, Document{
		ID: DocumentID(hash), Name: name, Title: name, Hash: hash, Size: int64(len(src)),
		Status: StatusQueued, CreatedAt: now, UpdatedAt: now, Replaces: replaces,
	}, src)
	if err != nil {
		return Document{}, false, fmt.Errorf("graphrag: store %s: %w", name, err)
	}
	switch {
	case created:
	case doc.Status == StatusDone:
		in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: doc.Status, Duplicate: true})
		return doc, true, nil
	case doc.Status == StatusFailed:
		if err := in.store.SetDocumentStatus(ctx, doc.ID, StatusQueued, "", DocumentMeta{}); err != nil {
			return Document{}, false, fmt.Errorf("graphrag: requeue %s: %w", name, err)
		}
		doc.Status, doc.Error = StatusQueued, ""
	}
	in.enqueue(doc.ID)
	in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: doc.Status})
	return doc, false, nil
}

// enqueue adds a document's job behind the others unless it is already queued or running.
func (in *Ingester) enqueue(id string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.queued[id] || in.running[id] != nil {
		return
	}
	in.queued[id] = true
	in.pending = append(in.pending, id)
	in.signal()
}

// signal leaves a wake-up token for an idle worker. A full buffer holds one per worker: every idle worker
// will wake and look at the queue anyway.
func (in *Ingester) signal() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued ID, waiting for one when there is none; ok is false once ctx ends. A token
// left by a job another worker took only makes this one look again.
func (in *Ingester) next(ctx context.Context) (id string, ok bool) {
	for ctx.Err() == nil {
		in.mu.Lock()
		if len(in.pending) > 0 {
			id = in.pending[0]
			in.pending[0] = ""
			in.pending = in.pending[1:]
			in.mu.Unlock()
			return id, true
		}
		in.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-in.wake:
		}
	}
	return "", false
}

// Run resumes every unfinished job found in the store and processes queued jobs until ctx ends, taking
// over the jobs of processes sharing the store that died (their leases ran out) as it goes. Jobs
// interrupted by ctx keep their recorded step and resume on the next Run, or in another process.
func (in *Ingester) Run(ctx context.Context) error {
	docs, err := in.store.Documents(ctx)
	if err != nil {
		return fmt.Errorf("graphrag: list unfinished jobs: %w", err)
	}
	for _, d := range docs {
		if !d.Status.Finished() {
			in.logger.Info("resuming ingest", "doc", d.ID, "name", d.Name, "status", d.Status)
			in.enqueue(d.ID)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { in.scanEvery(ctx) })
	for range in.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id, ok := in.next(ctx)
				if !ok {
					return
				}
				in.process(ctx, id)
			}
		}()
	}
	wg.Wait()
	return nil
}

// Delete removes a document and its contribution. A job running on it is cancelled and Delete waits until
// it has stopped, so the delete never races a write of the same document.
func (in *Ingester) Delete(ctx context.Context, id string) error {
	in.mu.Lock()
	if cancel := in.running[id]; cancel != nil {
		cancel()
	}
	lock := in.lockFor(id)
	in.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	if err := in.store.DeleteDocument(ctx, id); err != nil {
		return fmt.Errorf("graphrag: delete %s: %w", id, err)
	}
	in.bus.publish(Progress{DocID: id, Status: StatusDeleted})
	return nil
}

// lockFor returns the per-document lock; in.mu must be held.
func (in *Ingester) lockFor(id string) *sync.Mutex {
	l := in.locks[id]
	if l == nil {
		l = &sync.Mutex{}
		in.locks[id] = l
	}
	return l
}
