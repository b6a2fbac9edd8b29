// Package graphrag is Hopwise's knowledge layer: documents split into chunks with embeddings, an entity
// graph extracted from those chunks, the Store contract both back ends fulfil, the ingest pipeline that
// fills a Store, and the retrieval primitives the agent reads through.
package graphrag

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// DocStatus is where a document is in its ingest job.
type DocStatus string

// Document statuses, in the order a job moves through them. Failed is final until the same file is
// uploaded again; Done means every chunk is embedded and every chunk's extraction finished (some may
// have failed, counted in FailedChunks).
const (
	StatusQueued     DocStatus = "queued"
	StatusParsing    DocStatus = "parsing"
	StatusEmbedding  DocStatus = "embedding"
	StatusExtracting DocStatus = "extracting"
	StatusDone       DocStatus = "done"
	StatusFailed     DocStatus = "failed"
	// StatusDeleted appears only in progress events: the document is gone.
	StatusDeleted DocStatus = "deleted"
)

// Finished reports whether no job works on a document in this status.
func (s DocStatus) Finished() bool { return s == StatusDone || s == StatusFailed || s == StatusDeleted }

// Document is one ingested file. Its ID is derived from the content hash, so the same bytes uploaded
// twice name the same document.
type Document struct {
	ID     string
	Name   string // file name as uploaded
	Title  string
	Format string
	Hash   string // sha256 of the source bytes, hex
	Size   int64
	Status DocStatus
	Error  string // why it failed, for people
	// Replaces is the ID of the document this one replaces when its job ends (an edited version of the
	// same file); empty otherwise. Until then its chunks are staged (see Store).
	Replaces  string
	CreatedAt time.Time
	UpdatedAt time.Time

	// Counts filled by the store when it reads documents.
	Chunks          int
	ChunksEmbedded  int
	ChunksExtracted int // extracted or failed: extraction is finished for them
	FailedChunks    int
	Entities        int
	Relations       int
}

// ContentHash returns the hex sha256 of b.
func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DocumentID is the ID of a document with the given content hash.
func DocumentID(hash string) string {
	if len(hash) > 16 {
		hash = hash[:16]
	}
	return "d" + hash
}
