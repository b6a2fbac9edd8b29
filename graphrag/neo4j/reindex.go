package neo4j

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// A chunk's vector lives in one of two slots, each a property with its own vector index (a vector index
// has one dimension, and a label and property have one vector index): searches read the active slot
// while a re-embedding fills the other, and committing it flips the slot recorded in the Meta node, so no
// search ever reads an index being rebuilt. Relation vectors are not indexed: the staged ones wait in
// embeddingNext (and as float32 bytes in embeddingNextF32, relation_props.go) and are copied in place by
// the commit's transaction.
var (
	slotProperty = [2]string{"embedding", "embedding1"}
	slotIndex    = [2]string{vectorIndex, vectorIndex + "_1"}
)

// space is the embedding space searches use and the slot its vectors are in.
type space struct {
	graphrag.EmbeddingSpace
	slot int
}

func (sp *space) property() string { return slotProperty[sp.slot] }
func (sp *space) index() string    { return slotIndex[sp.slot] }

// EmbeddingSpace is the model and dimension of the vectors searches use now.
func (s *Store) EmbeddingSpace() graphrag.EmbeddingSpace { return s.space.Load().EmbeddingSpace }

// embedDim is the dimension of the searched vectors.
func (s *Store) embedDim() int { return s.space.Load().Dim }

// loadSlot reads the active slot and the recorded model from the Meta node (slot 0 and no model for a
// database that has none yet).
func (s *Store) loadSlot(ctx context.Context) error {
	return s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id})
			RETURN coalesce(m.vectorSlot, 0), coalesce(m.embedModel, '')`, map[string]any{"id": metaID})
		if err != nil {
			return fmt.Errorf("neo4j: read meta: %w", err)
		}
		s.slot = asInt(records[0].Values[0]) % 2
		s.recordedModel = asString(records[0].Values[1])
		return nil
	})
}

// vectorIndexStatement creates the cosine vector index of a slot for dimension dim.
func vectorIndexStatement(slot, dim int) string {
	return fmt.Sprintf("CREATE VECTOR INDEX %s IF NOT EXISTS FOR (n:Chunk) ON (n.%s) "+
		"OPTIONS {indexConfig: {`vector.dimensions`: %d, `vector.similarity_function`: 'cosine'}}",
		slotIndex[slot], slotProperty[slot], dim)
}

// ReembedState reads the re-embedding recorded in the Meta node, with its counts.
func (s *Store) ReembedState(ctx context.Context) (graphrag.ReembedState, error) {
	active := s.space.Load()
	st := graphrag.ReembedState{Active: active.EmbeddingSpace}
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id})
			RETURN coalesce(m.reembedDim, 0), coalesce(m.reembedModel, ''),
				COUNT { MATCH (c:Chunk) WHERE c.embedded },
				COUNT { MATCH (c:Chunk) WHERE c.embedded AND c[$next] IS NOT NULL },
				COUNT { MATCH ()-[r:RELATED]->() WHERE r.embedding IS NOT NULL },
				COUNT { MATCH ()-[r:RELATED]->() WHERE r.embedding IS NOT NULL AND r.embeddingNext IS NOT NULL }`,
			map[string]any{"id": metaID, "next": slotProperty[1-active.slot]})
		if err != nil {
			return err
		}
		v := records[0].Values
		st.Target = graphrag.EmbeddingSpace{Dim: asInt(v[0]), Model: asString(v[1])}
		st.Chunks, st.ChunksStaged, st.Relations, st.RelationsStaged = asInt(v[2]), asInt(v[3]), asInt(v[4]), asInt(v[5])
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("neo4j: re-embedding state: %w", err)
	}
	return st, nil
}

// clearBatch bounds the nodes and relations one transaction clears of a staged vector.
const clearBatch = 2000

// BeginReembed records target as the space being staged into the inactive slot. For another target than
// the recorded one it first drops that slot's index and vectors (left by an earlier re-embedding), then
// creates its index for the target's dimension and waits until it is online.
func (s *Store) BeginReembed(ctx context.Context, target graphrag.EmbeddingSpace) error {
	if target.Dim <= 0 {
		return fmt.Errorf("neo4j: begin re-embedding: dimension must be positive, got %d", target.Dim)
	}
	st, err := s.ReembedState(ctx)
	if err != nil {
		return err
	}
	if st.Target == target {
		return nil
	}
	next := 1 - s.space.Load().slot
	steps := []string{
		"DROP INDEX " + slotIndex[next] + " IF EXISTS",
	}
	for _, stmt := range steps {
		if err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error { return exec(ctx, tx, stmt, nil) }); err != nil {
			return fmt.Errorf("neo4j: begin re-embedding: %w", err)
		}
	}
	if err := s.clearStaged(ctx, slotProperty[next]); err != nil {
		return fmt.Errorf("neo4j: begin re-embedding: %w", err)
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, vectorIndexStatement(next, target.Dim), nil)
	})
	if err != nil {
		return fmt.Errorf("neo4j: begin re-embedding: create the index: %w", err)
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := exec(ctx, tx, "CALL db.awaitIndexes(300)", nil); err != nil {
			return err
		}
		return exec(ctx, tx, `MERGE (m:Meta {id: $id}) SET m.reembedDim = $dim, m.reembedModel = $model`,
			map[string]any{"id": metaID, "dim": target.Dim, "model": target.Model})
	})
	if err != nil {
		return fmt.Errorf("neo4j: begin re-embedding: %w", err)
	}
	return nil
}

