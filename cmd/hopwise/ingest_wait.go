package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// pollEvery is how often `hopwise ingest` reads from the store the documents it still waits for. Progress
// events are lost when their subscriber falls behind, so a lost one costs at most this long.
const pollEvery = time.Second

// submission is what became of one file or page handed to the ingester.
type submission struct {
	source, docID string
	dup           bool
	err           error
}

// submitAll submits the sources one after another in the background, sending what became of each, and
// closes the channel after the last one or once ctx ends. The channel holds every result, so submitting
// never waits for the reader (whose output may be slow): it costs about what the list of sources does.
func submitAll(ctx context.Context, submit submitFunc, sources []string, maxPage int64) <-chan submission {
	out := make(chan submission, len(sources))
	go func() {
		defer close(out)
		for _, src := range sources {
			if ctx.Err() != nil {
				return
			}
			doc, dup, err := submitSource(ctx, submit, src, maxPage)
			out <- submission{source: src, docID: doc.ID, dup: dup, err: err}
		}
	}()
	return out
}

// ingestWait reports each source of one `hopwise ingest` call as it ends: results on stdout, progress on
// stderr.
type ingestWait struct {
	e      *env
	store  graphrag.DocumentStore
	paths  map[string]string // document ID -> source, for the documents still awaited
	order  []string          // awaited document IDs in submission order, reported ones not yet dropped
	early  map[string]bool   // documents whose end was heard of before their submission was read
	failed int
}

func newIngestWait(e *env, store graphrag.DocumentStore) *ingestWait {
	return &ingestWait{e: e, store: store, paths: map[string]string{}, early: map[string]bool{}}
}

// await reads submissions and progress until every source is reported, and returns how many failed.
// Progress is lossy, final events included, so every tick it also asks the store about the documents
// still awaited: waiting never depends on an event arriving.
func (w *ingestWait) await(ctx context.Context, results <-chan submission, progress <-chan graphrag.Progress, tick time.Duration) (failed int, err error) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for results != nil || len(w.paths) > 0 {
		select {
		case <-ctx.Done():
			fmt.Fprintf(w.e.stdout, "interrupted: %d document(s) will resume on the next start\n", len(w.paths))
			return w.failed, ctx.Err()
		case s, ok := <-results:
			if !ok {
				results = nil
				continue
			}
			err = w.submitted(ctx, s)
		case p, ok := <-progress:
			if !ok {
				progress = nil
				continue
			}
			err = w.progressed(ctx, p)
		case <-ticker.C:
			err = w.poll(ctx)
		}
		if err != nil {
			return w.failed, err
		}
	}
	return w.failed, nil
}

func (w *ingestWait) submitted(ctx context.Context, s submission) error {
	id := s.docID
	switch {
	case s.err != nil:
		w.failed++
		fmt.Fprintf(w.e.stdout, "FAIL  %s: %v\n", s.source, s.err)
	case s.dup:
		fmt.Fprintf(w.e.stdout, "same  %s: already ingested as %s, nothing changed\n", s.source, id)
	case w.paths[id] != "":
		fmt.Fprintf(w.e.stdout, "same  %s: the same content as %s\n", s.source, w.paths[id])
	default:
		w.paths[id] = s.source
		w.order = append(w.order, id)
		if w.early[id] {
			delete(w.early, id)
			_, err := w.check(ctx, id)
			return err
		}
	}
	return nil
}

func (w *ingestWait) progressed(ctx context.Context, p graphrag.Progress) error {
	path, awaited := w.paths[p.DocID]
	switch {
	case p.Status.Finished() && awaited:
		_, err := w.check(ctx, p.DocID)
		return err
	case p.Status.Finished():
		w.early[p.DocID] = true // its submission may still be on its way
	case awaited && p.Total > 0:
		fmt.Fprintf(w.e.stderr, "      %s: %s %d/%d\n", path, p.Status, p.Done, p.Total)
	}
	return nil
}

// poll asks the store about the awaited documents in submission order, up to the first one still being
// worked on. Jobs start in submission order, so a poll costs one lookup more than it reports, finds most
// ends whose events were lost as soon as they happen, and all of them once the last job is over.
func (w *ingestWait) poll(ctx context.Context) error {
	for len(w.order) > 0 {
		if _, awaited := w.paths[w.order[0]]; awaited {
			ended, err := w.check(ctx, w.order[0])
			if err != nil || !ended {
				return err
			}
		}
		w.order = w.order[1:]
	}
	return nil
}

// check reads an awaited document from the store and reports it if its job has ended. The store, not the
// event, decides: an event may be stale (a failed document submitted again is queued anew).
func (w *ingestWait) check(ctx context.Context, id string) (ended bool, err error) {
	d, err := w.store.Document(ctx, id)
	switch {
	case errors.Is(err, graphrag.ErrNotFound):
		d = graphrag.Document{ID: id, Status: graphrag.StatusDeleted}
	case err != nil:
		return false, err
	case !d.Status.Finished():
		return false, nil
	}
	path := w.paths[id]
	delete(w.paths, id)
	switch d.Status {
	case graphrag.StatusDone:
		note := ""
		if d.FailedChunks > 0 {
			note = fmt.Sprintf(", %d passage(s) without entities (extraction failed)", d.FailedChunks)
		}
		fmt.Fprintf(w.e.stdout, "done  %s: %s, %d chunks, %d entities, %d relations%s\n", path, d.ID, d.Chunks, d.Entities, d.Relations, note)
	case graphrag.StatusDeleted:
		w.failed++
		fmt.Fprintf(w.e.stdout, "FAIL  %s: deleted before it was ingested\n", path)
	default:
		w.failed++
		fmt.Fprintf(w.e.stdout, "FAIL  %s: %s\n", path, d.Error)
	}
	return true, nil
}
