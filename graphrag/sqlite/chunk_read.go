package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// chunkQuery selects chunks joined with their document, embeddings left out.
const chunkQuery = `SELECT c.id, c.doc_id, c.ordinal, c.section, c.text, c.tokens, c.status, c.error, d.name, d.title,
	c.page FROM chunks c JOIN documents d ON d.id = c.doc_id`

// DocumentChunks returns a document's chunks in order; an unknown document has none.
func (s *Store) DocumentChunks(ctx context.Context, docID string) ([]graphrag.Chunk, error) {
	rows, err := s.reader.QueryContext(ctx, chunkQuery+` WHERE c.doc_id = ? ORDER BY c.ordinal, c.id`, docID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: chunks of %s: %w", docID, err)
	}
	defer rows.Close()
	var out []graphrag.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: chunks of %s: %w", docID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: chunks of %s: %w", docID, err)
	}
	return out, nil
}

// Chunks returns the chunks with these IDs in the order asked, each once; unknown IDs are skipped.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error) {
	ids = unique(ids)
	found := make(map[string]graphrag.Chunk, len(ids))
	for lo := 0; lo < len(ids); lo += batchSize {
		part := ids[lo:min(lo+batchSize, len(ids))]
		if err := s.readChunks(ctx, part, found); err != nil {
			return nil, fmt.Errorf("sqlite: chunks: %w", err)
		}
	}
	out := make([]graphrag.Chunk, 0, len(found))
	for _, id := range ids {
		if c, ok := found[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *Store) readChunks(ctx context.Context, ids []string, into map[string]graphrag.Chunk) error {
	rows, err := s.reader.QueryContext(ctx, chunkQuery+` WHERE c.id IN (`+placeholders(len(ids))+`)`, stringArgs(ids)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return err
		}
		into[c.ID] = c
	}
	return rows.Err()
}

func scanChunk(row scanner, extra ...any) (graphrag.Chunk, error) {
	var c graphrag.Chunk
	var section, status string
	dest := append([]any{&c.ID, &c.DocID, &c.Ordinal, &section, &c.Text, &c.Tokens, &status, &c.Error,
		&c.DocName, &c.DocTitle, &c.Page}, extra...)
	if err := row.Scan(dest...); err != nil {
		return c, err
	}
	c.Status = graphrag.ChunkStatus(status)
	if err := json.Unmarshal([]byte(section), &c.Section); err != nil {
		return c, fmt.Errorf("chunk %s section: %w", c.ID, err)
	}
	return c, nil
}

// unique returns values without repeats, in first-seen order, skipping empty strings.
func unique(values []string) []string {
	seen := make(map[string]bool, len(values))
	out := make([]string, 0, len(values))
	for _, v := range values {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
