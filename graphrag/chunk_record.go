package graphrag

import "fmt"

// ChunkStatus is how far one chunk is through embedding and extraction.
type ChunkStatus string

// Chunk statuses. A chunk is searchable once Embedded; Extracted and Failed both end its extraction.
const (
	ChunkPending   ChunkStatus = "pending"
	ChunkEmbedded  ChunkStatus = "embedded"
	ChunkExtracted ChunkStatus = "extracted"
	ChunkFailed    ChunkStatus = "failed"
)

// Chunk is a passage of a document. Text carries the document title and section path as a prefix and is
// what is embedded and full-text indexed.
type Chunk struct {
	ID        string
	DocID     string
	Ordinal   int
	Section   []string
	Text      string
	Tokens    int
	Page      int       // 1-based PDF page, PPTX slide or XLSX sheet the passage starts on; 0: the format has none
	Embedding []float32 // nil until embedded
	Status    ChunkStatus
	Error     string // why extraction failed

	DocName  string // filled on reads that join the document
	DocTitle string
}

// ChunkID is the deterministic ID of the ordinal-th chunk of a document, so re-chunking is idempotent.
func ChunkID(docID string, ordinal int) string { return fmt.Sprintf("%s-%04d", docID, ordinal) }

// ScoredChunk is a chunk found by a search, with its score under that search (higher is better) and its
// 1-based rank.
type ScoredChunk struct {
	Chunk
	Score float64
	Rank  int
}
