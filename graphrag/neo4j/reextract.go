package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// A re-extraction of the graph is recorded in the Meta node (reextractModel, reextractDim,
// reextractEmbedModel, reextractSince in Unix nanoseconds, as Edit.createdAt) and each passage's staged
// extraction in its Chunk's graphNext: graphrag.Extraction as JSON, or keepStaged.
const keepStaged = graphrag.KeepStaged

// reextractWhere selects the passages a re-extraction extracts again (c a chunk, d its document): those of
// finished documents, not staged by a replace, that were extracted or failed.
const reextractWhere = `c.status IN ['extracted', 'failed'] AND d.status IN ['done', 'failed'] AND coalesce(d.replaces, '') = ''`

// reextractBatch bounds the chunks one statement of a commit detaches or clears.
const reextractBatch = 500

// reextraction is what the Meta node records of a re-extraction; model is empty when none is under way.
type reextraction struct {
	model string
	space graphrag.EmbeddingSpace
	since int64
}

func readReextraction(ctx context.Context, tx neo4j.ManagedTransaction) (reextraction, error) {
	records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id})
		RETURN coalesce(m.reextractModel, ''), coalesce(m.reextractDim, 0), coalesce(m.reextractEmbedModel, ''),
			coalesce(m.reextractSince, 0)`, map[string]any{"id": metaID})
	if err != nil {
		return reextraction{}, err
	}
	v := records[0].Values
	return reextraction{model: asString(v[0]), space: graphrag.EmbeddingSpace{Dim: asInt(v[1]), Model: asString(v[2])},
		since: int64(asInt(v[3]))}, nil
}

// ReextractState reads the re-extraction recorded in the Meta node, with its counts.
func (s *Store) ReextractState(ctx context.Context) (graphrag.ReextractState, error) {
	var st graphrag.ReextractState
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		r, err := readReextraction(ctx, tx)
		if err != nil {
			return err
		}
		st = graphrag.ReextractState{Model: r.model, Space: r.space}
		if r.since != 0 {
			st.Since = time.Unix(0, r.since).UTC()
		}
		records, err := query(ctx, tx, `MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) WHERE `+reextractWhere+`
			RETURN count(c), count(c.graphNext), count(CASE WHEN c.graphNext = $keep THEN 1 END)`,
			map[string]any{"keep": keepStaged})
		if err != nil {
			return err
		}
		v := records[0].Values
		st.Chunks, st.Staged, st.Kept = asInt(v[0]), asInt(v[1]), asInt(v[2])
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("neo4j: re-extraction state: %w", err)
	}
	return st, nil
}

// BeginReextract records model and space as the re-extraction being staged. For another one than the
// recorded it first clears what was staged, a batch at a time, then records it: a crash in between leaves
// the old one recorded with less staged, never the new one with the old one's extractions.
func (s *Store) BeginReextract(ctx context.Context, model string, space graphrag.EmbeddingSpace) error {
	if model == "" || space.Dim <= 0 {
		return fmt.Errorf("neo4j: begin re-extraction: a chat model and an embedding dimension are needed, got %q and %d", model, space.Dim)
	}
	var r reextraction
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		r, err = readReextraction(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: begin re-extraction: %w", err)
	}
	if r.model == model && r.space == space {
		return nil
	}
	if err := s.clearReextraction(ctx); err != nil {
		return fmt.Errorf("neo4j: begin re-extraction: %w", err)
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MERGE (m:Meta {id: $id})
			SET m.reextractModel = $model, m.reextractDim = $dim, m.reextractEmbedModel = $embedModel, m.reextractSince = $since`,
			map[string]any{"id": metaID, "model": model, "dim": space.Dim, "embedModel": space.Model, "since": time.Now().UnixNano()})
	})
	if err != nil {
		return fmt.Errorf("neo4j: begin re-extraction: %w", err)
	}
	return nil
}

// clearReextraction removes every chunk's staged extraction, a batch per transaction.
func (s *Store) clearReextraction(ctx context.Context) error {
	for {
		var n int
		err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			records, err := query(ctx, tx, `MATCH (c:Chunk) WHERE c.graphNext IS NOT NULL WITH c LIMIT $n
				REMOVE c.graphNext RETURN count(c)`, map[string]any{"n": clearBatch})
			n = asInt(first(records))
			return err
		})
		if err != nil || n < clearBatch {
			return err
		}
	}
}

