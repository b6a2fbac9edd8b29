package graphrag

import (
	"context"
	"errors"
	"fmt"
)

// ErrNothingToRetry: the document neither failed nor has failed passages, or its job is still running.
var ErrNothingToRetry = errors.New("nothing to retry")

// ErrUploadAgain: the document failed before its passages were stored and its file's bytes were not kept
// (the embedded store drops a failed document's bytes), so only uploading the file again can retry it.
var ErrUploadAgain = errors.New("the file was not kept after it failed: upload it again")

// Retry queues a document's job again for what failed and nothing else: a failed document resumes from
// the step it failed in (chunks already embedded or extracted are kept), and a finished document's failed
// passages are extracted again. Progress is published as for an upload. A document with nothing failed, or
// whose job has not finished, is ErrNothingToRetry; an unknown one ErrNotFound.
func (in *Ingester) Retry(ctx context.Context, id string) (Document, error) {
	doc, err := in.store.Document(ctx, id)
	if err != nil {
		return Document{}, fmt.Errorf("graphrag: retry %s: %w", id, err)
	}
	switch {
	case doc.Status == StatusFailed && doc.Chunks == 0:
		if _, err := in.store.DocumentSource(ctx, doc.ID); errors.Is(err, ErrNotFound) {
			return Document{}, fmt.Errorf("graphrag: retry %s: %w", doc.Name, ErrUploadAgain)
		} else if err != nil {
			return Document{}, fmt.Errorf("graphrag: retry %s: %w", doc.Name, err)
		}
	case doc.Status == StatusFailed:
	case doc.Status == StatusDone && doc.FailedChunks > 0:
		if _, err := in.store.RetryFailedChunks(ctx, doc.ID); err != nil {
			return Document{}, fmt.Errorf("graphrag: retry %s: %w", doc.Name, err)
		}
	case !doc.Status.Finished():
		return Document{}, fmt.Errorf("graphrag: retry %s: %w: its job is still running", doc.Name, ErrNothingToRetry)
	default:
		return Document{}, fmt.Errorf("graphrag: retry %s: %w: nothing in it failed", doc.Name, ErrNothingToRetry)
	}
	if err := in.store.SetDocumentStatus(ctx, doc.ID, StatusQueued, "", DocumentMeta{}); err != nil {
		return Document{}, fmt.Errorf("graphrag: retry %s: %w", doc.Name, err)
	}
	doc.Status, doc.Error = StatusQueued, ""
	in.enqueue(doc.ID)
	in.bus.publish(Progress{DocID: doc.ID, Name: doc.Name, Status: doc.Status})
	return doc, nil
}
