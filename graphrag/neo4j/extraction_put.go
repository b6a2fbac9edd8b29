package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// PutExtraction merges a chunk's entities by key and relations by ID and marks the chunk extracted, in one
// transaction that is safe to repeat. Every entity and both ends of every relation are recorded as
// MENTIONS of the supporting chunks, so an entity lives exactly while some chunk mentions it, and the
// relations a document supports are reachable from its chunks. The merge rules are graphrag's
// (PlanExtraction, MergeEntity, MergeRelation): the transaction reads what is stored, merges in Go and
// writes the merged values, so both stores merge alike. An extraction without its keys and IDs is
// graphrag.ErrUnresolved, a relation vector of another dimension ErrDimension, an unknown chunk ErrNotFound.
// A staged chunk's extraction is only recorded, and merged by ReplaceDocument.
//
// Locks: the transaction writes the chunk, then every entity it touches in key order, before it reads or
// writes any relation. Parallel extractions sharing entities therefore queue on the first shared entity
// instead of deadlocking, an entity or relation is only ever read and merged while it (or both its ends)
// is locked (so no duplicate edge and no lost update), and the uniqueness constraint on Entity.key makes
// MERGE create each entity once. Deadlocks that remain are transient errors the driver retries.
func (s *Store) PutExtraction(ctx context.Context, x graphrag.Extraction) error {
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	plan, err := graphrag.PlanExtraction(x, s.embedDim())
	if err != nil {
		return fmt.Errorf("neo4j: put extraction of %s: %w", x.ChunkID, err)
	}
	staged, err := json.Marshal(stagedContribution{Extraction: &x})
	if err != nil {
		return fmt.Errorf("neo4j: put extraction of %s: %w", x.ChunkID, err)
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := s.checkSlot(ctx, tx); err != nil {
			return err
		}
		records, err := query(ctx, tx, `MATCH (c:Chunk {id: $id}) WHERE c.staged
			SET c.stagedContribution = $staged, c.status = 'extracted', c.error = '' RETURN c.id`,
			map[string]any{"id": x.ChunkID, "staged": string(staged)})
		if err != nil || len(records) > 0 {
			return err
		}
		if err := keepIfReextracting(ctx, tx, x.ChunkID); err != nil {
			return err
		}
		return applyExtraction(ctx, tx, plan)
	})
	if err != nil {
		return fmt.Errorf("neo4j: put extraction of %s: %w", x.ChunkID, err)
	}
	return nil
}

