package graphrag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// ErrBusy: the document to replace is still being ingested.
var ErrBusy = errors.New("the document is still being ingested")

// SubmitReplacing is Submit for a new version of a stored document: the one named by target (an ID or a
// file name, as FindDocument reads it), else the one carrying exactly the upload's file name. The new version is ingested with its chunks
// staged and replaces the old one in one store transaction when complete (Store.ReplaceDocument), so
// questions see one version or the other throughout; passages whose text did not change take the old
// passage's vector and extraction instead of being embedded and extracted again. The same bytes as the
// old version are a duplicate, a name no document carries is a plain Submit, a name several carry is an
// *AmbiguousError, and an old version whose job has not finished is ErrBusy.
func (in *Ingester) SubmitReplacing(ctx context.Context, name, target string, r io.Reader) (doc Document, duplicate bool, err error) {
	name = filepath.Base(name)
	src, err := in.readSource(name, r)
	if err != nil {
		return Document{}, false, err
	}
	old, err := in.toReplace(ctx, name, target)
	switch {
	case errors.Is(err, ErrNotFound):
		return in.submit(ctx, name, src, "")
	case err != nil:
		return Document{}, false, err
	case old.Hash == ContentHash(src):
		return in.submit(ctx, name, src, "")
	case !old.Status.Finished():
		return Document{}, false, fmt.Errorf("graphrag: replace %s: %w: wait until it is done", old.Name, ErrBusy)
	}
	return in.submit(ctx, name, src, old.ID)
}

// toReplace finds the document an upload replaces: target, else the one with the upload's name. A new
// version still being read counts as its old version's job: the old version is then ErrBusy.
func (in *Ingester) toReplace(ctx context.Context, name, target string) (Document, error) {
	if target != "" {
		return FindDocument(ctx, in.store, target)
	}
	named, err := in.store.DocumentsNamed(ctx, name)
	if err != nil {
		return Document{}, fmt.Errorf("graphrag: find documents named %q: %w", name, err)
	}
	var docs []Document
	for _, d := range named {
		if d.Replaces != "" {
			return Document{}, fmt.Errorf("graphrag: replace %s: %w: a new version is being read", name, ErrBusy)
		}
		docs = append(docs, d)
	}
	switch {
	case len(docs) == 0:
		return Document{}, fmt.Errorf("graphrag: no document named %q: %w", name, ErrNotFound)
	case len(docs) > 1:
		return Document{}, &AmbiguousError{Name: name, Matches: docs}
	}
	return docs[0], nil
}

// reuse carries the passages of a staged document whose text the replaced document holds, extracted,
// over from it (Store.ReuseChunks) and returns the chunks as stored after that.
func (in *Ingester) reuse(ctx context.Context, doc Document, chunks []Chunk) ([]Chunk, error) {
	old, err := in.store.DocumentChunks(ctx, doc.Replaces)
	if err != nil {
		return nil, fmt.Errorf("read the replaced document's chunks: %w", err)
	}
	byText := make(map[string]string, len(old))
	for _, c := range old {
		if c.Status == ChunkExtracted {
			byText[ContentHash([]byte(c.Text))] = c.ID
		}
	}
	pairs := map[string]string{}
	for _, c := range chunks {
		if id, ok := byText[ContentHash([]byte(c.Text))]; ok && c.Status == ChunkPending {
			pairs[c.ID] = id
		}
	}
	if len(pairs) == 0 {
		return chunks, nil
	}
	if err := in.storeWrite(ctx, "reuse passages", doc.ID, func(ctx context.Context) error { return in.store.ReuseChunks(ctx, pairs) }); err != nil {
		return nil, fmt.Errorf("reuse unchanged passages: %w", err)
	}
	in.logger.Info("ingest: unchanged passages reused", "doc", doc.ID, "replaces", doc.Replaces, "passages", len(pairs))
	if chunks, err = in.store.DocumentChunks(ctx, doc.ID); err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	return chunks, nil
}

// swap ends a staged document's job: it replaces the old version in one store transaction, after
// stopping any job on the old version, as Delete does.
func (in *Ingester) swap(ctx context.Context, doc Document, total int) error {
	in.mu.Lock()
	if cancel := in.running[doc.Replaces]; cancel != nil {
		cancel()
	}
	lock := in.lockFor(doc.Replaces)
	in.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	if err := in.storeWrite(ctx, "replace the old version", doc.ID, func(ctx context.Context) error { return in.store.ReplaceDocument(ctx, doc.ID) }); err != nil {
		return fmt.Errorf("replace the old version: %w", err)
	}
	in.bus.publish(Progress{DocID: doc.Replaces, Status: StatusDeleted})
	in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: StatusDone, Done: total, Total: total})
	return nil
}
