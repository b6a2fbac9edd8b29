package graphrag

import (
	"context"
	"errors"
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
	QueueSize          int   // documents waiting at most (default 1024)
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
	def(&o.QueueSize, 1024)
	if o.MaxBytes <= 0 {
		o.MaxBytes = 25 << 20
	}
	return o
}

// ErrQueueFull: too many documents are waiting; the upload should be tried again later.
var ErrQueueFull = errors.New("ingest queue is full")

// Ingester runs ingest jobs: parse, chunk, embed, extract, each step recorded in the store so a job
// resumes where it stopped after a crash. One job at a time per document; Delete waits for it.
type Ingester struct {
	store   Store
	embed   Embedder
	extract ChunkExtractor
	opt     IngestOptions
	logger  *slog.Logger
	bus     *bus
	queue   chan string

	mu      sync.Mutex
	locks   map[string]*sync.Mutex
	running map[string]context.CancelFunc
	queued  map[string]bool
}

// NewIngester returns an Ingester; call Run to start its workers.
func NewIngester(store Store, embed Embedder, extract ChunkExtractor, opt IngestOptions, logger *slog.Logger) *Ingester {
	opt = opt.withDefaults()
	return &Ingester{
		store: store, embed: embed, extract: extract, opt: opt, logger: logger, bus: newBus(),
		queue: make(chan string, opt.QueueSize), locks: map[string]*sync.Mutex{},
		running: map[string]context.CancelFunc{}, queued: map[string]bool{},
	}
}

// Subscribe returns a channel of progress snapshots and a function that ends the subscription.
func (in *Ingester) Subscribe() (<-chan Progress, func()) { return in.bus.subscribe() }

// Submit stores a file and queues its job, returning at once. The same bytes uploaded again return the
// existing document with duplicate=true and change nothing; a document whose job failed is queued again,
// and one whose job was interrupted is resumed. Reading more than MaxBytes fails with parse.ErrTooLarge.
func (in *Ingester) Submit(ctx context.Context, name string, r io.Reader) (doc Document, duplicate bool, err error) {
	name = filepath.Base(name)
	src, err := io.ReadAll(io.LimitReader(r, in.opt.MaxBytes+1))
	if err != nil {
		return Document{}, false, fmt.Errorf("graphrag: read %s: %w", name, err)
	}
	if int64(len(src)) > in.opt.MaxBytes {
		return Document{}, false, fmt.Errorf("graphrag: %s: %w: larger than %d MiB", name, parse.ErrTooLarge, in.opt.MaxBytes>>20)
	}
	hash := ContentHash(src)
	now := time.Now().UTC()
	doc, created, err := in.store.PutDocument(ctx, Document{
		ID: DocumentID(hash), Name: name, Title: name, Hash: hash, Size: int64(len(src)),
		Status: StatusQueued, CreatedAt: now, UpdatedAt: now,
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
	if err := in.enqueue(doc.ID); err != nil {
		return doc, false, err
	}
	in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: doc.Status})
	return doc, false, nil
}

func (in *Ingester) enqueue(id string) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.queued[id] || in.running[id] != nil {
		return nil
	}
	select {
	case in.queue <- id:
		in.queued[id] = true
		return nil
	default:
		return ErrQueueFull
	}
}

// Run resumes every unfinished job found in the store and processes queued jobs until ctx ends.
// Jobs interrupted by ctx keep their recorded step and resume on the next Run.
func (in *Ingester) Run(ctx context.Context) error {
	docs, err := in.store.Documents(ctx)
	if err != nil {
		return fmt.Errorf("graphrag: list unfinished jobs: %w", err)
	}
	for _, d := range docs {
		if !d.Status.Finished() {
			in.logger.Info("resuming ingest", "doc", d.ID, "name", d.Name, "status", d.Status)
			if err := in.enqueue(d.ID); err != nil {
				in.logger.Warn("resume ingest", "doc", d.ID, "err", err)
			}
		}
	}
	var wg sync.WaitGroup
	for range in.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case id := <-in.queue:
					in.process(ctx, id)
				}
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
