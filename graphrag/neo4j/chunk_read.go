package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// chunkProjection returns a chunk c without its embedding, joined with its document d.
const chunkProjection = `c {.id, .docId, .ordinal, .page, .section, .text, .tokens, .status, .error,
	docName: d.name, docTitle: d.title}`

func chunkFrom(m map[string]any) graphrag.Chunk {
	return graphrag.Chunk{
		ID:       asString(m["id"]),
		DocID:    asString(m["docId"]),
		Ordinal:  asInt(m["ordinal"]),
		Section:  asStrings(m["section"]),
		Text:     asString(m["text"]),
		Tokens:   asInt(m["tokens"]),
		Page:     asInt(m["page"]),
		Status:   graphrag.ChunkStatus(asString(m["status"])),
		Error:    asString(m["error"]),
		DocName:  asString(m["docName"]),
		DocTitle: asString(m["docTitle"]),
	}
}

// DocumentChunks returns a document's chunks in order, with status (embeddings omitted).
func (s *Store) DocumentChunks(ctx context.Context, docID string) ([]graphrag.Chunk, error) {
	var chunks []graphrag.Chunk
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk)
			RETURN `+chunkProjection+` AS chunk ORDER BY c.ordinal, c.id`, map[string]any{"id": docID})
		if err != nil {
			return err
		}
		chunks = make([]graphrag.Chunk, 0, len(records))
		for _, v := range column(records) {
			chunks = append(chunks, chunkFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: read chunks of %s: %w", docID, err)
	}
	return chunks, nil
}

// Chunks returns the chunks with these IDs (embeddings omitted) in the order asked; unknown IDs are skipped.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	records, err := s.readRecords(ctx, `UNWIND range(0, size($ids) - 1) AS i
		MATCH (c:Chunk {id: $ids[i]})
		OPTIONAL MATCH (d:Document)-[:HAS_CHUNK]->(c)
		RETURN `+chunkProjection+` AS chunk ORDER BY i`, map[string]any{"ids": ids})
	if err != nil {
		return nil, fmt.Errorf("neo4j: read chunks: %w", err)
	}
	chunks := make([]graphrag.Chunk, 0, len(records))
	for _, v := range column(records) {
		chunks = append(chunks, chunkFrom(asMap(v)))
	}
	return chunks, nil
}
