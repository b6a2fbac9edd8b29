// Package apiv1 is version 1 of what Hopwise offers programs: the shapes that its JSON API (/api/v1), its
// MCP tools and its OpenAI-compatible endpoint share, and the read operations behind them, each a thin
// adapter over graphrag's store and retriever. It knows nothing of HTTP or MCP.
package apiv1

import (
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Document is a document as programs see it.
type Document struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Title        string    `json:"title"`
	Format       string    `json:"format,omitempty"`
	Status       string    `json:"status" jsonschema:"queued, parsing, embedding, extracting, done or failed"`
	Error        string    `json:"error,omitempty" jsonschema:"why the document failed, in plain words"`
	Size         int64     `json:"size"`
	Chunks       int       `json:"chunks"`
	Entities     int       `json:"entities"`
	Relations    int       `json:"relations"`
	FailedChunks int       `json:"failed_chunks"`
	CreatedAt    time.Time `json:"created_at"`
}

// NewDocument is the program's view of a stored document.
func NewDocument(d graphrag.Document) Document {
	return Document{ID: d.ID, Name: d.Name, Title: d.Title, Format: d.Format, Status: string(d.Status), Error: d.Error,
		Size: d.Size, Chunks: d.Chunks, Entities: d.Entities, Relations: d.Relations, FailedChunks: d.FailedChunks,
		CreatedAt: d.CreatedAt}
}

// DocumentPage is one page of the documents, newest first.
type DocumentPage struct {
	Documents []Document `json:"documents"`
	Total     int        `json:"total" jsonschema:"documents in all"`
	Offset    int        `json:"offset"`
	// NextOffset is where the next page starts; absent on the last page.
	NextOffset *int `json:"next_offset,omitempty" jsonschema:"where the next page starts; absent on the last page"`
}

// Passage is a chunk of a document: what search finds and what a citation points at.
type Passage struct {
	ID       string  `json:"id"`
	Document string  `json:"document_id"`
	DocName  string  `json:"document_name"`
	Section  string  `json:"section,omitempty" jsonschema:"the headings above the passage, joined with ›"`
	Ordinal  int     `json:"ordinal" jsonschema:"the passage's place in its document, from 0"`
	Text     string  `json:"text"`
	Rank     int     `json:"rank,omitempty" jsonschema:"1-based rank in a search"`
	Score    float64 `json:"score,omitempty" jsonschema:"the search's fused score (higher is better)"`
}

func newPassage(c graphrag.Chunk) Passage {
	return Passage{ID: c.ID, Document: c.DocID, DocName: c.DocName, Section: strings.Join(c.Section, " › "),
		Ordinal: c.Ordinal, Text: c.Text}
}

// Fact is a relation of the graph as a sentence, with the passages it was extracted from.
type Fact struct {
	ID       string         `json:"id"`
	Sentence string         `json:"sentence"`
	Type     string         `json:"type"`
	Source   string         `json:"source"`
	Target   string         `json:"target"`
	Values   map[string]any `json:"values,omitempty" jsonschema:"typed values of the relation, such as distance_km"`
	Hop      int            `json:"hop" jsonschema:"steps from an entity the query names"`
	Passages []string       `json:"passage_ids" jsonschema:"the passages the fact was extracted from"`
}

// SearchResult is what a search found: passages by hybrid search fused with the graph walk, and the graph
// facts the walk reached, as `hopwise search` prints them.
type SearchResult struct {
	Query    string    `json:"query"`
	Passages []Passage `json:"passages"`
	Facts    []Fact    `json:"facts"`
}

// Entity is a node of the graph.
type Entity struct {
	Key  string `json:"key" jsonschema:"the entity's key, which neighbourhood queries start from"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// Relation is an edge of the graph: Source and Target are entity keys.
type Relation struct {
	ID        string         `json:"id"`
	Source    string         `json:"source"`
	Target    string         `json:"target"`
	Type      string         `json:"type"`
	Label     string         `json:"label" jsonschema:"the type in plain words"`
	Values    map[string]any `json:"values,omitempty"`
	Hop       int            `json:"hop" jsonschema:"steps from the nearest start entity"`
	Documents []string       `json:"document_ids,omitempty"`
	Passages  []string       `json:"passage_ids,omitempty"`
}

// Neighbourhood is the part of the graph around some entities.
type Neighbourhood struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
}
