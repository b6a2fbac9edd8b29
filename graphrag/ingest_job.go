package graphrag

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hopwise/hopwise/graphrag/chunk"
	"github.com/hopwise/hopwise/graphrag/parse"
)

// process runs or resumes one document's job, holding its lease (ingest_lease.go). Each step starts from
// what the store has recorded, so a process killed at any point loses at most the step in flight, and
// another process sharing the store resumes it once the lease has run out.
func (in *Ingester) process(ctx context.Context, id string) {
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	in.mu.Lock()
	delete(in.queued, id)
	in.running[id] = cancel
	lock := in.lockFor(id)
	in.mu.Unlock()
	defer func() {
		in.mu.Lock()
		delete(in.running, id)
		in.mu.Unlock()
	}()
	lock.Lock()
	defer lock.Unlock()

	// One process at a time works on a document: the others leave it to the one holding its job.
	release, held, err := in.holdJob(jobCtx, id, cancel)
	if err != nil {
		in.logger.Warn("ingest: hold the job; it is tried again later", "doc", id, "err", err)
		return
	}
	if !held {
		in.logger.Info("ingest: another process works on this document", "doc", id)
		return
	}
	defer release()
	doc, err := in.store.Document(jobCtx, id)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			in.logger.Error("ingest: read document", "doc", id, "err", err)
		}
		return
	}
	if doc.Status.Finished() {
		return
	}
	err = in.run(jobCtx, doc)
	switch {
	case err == nil:
		in.logger.Info("ingested", "doc", id, "name", doc.Name)
	case jobCtx.Err() != nil:
		in.logger.Info("ingest interrupted; it resumes on the next start", "doc", id, "name", doc.Name)
	default:
		in.logger.Warn("ingest failed", "doc", id, "name", doc.Name, "err", err)
		reason := err.Error()
		serr := in.storeWrite(context.WithoutCancel(ctx), "record failure", id, func(ctx context.Context) error {
			return in.store.SetDocumentStatus(ctx, id, StatusFailed, reason, DocumentMeta{})
		})
		if serr != nil {
			in.logger.Error("ingest: record failure", "doc", id, "err", serr)
		}
		in.bus.publish(Progress{DocID: id, Name: doc.Name, Status: StatusFailed, Error: reason})
	}
}

func (in *Ingester) run(ctx context.Context, doc Document) error {
	chunks, err := in.store.DocumentChunks(ctx, doc.ID)
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	if len(chunks) == 0 {
		if chunks, err = in.parse(ctx, &doc); err != nil {
			return err
		}
	}
	if doc.Replaces != "" {
		if chunks, err = in.reuse(ctx, doc, chunks); err != nil {
			return err
		}
	}
	if err := in.embedChunks(ctx, doc, chunks); err != nil {
		return err
	}
	if err := in.extractChunks(ctx, doc, chunks); err != nil {
		return err
	}
	if doc.Replaces != "" {
		return in.swap(ctx, doc, len(chunks))
	}
	if err := in.setStatus(ctx, doc, StatusDone, len(chunks), len(chunks)); err != nil {
		return err
	}
	return nil
}

func (in *Ingester) setStatus(ctx context.Context, doc Document, st DocStatus, done, total int) error {
	err := in.storeWrite(ctx, "record status", doc.ID, func(ctx context.Context) error {
		return in.store.SetDocumentStatus(ctx, doc.ID, st, "", DocumentMeta{})
	})
	if err != nil {
		return fmt.Errorf("record status %s: %w", st, err)
	}
	in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: st, Done: done, Total: total})
	return nil
}

// parse turns the stored source into chunks and stores them.
func (in *Ingester) parse(ctx context.Context, doc *Document) ([]Chunk, error) {
	if err := in.setStatus(ctx, *doc, StatusParsing, 0, 0); err != nil {
		return nil, err
	}
	src, err := in.store.DocumentSource(ctx, doc.ID)
	if err != nil {
		return nil, fmt.Errorf("read source: %w", err)
	}
	parsed, err := parse.Parse(ctx, doc.Name, bytes.NewReader(src), parse.Limits{MaxBytes: in.opt.MaxBytes}, in.logger)
	if err != nil {
		return nil, err
	}
	pieces, err := chunk.Split(ctx, parsed.Title, parsed.Markdown, chunk.Options{MaxTokens: in.opt.MaxTokens, MaxChunks: in.opt.MaxChunks})
	if err != nil {
		return nil, err
	}
	if len(pieces) == 0 {
		return nil, fmt.Errorf("%w: no text found", parse.ErrEmpty)
	}
	chunks := make([]Chunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = Chunk{
			ID: ChunkID(doc.ID, p.Ordinal), DocID: doc.ID, Ordinal: p.Ordinal, Section: p.Section,
			Text: p.Text, Tokens: p.Tokens, Page: parsed.PageAt(p.Start), Status: ChunkPending, DocName: doc.Name, DocTitle: parsed.Title,
		}
	}
	if err := in.storeWrite(ctx, "store chunks", doc.ID, func(ctx context.Context) error { return in.store.PutChunks(ctx, doc.ID, chunks) }); err != nil {
		return nil, fmt.Errorf("store chunks: %w", err)
	}
	doc.Title, doc.Format = parsed.Title, parsed.Format
	err = in.storeWrite(ctx, "record status", doc.ID, func(ctx context.Context) error {
		return in.store.SetDocumentStatus(ctx, doc.ID, StatusEmbedding, "", DocumentMeta{Title: parsed.Title, Format: parsed.Format})
	})
	if err != nil {
		return nil, fmt.Errorf("record status: %w", err)
	}
	return chunks, nil
}

