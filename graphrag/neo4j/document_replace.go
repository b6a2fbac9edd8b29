package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// stagedContribution is what a staged chunk gives the graph once its document is complete (the chunk's
// stagedContribution, as JSON): the extraction found in it, or the chunk of the replaced document with the
// same text, whose mentions and relations it takes over.
type stagedContribution struct {
	Extraction *graphrag.Extraction `json:"extraction,omitempty"`
	ReuseOf    string               `json:"reuse_of,omitempty"`
}

// ReuseChunks gives staged chunks the vector of the replaced document's chunk with the same text and
// records that they take over its extraction.
func (s *Store) ReuseChunks(ctx context.Context, reuse map[string]string) error {
	rows := make([]map[string]any, 0, len(reuse))
	for _, newID := range slices.Sorted(maps.Keys(reuse)) {
		b, err := json.Marshal(stagedContribution{ReuseOf: reuse[newID]})
		if err != nil {
			return fmt.Errorf("neo4j: reuse chunks: %w", err)
		}
		rows = append(rows, map[string]any{"new": newID, "old": reuse[newID], "staged": string(b)})
	}
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `UNWIND $rows AS row
			MATCH (n:Chunk {id: row.new}) WHERE n.staged
			MATCH (o:Chunk {id: row.old}) WHERE o.status = 'extracted' AND o[$prop] IS NOT NULL
			CALL db.create.setNodeVectorProperty(n, $prop, o[$prop])
			SET n.embedded = true, n.status = 'extracted', n.error = '', n.stagedContribution = row.staged`,
			map[string]any{"rows": rows, "prop": s.space.Load().property()})
	})
	if err != nil {
		return fmt.Errorf("neo4j: reuse chunks: %w", err)
	}
	return nil
}

// ReplaceDocument merges a staged document's recorded extractions, deletes the document it replaces and
// clears its chunks' staged flag, in one transaction. The staged chunks' vectors are in the vector index
// all along (searches drop staged chunks). Neo4j's reads are read-committed, so a search running while
// the transaction commits could see some of its writes and not others (the old version's chunks without
// their document beside the new version's): searches of this Store wait while it commits (searchMu), so
// each finds either version whole. Another process's searches are not held back.
func (s *Store) ReplaceDocument(ctx context.Context, id string) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := s.replaceDocument(ctx, tx, id); err != nil {
			return err
		}
		return countChange(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("neo4j: replace with document %s: %w", id, err)
	}
	s.vectorsWritten()
	return nil
}

func (s *Store) replaceDocument(ctx context.Context, tx neo4j.ManagedTransaction, id string) error {
	params := map[string]any{"id": id, "now": time.Now().UTC()}
	records, err := query(ctx, tx, `MATCH (d:Document {id: $id}) RETURN coalesce(d.replaces, '')`, params)
	if err != nil {
		return err
	}
	if len(records) == 0 {
		return fmt.Errorf("document %s: %w", id, graphrag.ErrNotFound)
	}
	replaces := asString(first(records))
	records, err = query(ctx, tx, `MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk)
		WHERE c.stagedContribution IS NOT NULL
		RETURN c.id, c.stagedContribution ORDER BY c.ordinal`, params)
	if err != nil {
		return err
	}
	for _, r := range records {
		chunkID := asString(r.Values[0])
		var c stagedContribution
		if err := json.Unmarshal([]byte(asString(r.Values[1])), &c); err != nil {
			return fmt.Errorf("chunk %s: staged contribution: %w", chunkID, err)
		}
		x, err := stagedExtraction(ctx, tx, chunkID, c)
		if err != nil {
			return fmt.Errorf("chunk %s: %w", chunkID, err)
		}
		plan, err := graphrag.PlanExtraction(x, s.embedDim())
		if err != nil {
			return fmt.Errorf("chunk %s: %w", chunkID, err)
		}
		if err := applyExtraction(ctx, tx, plan); err != nil {
			return fmt.Errorf("chunk %s: %w", chunkID, err)
		}
	}
	if replaces != "" {
		if err := deleteDocumentTx(ctx, tx, replaces); err != nil {
			return fmt.Errorf("delete the replaced document %s: %w", replaces, err)
		}
	}
	steps := []string{
		`MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) WHERE c.staged
		REMOVE c.staged, c.stagedContribution`,
		`MATCH (d:Document {id: $id})
		SET d.replaces = '', d.status = 'done', d.error = '',
			d.updatedAt = CASE WHEN d.updatedAt > $now THEN d.updatedAt ELSE $now END`,
	}
	for _, step := range steps {
		if err := exec(ctx, tx, step, params); err != nil {
			return err
		}
	}
	return nil
}

// stagedExtraction is the extraction a staged chunk contributes: its own, or the one of the chunk it
// reuses as the graph holds it (entities and relations without provenance; relations keep their vectors).
func stagedExtraction(ctx context.Context, tx neo4j.ManagedTransaction, chunkID string, c stagedContribution) (graphrag.Extraction, error) {
	if c.Extraction != nil {
		x := *c.Extraction
		x.ChunkID = chunkID
		return x, nil
	}
	x := graphrag.Extraction{ChunkID: chunkID}
	params := map[string]any{"old": c.ReuseOf}
	records, err := query(ctx, tx, `MATCH (:Chunk {id: $old})-[:MENTIONS]->(e:Entity)
		RETURN e.key, e.name, e.type, e.description, e.aliases ORDER BY e.key`, params)
	if err != nil {
		return x, err
	}
	for _, r := range records {
		x.Entities = append(x.Entities, graphrag.Entity{Key: asString(r.Values[0]), Name: asString(r.Values[1]),
			Type: asString(r.Values[2]), Description: asString(r.Values[3]), Aliases: asStrings(r.Values[4])})
	}
	// Every chunk supporting a relation mentions its source entity.
	records, err = query(ctx, tx, `MATCH (:Chunk {id: $old})-[:MENTIONS]->(a:Entity)-[r:RELATED]->(b:Entity)
		WHERE $old IN r.chunkIds
		RETURN DISTINCT r.id, a.key, b.key, r.type, r.description, r.values ORDER BY r.id`, params)
	if err != nil {
		return x, err
	}
	for _, rec := range records {
		r := graphrag.Relation{ID: asString(rec.Values[0]), Source: asString(rec.Values[1]), Target: asString(rec.Values[2]),
			Type: asString(rec.Values[3]), Description: asString(rec.Values[4])}
		if v := asString(rec.Values[5]); v != "" {
			if err := json.Unmarshal([]byte(v), &r.Values); err != nil {
				return x, fmt.Errorf("relation %s values: %w", r.ID, err)
			}
		}
		x.Relations = append(x.Relations, r)
	}
	return x, nil
}
