package handlers

import (
	"context"
	"io"

	"github.com/hopwise/hopwise/graphrag"
)

// Store is what the pages read from the knowledge store, and the conversations they manage.
type Store interface {
	Document(ctx context.Context, id string) (graphrag.Document, error)
	Documents(ctx context.Context) ([]graphrag.Document, error)
	DocumentSource(ctx context.Context, id string) ([]byte, error)
	DocumentChunks(ctx context.Context, docID string) ([]graphrag.Chunk, error)
	Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error)
	Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error)
	SearchEntities(ctx context.Context, query string, k int) ([]graphrag.Entity, error)
	Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]graphrag.Edge, error)
	graphrag.EditStore
	graphrag.ConversationStore
	// RunStore holds the events of the page's answers being written, and the leases of their streams.
	graphrag.RunStore
}

// Ingester takes uploads, deletes documents and reports their progress (graphrag.Ingester).
type Ingester interface {
	Submit(ctx context.Context, name string, r io.Reader) (doc graphrag.Document, duplicate bool, err error)
	SubmitReplacing(ctx context.Context, name, target string, r io.Reader) (doc graphrag.Document, duplicate bool, err error)
	Delete(ctx context.Context, id string) error
	Retry(ctx context.Context, id string) (graphrag.Document, error)
	Subscribe() (<-chan graphrag.Progress, func())
}