// clearStaged removes a chunk vector property and every relation's staged vector, a batch at a time.
func (s *Store) clearStaged(ctx context.Context, prop string) error {
	for _, q := range []string{
		// prop is one of slotProperty, never input: Cypher sets no property named by a parameter.
		`MATCH (c:Chunk) WHERE c.` + prop + ` IS NOT NULL WITH c LIMIT $n REMOVE c.` + prop + ` RETURN count(c)`,
		`MATCH ()-[r:RELATED]->() WHERE r.embeddingNext IS NOT NULL WITH r LIMIT $n REMOVE r.embeddingNext, r.embeddingNextF32 RETURN count(r)`,
	} {
		for {
			var n int
			err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
				records, err := query(ctx, tx, q, map[string]any{"n": clearBatch})
				n = asInt(first(records))
				return err
			})
			if err != nil {
				return err
			}
			if n < clearBatch {
				break
			}
		}
	}
	return nil
}

// ReembedTodo returns passages and facts with a vector and no staged one, by ID.
func (s *Store) ReembedTodo(ctx context.Context, limit int) ([]graphrag.Chunk, []graphrag.Relation, error) {
	var chunks []graphrag.Chunk
	var rels []graphrag.Relation
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		chunks, rels = nil, nil
		records, err := query(ctx, tx, `MATCH (c:Chunk) WHERE c.embedded AND c[$next] IS NULL
			RETURN c.id, c.text ORDER BY c.id LIMIT $n`,
			map[string]any{"next": slotProperty[1-s.space.Load().slot], "n": limit})
		if err != nil {
			return err
		}
		for _, r := range records {
			chunks = append(chunks, graphrag.Chunk{ID: asString(r.Values[0]), Text: asString(r.Values[1])})
		}
		records, err = query(ctx, tx, `MATCH (a:Entity)-[r:RELATED]->(b:Entity)
			WHERE r.embedding IS NOT NULL AND r.embeddingNext IS NULL
			RETURN r.id, r.type, a.name, b.name ORDER BY r.id LIMIT $n`, map[string]any{"n": limit})
		if err != nil {
			return err
		}
		for _, r := range records {
			rels = append(rels, graphrag.Relation{ID: asString(r.Values[0]), Type: asString(r.Values[1]),
				SourceName: asString(r.Values[2]), TargetName: asString(r.Values[3])})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("neo4j: re-embedding to do: %w", err)
	}
	return chunks, rels, nil
}