// MarkChunkFailed ends a chunk's extraction with a reason; an unknown chunk is ErrNotFound.
func (s *Store) MarkChunkFailed(ctx context.Context, chunkID, reason string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Chunk {id: $id}) SET c.status = 'failed', c.error = $reason RETURN c.id`,
			map[string]any{"id": chunkID, "reason": reason})
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("no chunk %q: %w", chunkID, graphrag.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: mark chunk %s failed: %w", chunkID, err)
	}
	return nil
}

// applyExtraction writes the plan in tx. It reads nothing it has not locked and keeps no state between
// runs, so the driver may run it again after a deadlock.
func applyExtraction(ctx context.Context, tx neo4j.ManagedTransaction, p graphrag.ExtractionPlan) error {
	docOf, err := lockChunks(ctx, tx, p)
	if err != nil {
		return err
	}
	if err := mergeEntities(ctx, tx, p, docOf); err != nil {
		return fmt.Errorf("entities: %w", err)
	}
	if err := mergeRelations(ctx, tx, p, docOf); err != nil {
		return fmt.Errorf("relations: %w", err)
	}
	return nil
}

// lockChunks marks the chunk extracted (taking its lock first) and returns the document of every chunk
// the plan names that is in the store.
func lockChunks(ctx context.Context, tx neo4j.ManagedTransaction, p graphrag.ExtractionPlan) (map[string]string, error) {
	records, err := query(ctx, tx, `MATCH (c:Chunk {id: $id}) SET c.status = 'extracted', c.error = '' RETURN c.docId`,
		map[string]any{"id": p.ChunkID})
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("no chunk %q: %w", p.ChunkID, graphrag.ErrNotFound)
	}
	docOf := map[string]string{p.ChunkID: asString(first(records))}
	var others []string
	for _, e := range p.Entities {
		others = graphrag.SortedUnion(others, e.ChunkIDs)
	}
	records, err = query(ctx, tx, `UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.id, c.docId`,
		map[string]any{"ids": others})
	if err != nil {
		return nil, err
	}
	for _, r := range records {
		docOf[asString(r.Values[0])] = asString(r.Values[1])
	}
	return docOf, nil
}

// mergeEntities locks the plan's entities in key order, creates the missing ones, reads them all, merges
// in Go and writes every one back (a write, so each stays locked for the relations) with the mentions of
// the chunks in the store. One named only as a relation's end keeps its stored values.
func mergeEntities(ctx context.Context, tx neo4j.ManagedTransaction, p graphrag.ExtractionPlan, docOf map[string]string) error {
	// Lock the entities that exist, in key order, before MERGE reads any of them: MERGE takes shared
	// locks on what it matches, and two transactions upgrading shared locks on one node deadlock.
	keys := make([]string, len(p.Entities))
	created := make([]map[string]any, len(p.Entities))
	for i, e := range p.Entities {
		keys[i] = e.Key
		created[i] = entityParams(e.Entity, nil)
	}
	err := exec(ctx, tx, `UNWIND $keys AS key
		MATCH (e:Entity {key: key})
		SET e.searchText = e.searchText`, map[string]any{"keys": keys})
	if err != nil {
		return err
	}
	// An entity created here holds the plan's values, which merge into themselves unchanged.
	records, err := query(ctx, tx, `UNWIND $rows AS row
		MERGE (e:Entity {key: row.key})
		ON CREATE SET e.name = row.name, e.type = row.type, e.description = row.description,
			e.aliases = row.aliases, e.searchText = row.searchText
		RETURN e.key, e.name, e.type, e.description, e.aliases`, map[string]any{"rows": created})
	if err != nil {
		return err
	}
	stored := make(map[string]graphrag.Entity, len(records))
	for _, r := range records {
		e := graphrag.Entity{Key: asString(r.Values[0]), Name: asString(r.Values[1]), Type: asString(r.Values[2]),
			Description: asString(r.Values[3]), Aliases: asStrings(r.Values[4])}
		stored[e.Key] = e
	}
	rows := make([]map[string]any, len(p.Entities))
	for i, e := range p.Entities {
		merged := stored[e.Key]
		if !e.EndOnly {
			merged = graphrag.MergeEntity(merged, e.Entity)
		}
		rows[i] = entityParams(merged, known(e.ChunkIDs, docOf))
	}
	return exec(ctx, tx, `UNWIND $rows AS row
		MATCH (e:Entity {key: row.key})
		SET e.type = row.type, e.description = row.description, e.aliases = row.aliases, e.searchText = row.searchText
		WITH e, row
		UNWIND row.chunkIds AS cid
		MATCH (c:Chunk {id: cid})
		MERGE (c)-[m:MENTIONS]->(e) ON CREATE SET m.entity = e.key, m.chunk = c.id`, map[string]any{"rows": rows})
}

// entityParams is an entity as query parameters; its full-text field holds its name and aliases.
func entityParams(e graphrag.Entity, chunkIDs []string) map[string]any {
	return map[string]any{
		"key": e.Key, "name": e.Name, "type": e.Type, "description": e.Description, "aliases": nonNil(e.Aliases),
		"searchText": strings.Join(append([]string{e.Name}, e.Aliases...), " "), "chunkIds": nonNil(chunkIDs),
	}
}

// mergeRelations reads the stored relations of the plan (their ends are locked by now), merges them in Go
// (graphrag.MergeRelation) with the plan's, supported by the chunks in the store, writes the merged values
// and adds to each document's relation counter the relations it newly supports. The stored vector is not
// read: a relation with none of its own keeps it. A document leaves a relation's docIds only when it is
// deleted itself, so the counters stay exact without ever counting edges.
func mergeRelations(ctx context.Context, tx neo4j.ManagedTransaction, p graphrag.ExtractionPlan, docOf map[string]string) error {
	if len(p.Relations) == 0 {
		return nil
	}
	stored, err := readRelations(ctx, tx, p.Relations)
	if err != nil {
		return err
	}
	rows := make([]map[string]any, len(p.Relations))
	added := map[string]int{}
	for i, r := range p.Relations {
		r.ChunkIDs = known(r.ChunkIDs, docOf)
		r.DocIDs = docsOf(r.ChunkIDs, docOf)
		old := stored[r.ID]
		merged := graphrag.MergeRelation(old, r)
		for _, d := range merged.DocIDs {
			if !slices.Contains(old.DocIDs, d) {
				added[d]++
			}
		}
		values, err := json.Marshal(merged.Values)
		if err != nil {
			return fmt.Errorf("relation %s values: %w", r.ID, err)
		}
		rows[i] = map[string]any{
			"id": merged.ID, "source": merged.Source, "target": merged.Target, "type": merged.Type,
			"description": merged.Description, "values": string(values), "chunkIds": nonNil(merged.ChunkIDs),
			"docIds": nonNil(merged.DocIDs), "embedding": nil, "f32": nil,
		}
		if merged.Embedding != nil {
			rows[i]["embedding"], rows[i]["f32"] = float64s(merged.Embedding), f32Bytes(merged.Embedding)
		}
	}
	err = exec(ctx, tx, `UNWIND $rows AS row
		MATCH (a:Entity {key: row.source}), (b:Entity {key: row.target})
		MERGE (a)-[r:RELATED {id: row.id}]->(b)
		SET r.type = row.type, r.description = row.description, r.values = row.values,
			r.chunkIds = row.chunkIds, r.support = size(row.chunkIds), r.docIds = row.docIds,
			r.embedding = coalesce(row.embedding, r.embedding),
			r.embeddingF32 = CASE WHEN row.embedding IS NULL THEN r.embeddingF32 ELSE row.f32 END`,
		map[string]any{"rows": rows})
	if err != nil {
		return err
	}
	counts := make([]map[string]any, 0, len(added))
	for _, d := range slices.Sorted(maps.Keys(added)) {
		counts = append(counts, map[string]any{"doc": d, "n": added[d]})
	}
	return exec(ctx, tx, `UNWIND $counts AS row
		MATCH (d:Document {id: row.doc})
		SET d.relationCount = coalesce(d.relationCount, 0) + row.n`, map[string]any{"counts": counts})
}

// readRelations returns the stored relations among rs by ID, with their provenance and without vectors.
func readRelations(ctx context.Context, tx neo4j.ManagedTransaction, rs []graphrag.Relation) (map[string]graphrag.Relation, error) {
	keys := make([]map[string]any, len(rs))
	for i, r := range rs {
		keys[i] = map[string]any{"id": r.ID, "source": r.Source, "target": r.Target}
	}
	records, err := query(ctx, tx, `UNWIND $rows AS row
		MATCH (:Entity {key: row.source})-[r:RELATED {id: row.id}]->(:Entity {key: row.target})
		RETURN r.id, r.type, r.description, r.values, r.chunkIds, r.docIds, row.source, row.target`,
		map[string]any{"rows": keys})
	if err != nil {
		return nil, err
	}
	out := make(map[string]graphrag.Relation, len(records))
	for _, rec := range records {
		r := graphrag.Relation{ID: asString(rec.Values[0]), Type: asString(rec.Values[1]), Description: asString(rec.Values[2]),
			ChunkIDs: asStrings(rec.Values[4]), DocIDs: asStrings(rec.Values[5]),
			Source: asString(rec.Values[6]), Target: asString(rec.Values[7])}
		if v := asString(rec.Values[3]); v != "" {
			if err := json.Unmarshal([]byte(v), &r.Values); err != nil {
				return nil, fmt.Errorf("relation %s stored values: %w", r.ID, err)
			}
		}
		out[r.ID] = r
	}
	return out, nil
}

// known returns the chunk IDs that are in the store.
func known(ids []string, docOf map[string]string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, ok := docOf[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

// docsOf returns the sorted documents of chunks.
func docsOf(chunks []string, docOf map[string]string) []string {
	docs := make([]string, len(chunks))
	for i, id := range chunks {
		docs[i] = docOf[id]
	}
	return graphrag.SortedUnion(docs)
}

// nonNil is s, or an empty list where s is nil: Neo4j stores no null in a list property.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// union returns the sorted union of a and b without empty strings or repeats.
func union(a, b []string) []string { return nonNil(graphrag.SortedUnion(a, b)) }