// ReextractTodo returns passages to extract again without a staged extraction, by chunk ID.
func (s *Store) ReextractTodo(ctx context.Context, limit int) ([]graphrag.Chunk, error) {
	var out []graphrag.Chunk
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)
			WHERE c.graphNext IS NULL AND `+reextractWhere+`
			RETURN `+chunkProjection+` AS chunk ORDER BY c.id LIMIT $n`, map[string]any{"n": limit})
		if err != nil {
			return err
		}
		out = make([]graphrag.Chunk, 0, len(records))
		for _, v := range column(records) {
			out = append(out, chunkFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: re-extraction to do: %w", err)
	}
	return out, nil
}

// StageReextraction records a chunk's new extraction (or that it keeps its part of the graph) in its
// graphNext; nothing reads it before CommitReextract.
func (s *Store) StageReextraction(ctx context.Context, x graphrag.Extraction, keep bool) error {
	staged, err := graphrag.StagedRecord(x, keep)
	if err != nil {
		return fmt.Errorf("neo4j: stage the extraction of %s: %w", x.ChunkID, err)
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		r, err := readReextraction(ctx, tx)
		if err != nil {
			return err
		}
		if err := graphrag.CheckStaging(r.model, r.space.Dim, x, keep); err != nil {
			return err
		}
		return exec(ctx, tx, `MATCH (c:Chunk {id: $id}) SET c.graphNext = $staged`,
			map[string]any{"id": x.ChunkID, "staged": staged})
	})
	if err != nil {
		return fmt.Errorf("neo4j: stage the extraction of %s: %w", x.ChunkID, err)
	}
	return nil
}

// keepIfReextracting stages a chunk an ingest has just extracted as kept while a re-extraction is under
// way: it was extracted with the configured model, so the re-extraction need not extract it again.
func keepIfReextracting(ctx context.Context, tx neo4j.ManagedTransaction, chunkID string) error {
	return exec(ctx, tx, `MATCH (m:Meta {id: $meta}) WHERE m.reextractModel IS NOT NULL
		MATCH (c:Chunk {id: $id}) SET c.graphNext = $keep`, map[string]any{"meta": metaID, "id": chunkID, "keep": keepStaged})
}

// CommitReextract swaps the staged extractions into the graph in one transaction (see
// graphrag.ReextractStore), recounts every document's relations and counts the commit in the generation.
// Neo4j's reads are read-committed, so this Store's searches and readers of the generation wait while it
// commits (searchMu, changing), as for a replace; another process's are not held back.
func (s *Store) CommitReextract(ctx context.Context) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	var n int
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		if n, err = s.commitReextract(ctx, tx); err != nil {
			return err
		}
		// A retrieval pass that read the old graph before this commit and the new one after it is made again.
		return countChange(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("neo4j: commit re-extraction: %w", err)
	}
	s.logger.Info("neo4j re-extraction committed", "uri", s.uri, "passages", n)
	return nil
}

func (s *Store) commitReextract(ctx context.Context, tx neo4j.ManagedTransaction) (int, error) {
	r, err := readReextraction(ctx, tx)
	if err != nil {
		return 0, err
	}
	if err := graphrag.CheckReextractCommit(r.model, r.space.Dim, s.embedDim()); err != nil {
		return 0, err
	}
	if err := s.checkSlot(ctx, tx); err != nil {
		return 0, err
	}
	records, err := query(ctx, tx, `MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) WHERE c.graphNext IS NULL AND `+
		reextractWhere+` RETURN count(c)`, nil)
	if err != nil {
		return 0, err
	}
	if todo := asInt(first(records)); todo > 0 {
		return 0, fmt.Errorf("%d passages have no new extraction yet: %w", todo, graphrag.ErrReextractIncomplete)
	}
	rules, err := stagedRules(ctx, tx, r.since)
	if err != nil {
		return 0, err
	}
	records, err = query(ctx, tx, `MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)
		WHERE c.graphNext IS NOT NULL AND c.graphNext <> $keep AND coalesce(d.replaces, '') = ''
		RETURN c.id ORDER BY c.id`, map[string]any{"keep": keepStaged})
	if err != nil {
		return 0, err
	}
	ids := make([]string, len(records))
	for i, rec := range records {
		ids[i] = asString(rec.Values[0])
	}
	for lo := 0; lo < len(ids); lo += reextractBatch {
		if err := detachChunks(ctx, tx, ids[lo:min(lo+reextractBatch, len(ids))]); err != nil {
			return 0, err
		}
	}
	for _, id := range ids {
		records, err := query(ctx, tx, `MATCH (c:Chunk {id: $id}) RETURN c.graphNext`, map[string]any{"id": id})
		if err != nil {
			return 0, fmt.Errorf("chunk %s: %w", id, err)
		}
		plan, err := graphrag.PlanStaged(id, asString(first(records)), rules, s.embedDim())
		if err != nil {
			return 0, err
		}
		if err := applyExtraction(ctx, tx, plan); err != nil {
			return 0, fmt.Errorf("chunk %s: %w", id, err)
		}
	}
	steps := []string{
		`MATCH (c:Chunk) WHERE c.graphNext IS NOT NULL REMOVE c.graphNext`,
		`MATCH (m:Meta {id: $id}) REMOVE m.reextractModel, m.reextractDim, m.reextractEmbedModel, m.reextractSince`,
		// The relation counters, which the detaching above does not keep, counted again.
		`MATCH (d:Document) SET d.relationCount = 0`,
		`MATCH ()-[r:RELATED]->() UNWIND r.docIds AS doc WITH doc, count(*) AS n
		MATCH (d:Document {id: doc}) SET d.relationCount = n`,
	}
	for _, step := range steps {
		if err := exec(ctx, tx, step, map[string]any{"id": metaID}); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// detachChunks removes the chunks' mentions and their IDs from the relations they support, with the
// relations left without support and the entities left without mentions; the relations they shared keep
// the documents of the chunks left.
func detachChunks(ctx context.Context, tx neo4j.ManagedTransaction, ids []string) error {
	params := map[string]any{"ids": ids}
	records, err := query(ctx, tx, `UNWIND $ids AS cid MATCH (:Chunk {id: cid})-[:MENTIONS]->(e:Entity)
		RETURN collect(DISTINCT e.key)`, params)
	if err != nil {
		return err
	}
	params["keys"] = nonNil(asStrings(first(records)))
	steps := []string{
		// Every chunk supporting a relation mentions its source entity.
		`UNWIND $ids AS cid
		MATCH (:Chunk {id: cid})-[:MENTIONS]->(:Entity)-[r:RELATED]->()
		WITH DISTINCT r
		WITH r, [x IN r.chunkIds WHERE NOT x IN $ids] AS kept
		SET r.chunkIds = kept, r.support = size(kept)
		WITH r
		CALL {
			WITH r
			UNWIND r.chunkIds AS kept
			MATCH (c:Chunk {id: kept})
			RETURN collect(DISTINCT c.docId) AS docs
		}
		SET r.docIds = docs
		WITH r WHERE size(r.chunkIds) = 0
		DELETE r`,
		`UNWIND $ids AS cid MATCH (:Chunk {id: cid})-[m:MENTIONS]->() DELETE m`,
		`UNWIND $keys AS key
		MATCH (e:Entity {key: key})
		WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
		DETACH DELETE e`,
	}
	for _, step := range steps {
		if err := exec(ctx, tx, step, params); err != nil {
			return err
		}
	}
	return nil
}

// stagedRules reads the applied edits made at or after since and returns the rules a commit rewrites
// staged extractions by (graphrag.StagedEditRules).
func stagedRules(ctx context.Context, tx neo4j.ManagedTransaction, since int64) (graphrag.Rules, error) {
	records, err := query(ctx, tx, `MATCH (x:Edit) WHERE x.status = 'applied' AND x.createdAt >= $since
		RETURN x.createdAt, x.body ORDER BY x.createdAt, x.id`, map[string]any{"since": since})
	if err != nil {
		return graphrag.Rules{}, err
	}
	edits := make([]graphrag.Edit, 0, len(records))
	for _, rec := range records {
		var e graphrag.Edit
		if err := json.Unmarshal([]byte(asString(rec.Values[1])), &e); err != nil {
			return graphrag.Rules{}, fmt.Errorf("edit: %w", err)
		}
		e.Status, e.CreatedAt = graphrag.EditApplied, time.Unix(0, int64(asInt(rec.Values[0]))).UTC()
		edits = append(edits, e)
	}
	return graphrag.StagedEditRules(edits, time.Unix(0, since)), nil
}