// StageEmbeddings writes staged vectors into the inactive slot (chunks) and embeddingNext (relations).
func (s *Store) StageEmbeddings(ctx context.Context, chunks, relations map[string][]float32) error {
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	rows := func(vectors map[string][]float32) []map[string]any {
		out := make([]map[string]any, 0, len(vectors))
		for _, id := range slices.Sorted(maps.Keys(vectors)) {
			out = append(out, map[string]any{"id": id, "vec": float64s(vectors[id]), "f32": f32Bytes(vectors[id])})
		}
		return out
	}
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id}) RETURN coalesce(m.reembedDim, 0)`,
			map[string]any{"id": metaID})
		if err != nil {
			return err
		}
		dim := asInt(first(records))
		if dim == 0 {
			return fmt.Errorf("no re-embedding has begun")
		}
		for _, set := range []map[string][]float32{chunks, relations} {
			for id, v := range set {
				if len(v) != dim {
					return fmt.Errorf("vector of %s has %d values, the re-embedding %d: %w", id, len(v), dim, graphrag.ErrDimension)
				}
			}
		}
		err = exec(ctx, tx, `UNWIND $rows AS row
			MATCH (c:Chunk {id: row.id}) WHERE c.embedded
			CALL db.create.setNodeVectorProperty(c, $prop, row.vec)`,
			map[string]any{"rows": rows(chunks), "prop": slotProperty[1-s.space.Load().slot]})
		if err != nil {
			return err
		}
		return exec(ctx, tx, `UNWIND $rows AS row
			MATCH ()-[r:RELATED {id: row.id}]->() WHERE r.embedding IS NOT NULL
			SET r.embeddingNext = row.vec, r.embeddingNextF32 = row.f32`, map[string]any{"rows": rows(relations)})
	})
	if err != nil {
		return fmt.Errorf("neo4j: stage embeddings: %w", err)
	}
	s.vectorsWritten()
	return nil
}

// CommitReembed flips the searched slot to the staged one and moves the relations' staged vectors into
// place, in one transaction, with the target recorded as the database's space; then it drops the old
// slot's index and vectors. Writes of vectors by this Store wait meanwhile (spaceMu); searches wait only
// for the flip (searchMu), so none queries an index that is being dropped.
func (s *Store) CommitReembed(ctx context.Context) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.spaceMu.Lock()
	defer s.spaceMu.Unlock()
	old := s.space.Load()
	next := 1 - old.slot
	var target graphrag.EmbeddingSpace
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (m:Meta {id: $id})
			RETURN coalesce(m.reembedDim, 0), coalesce(m.reembedModel, ''),
				COUNT { MATCH (c:Chunk) WHERE c.embedded AND c[$next] IS NULL },
				COUNT { MATCH ()-[r:RELATED]->() WHERE r.embedding IS NOT NULL AND r.embeddingNext IS NULL }`,
			map[string]any{"id": metaID, "next": slotProperty[next]})
		if err != nil {
			return err
		}
		if len(records) == 0 || asInt(records[0].Values[0]) == 0 {
			return fmt.Errorf("no re-embedding has begun")
		}
		v := records[0].Values
		target = graphrag.EmbeddingSpace{Dim: asInt(v[0]), Model: asString(v[1])}
		if chunks, rels := asInt(v[2]), asInt(v[3]); chunks+rels > 0 {
			return fmt.Errorf("%d passages and %d facts have no new vector yet: %w", chunks, rels, graphrag.ErrReembedIncomplete)
		}
		err = exec(ctx, tx, `MATCH ()-[r:RELATED]->() WHERE r.embeddingNext IS NOT NULL
			SET r.embedding = r.embeddingNext, r.embeddingF32 = r.embeddingNextF32, r.embeddingNext = null,
				r.embeddingNextF32 = null`, nil)
		if err != nil {
			return err
		}
		err = exec(ctx, tx, `MATCH (m:Meta {id: $id})
			SET m.vectorSlot = $slot, m.embedDim = $dim, m.embedModel = $model, m.reembedDim = null, m.reembedModel = null`,
			map[string]any{"id": metaID, "slot": next, "dim": target.Dim, "model": target.Model})
		if err != nil {
			return err
		}
		// A retrieval pass across the swap would search two spaces: it is counted as a change.
		return countChange(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("neo4j: commit re-embedding: %w", err)
	}
	s.useSpace(old, &space{EmbeddingSpace: target, slot: next})
	s.vectorsWritten() // the slot now searched was written last by the staging
	s.logger.Info("neo4j re-embedding committed", "uri", s.uri, "model", target.Model, "dim", target.Dim)
	return nil
}

// useSpace makes next the searched space, in place of old, while no search of this Store runs; a query of
// old's dimension still reads old's slot for PreviousVectorsFor.
func (s *Store) useSpace(old, next *space) {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	s.space.Store(next)
	if old.Dim != next.Dim {
		s.previous = old
		time.AfterFunc(PreviousVectorsFor, func() {
			s.searchMu.Lock()
			if s.previous == old {
				s.previous = nil
			}
			s.searchMu.Unlock()
		})
	}
}

// PreviousVectorsFor is how long after a re-embedding to another dimension the slot it replaced still
// answers queries of its dimension in this process: a question whose queries were embedded by the old
// model just before the commit gets its passages, not an error. The old slot's index and vectors are
// dropped by the next Open or BeginReembed.
const PreviousVectorsFor = 5 * time.Minute

// previousSpace is the replaced slot when it is of dimension dim; searchMu is held.
func (s *Store) previousSpace(dim int) *space {
	if s.previous == nil || s.previous.Dim != dim {
		return nil
	}
	return s.previous
}

// dropInactiveSlot removes the index and vectors of the slot searches do not use, unless a re-embedding
// is filling it: what a committed re-embedding left behind.
func (s *Store) dropInactiveSlot(ctx context.Context) error {
	st, err := s.ReembedState(ctx)
	if err != nil || st.Target.Dim != 0 {
		return err
	}
	old := 1 - s.space.Load().slot
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, "DROP INDEX "+slotIndex[old]+" IF EXISTS", nil)
	})
	if err != nil {
		return fmt.Errorf("neo4j: drop the vectors a re-embedding replaced: %w", err)
	}
	if err := s.clearStaged(ctx, slotProperty[old]); err != nil {
		return fmt.Errorf("neo4j: drop the vectors a re-embedding replaced: %w", err)
	}
	return nil
}

// checkSlot fails a write of vectors when the database's searched slot is no longer this Store's: another
// process committed a re-embedding, and vectors of the old space must not be written where nothing reads
// them. (Reads are read-committed: a write racing that commit can still land in the old slot.)
func (s *Store) checkSlot(ctx context.Context, tx neo4j.ManagedTransaction) error {
	records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id}) RETURN coalesce(m.vectorSlot, 0), coalesce(m.embedDim, 0)`,
		map[string]any{"id": metaID})
	if err != nil {
		return err
	}
	own := s.space.Load()
	if slot, dim := asInt(records[0].Values[0]), asInt(records[0].Values[1]); slot != own.slot {
		return fmt.Errorf("another process re-embedded this database with %d dimensions (this one writes %d): restart "+
			"this process: %w", dim, own.Dim, graphrag.ErrDimension)
	}
	return nil
}