// embedChunks embeds the chunks that have no vector yet, in batches.
func (in *Ingester) embedChunks(ctx context.Context, doc Document, chunks []Chunk) error {
	var todo []Chunk
	for _, c := range chunks {
		if c.Status == ChunkPending {
			todo = append(todo, c)
		}
	}
	total, done := len(chunks), len(chunks)-len(todo)
	if err := in.setStatus(ctx, doc, StatusEmbedding, done, total); err != nil {
		return err
	}
	for start := 0; start < len(todo); start += in.opt.EmbedBatch {
		batch := todo[start:min(start+in.opt.EmbedBatch, len(todo))]
		texts := make([]string, len(batch))
		for i, c := range batch {
			texts[i] = c.Text
		}
		vecs, err := in.embed.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embedding failed: %w", err)
		}
		if len(vecs) != len(batch) {
			return fmt.Errorf("embedding failed: %d vectors for %d passages", len(vecs), len(batch))
		}
		byID := make(map[string][]float32, len(batch))
		for i, c := range batch {
			byID[c.ID] = vecs[i]
		}
		if err := in.storeWrite(ctx, "store embeddings", doc.ID, func(ctx context.Context) error { return in.store.SetEmbeddings(ctx, byID) }); err != nil {
			return fmt.Errorf("store embeddings: %w", err)
		}
		done += len(batch)
		in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: StatusEmbedding, Done: done, Total: total})
	}
	for i := range chunks {
		if chunks[i].Status == ChunkPending {
			chunks[i].Status = ChunkEmbedded
		}
	}
	return nil
}

// extractChunks extracts the graph of every chunk not yet extracted, a few at a time. A chunk whose
// extraction fails twice is recorded as failed with the reason and the document still completes: its text
// stays searchable. Errors of the store or a cancelled context stop the job instead.
func (in *Ingester) extractChunks(ctx context.Context, doc Document, chunks []Chunk) error {
	var todo []Chunk
	for _, c := range chunks {
		if c.Status == ChunkEmbedded {
			c.DocTitle = doc.Title
			todo = append(todo, c)
		}
	}
	total, done := len(chunks), len(chunks)-len(todo)
	if err := in.setStatus(ctx, doc, StatusExtracting, done, total); err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, in.opt.ExtractConcurrency)
	)
	for _, c := range todo {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(c Chunk) {
			defer wg.Done()
			defer func() { <-sem }()
			err := in.extractOne(ctx, c)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			done++
			in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: StatusExtracting, Done: done, Total: total})
		}(c)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func (in *Ingester) extractOne(ctx context.Context, c Chunk) error {
	var x Extraction
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if x, err = in.extract.Extract(ctx, c); err == nil || ctx.Err() != nil {
			break
		}
		in.logger.Warn("extraction failed", "chunk", c.ID, "attempt", attempt+1, "err", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		serr := in.storeWrite(ctx, "record failed chunk", c.DocID, func(ctx context.Context) error {
			return in.store.MarkChunkFailed(ctx, c.ID, "entity extraction failed: "+err.Error())
		})
		if serr != nil {
			return fmt.Errorf("record failed chunk: %w", serr)
		}
		return nil
	}
	if in.opt.Resolver != nil {
		if x, err = in.opt.Resolver.Resolve(ctx, c, x); err != nil {
			return fmt.Errorf("resolve entities: %w", err)
		}
	}
	if err := in.embedFacts(ctx, x.Relations); err != nil {
		return err
	}
	if err := in.putResolved(ctx, c, x); err != nil {
		return fmt.Errorf("store extraction: %w", err)
	}
	return nil
}

// embedFacts sets the vector of every relation's sentence, in one call, so that graph retrieval can
// compare facts with questions; it runs before the extraction is stored, which then writes both at once.
func (in *Ingester) embedFacts(ctx context.Context, rels []Relation) error {
	return embedFactVectors(ctx, in.embed, rels)
}

// embedFactVectors sets the vector of every relation's sentence with embed, in one call.
func embedFactVectors(ctx context.Context, embed Embedder, rels []Relation) error {
	if len(rels) == 0 {
		return nil
	}
	texts := make([]string, len(rels))
	for i, r := range rels {
		texts[i] = FactText(r)
	}
	vecs, err := embed.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embedding facts failed: %w", err)
	}
	if len(vecs) != len(rels) {
		return fmt.Errorf("embedding facts failed: %d vectors for %d facts", len(vecs), len(rels))
	}
	for i := range rels {
		rels[i].Embedding = vecs[i]
	}
	return nil
}
