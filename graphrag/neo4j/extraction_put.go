package neo4j

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// PutExtraction merges a chunk's entities by key and relations by ID and marks the chunk extracted, in one
// transaction that is safe to repeat. Every entity and both ends of every relation are recorded as
// MENTIONS of the supporting chunks, so an entity lives exactly while some chunk mentions it, and the
// relations a document supports are reachable from its chunks. Entity merge: the first name and type
// stay, aliases are unioned with the name, the longer description wins. Relation merge: ends and type
// stay, the longer description wins, values are merged with the new ones taking precedence, supporting
// chunks (those in the store) are unioned. An entity without a key gets graphrag.NormalizeKey of its name,
// a relation without an ID graphrag.RelationID. An unknown chunk is ErrNotFound.
//
// Locks: the transaction writes the chunk, then every entity it touches in key order, before it reads or
// writes any relation. Parallel extractions sharing entities therefore queue on the first shared entity
// instead of deadlocking, a relation is only ever merged and its values read while both its ends are
// locked (so no duplicate edge and no lost update), and the uniqueness constraint on Entity.key makes
// MERGE create each entity once. Deadlocks that remain are transient errors the driver retries.
func (s *Store) PutExtraction(ctx context.Context, x graphrag.Extraction) error {
	for _, r := range x.Relations {
		if r.Embedding != nil && len(r.Embedding) != s.opt.EmbedDim {
			return fmt.Errorf("neo4j: put extraction of %s: relation %s has %d dimensions, the store %d: %w",
				x.ChunkID, r.ID, len(r.Embedding), s.opt.EmbedDim, graphrag.ErrDimension)
		}
	}
	plan := planExtraction(x)
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return plan.apply(ctx, tx)
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

// entityRow is one entity to merge. merge is false for an entity only named as a relation's end: it is
// created when missing but an existing one is left as it is.
type entityRow struct {
	key, name, typ, description string
	aliases, chunkIDs           []string
	merge                       bool
}

// extractionPlan is an extraction resolved and ordered for writing.
type extractionPlan struct {
	chunkID   string
	entities  []*entityRow // sorted by key: the lock order
	relations []graphrag.Relation
}

// planExtraction fills missing keys and IDs, folds repeated entities into one row, adds relation ends
// and the chunks that must mention them, and sorts everything into lock order.
func planExtraction(x graphrag.Extraction) extractionPlan {
	rows := map[string]*entityRow{}
	for _, e := range x.Entities {
		if e.Key == "" {
			e.Key = graphrag.NormalizeKey(e.Name)
		}
		if e.Key == "" {
			continue
		}
		if e.Name == "" {
			e.Name = e.Key
		}
		row := rows[e.Key]
		if row == nil {
			row = &entityRow{key: e.Key, name: e.Name, typ: e.Type, merge: true}
			rows[e.Key] = row
		}
		if row.typ == "" {
			row.typ = e.Type
		}
		if utf8.RuneCountInString(e.Description) > utf8.RuneCountInString(row.description) {
			row.description = e.Description
		}
		row.aliases = union(row.aliases, append(slices.Clone(e.Aliases), e.Name))
		row.chunkIDs = union(row.chunkIDs, append([]string{x.ChunkID}, e.ChunkIDs...))
	}
	byID := map[string]*graphrag.Relation{}
	for _, r := range x.Relations {
		if r.Source == "" || r.Target == "" {
			continue
		}
		if r.ID == "" {
			r.ID = graphrag.RelationID(r.Source, r.Type, r.Target)
		}
		if r.Type == "" {
			r.Type = graphrag.NormalizeRelationType("")
		}
		r.ChunkIDs = union([]string{x.ChunkID}, r.ChunkIDs)
		if prev := byID[r.ID]; prev != nil {
			r = foldRelation(*prev, r)
		}
		byID[r.ID] = &r
		for _, end := range [][2]string{{r.Source, r.SourceName}, {r.Target, r.TargetName}} {
			row := rows[end[0]]
			if row == nil {
				name := cmp.Or(end[1], end[0])
				row = &entityRow{key: end[0], name: name, aliases: []string{name}}
				rows[end[0]] = row
			}
			row.chunkIDs = union(row.chunkIDs, r.ChunkIDs)
		}
	}
	plan := extractionPlan{chunkID: x.ChunkID}
	for _, key := range slices.Sorted(maps.Keys(rows)) {
		plan.entities = append(plan.entities, rows[key])
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		plan.relations = append(plan.relations, *byID[id])
	}
	return plan
}

// foldRelation merges a relation named twice in one extraction the way the store merges it.
func foldRelation(prev, r graphrag.Relation) graphrag.Relation {
	if utf8.RuneCountInString(prev.Description) > utf8.RuneCountInString(r.Description) {
		r.Description = prev.Description
	}
	values := maps.Clone(prev.Values)
	if values == nil {
		values = map[string]any{}
	}
	maps.Copy(values, r.Values)
	r.Values = values
	r.Type = prev.Type
	r.ChunkIDs = union(prev.ChunkIDs, r.ChunkIDs)
	if r.Embedding == nil {
		r.Embedding = prev.Embedding
	}
	return r
}

// apply writes the plan in tx. It reads nothing it has not locked and keeps no state between runs, so
// the driver may run it again after a deadlock.
func (p extractionPlan) apply(ctx context.Context, tx neo4j.ManagedTransaction) error {
	docOf, err := p.lockChunks(ctx, tx)
	if err != nil {
		return err
	}
	if err := p.mergeEntities(ctx, tx, docOf); err != nil {
		return fmt.Errorf("entities: %w", err)
	}
	if err := p.mergeRelations(ctx, tx, docOf); err != nil {
		return fmt.Errorf("relations: %w", err)
	}
	return nil
}

// lockChunks marks the chunk extracted (taking its lock first) and returns the document of every chunk
// the plan names that is in the store.
func (p extractionPlan) lockChunks(ctx context.Context, tx neo4j.ManagedTransaction) (map[string]string, error) {
	records, err := query(ctx, tx, `MATCH (c:Chunk {id: $id}) SET c.status = 'extracted', c.error = '' RETURN c.docId`,
		map[string]any{"id": p.chunkID})
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("no chunk %q: %w", p.chunkID, graphrag.ErrNotFound)
	}
	docOf := map[string]string{p.chunkID: asString(first(records))}
	var others []string
	for _, row := range p.entities {
		others = union(others, row.chunkIDs)
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

// mergeEntities merges every entity row in key order, refreshes its full-text field (a write, so every
// entity is locked even when nothing else changes) and records the mentions of the chunks in the store.
func (p extractionPlan) mergeEntities(ctx context.Context, tx neo4j.ManagedTransaction, docOf map[string]string) error {
	// Lock the entities that exist, in key order, before MERGE reads any of them: MERGE takes shared
	// locks on what it matches, and two transactions upgrading shared locks on one node deadlock.
	keys := make([]string, len(p.entities))
	for i, e := range p.entities {
		keys[i] = e.key
	}
	err := exec(ctx, tx, `UNWIND $keys AS key
		MATCH (e:Entity {key: key})
		SET e.searchText = e.searchText`, map[string]any{"keys": keys})
	if err != nil {
		return err
	}
	rows := make([]map[string]any, len(p.entities))
	for i, e := range p.entities {
		rows[i] = map[string]any{
			"key": e.key, "name": e.name, "type": e.typ, "description": e.description, "aliases": e.aliases,
			"chunkIds": known(e.chunkIDs, docOf), "merge": e.merge,
		}
	}
	return exec(ctx, tx, `UNWIND $rows AS row
		MERGE (e:Entity {key: row.key})
		ON CREATE SET e.name = row.name, e.type = row.type, e.description = row.description, e.aliases = []
		SET e.type = CASE WHEN row.merge AND e.type = '' THEN row.type ELSE e.type END,
			e.description = CASE WHEN row.merge AND size(row.description) > size(e.description)
				THEN row.description ELSE e.description END,
			e.aliases = CASE WHEN row.merge OR size(e.aliases) = 0
				THEN reduce(acc = e.aliases, a IN row.aliases | CASE WHEN a IN acc THEN acc ELSE acc + a END)
				ELSE e.aliases END
		SET e.searchText = reduce(t = e.name, a IN e.aliases | t + ' ' + a)
		WITH e, row
		UNWIND row.chunkIds AS cid
		MATCH (c:Chunk {id: cid})
		MERGE (c)-[:MENTIONS]->(e)`, map[string]any{"rows": rows})
}

// mergeRelations reads the stored values and documents of the plan's relations (their ends are locked by
// now), merges the values in Go, merges the relations with their provenance, and adds to each document's
// relation counter the relations it newly supports. A document leaves a relation's docIds only when it is
// deleted itself, so the counters stay exact without ever counting edges.
func (p extractionPlan) mergeRelations(ctx context.Context, tx neo4j.ManagedTransaction, docOf map[string]string) error {
	if len(p.relations) == 0 {
		return nil
	}
	keys := make([]map[string]any, len(p.relations))
	for i, r := range p.relations {
		keys[i] = map[string]any{"id": r.ID, "source": r.Source, "target": r.Target}
	}
	records, err := query(ctx, tx, `UNWIND $rows AS row
		MATCH (:Entity {key: row.source})-[r:RELATED {id: row.id}]->(:Entity {key: row.target})
		RETURN r.id, r.values, r.docIds`, map[string]any{"rows": keys})
	if err != nil {
		return err
	}
	storedValues, storedDocs := map[string]string{}, map[string][]string{}
	for _, rec := range records {
		id := asString(rec.Values[0])
		storedValues[id], storedDocs[id] = asString(rec.Values[1]), asStrings(rec.Values[2])
	}
	rows := make([]map[string]any, len(p.relations))
	added := map[string]int{}
	for i, r := range p.relations {
		values, err := mergeValues(storedValues[r.ID], r.Values)
		if err != nil {
			return fmt.Errorf("relation %s: %w", r.ID, err)
		}
		chunks := known(r.ChunkIDs, docOf)
		docs := docsOf(chunks, docOf)
		for _, d := range docs {
			if !slices.Contains(storedDocs[r.ID], d) {
				added[d]++
			}
		}
		rows[i] = map[string]any{
			"id": r.ID, "source": r.Source, "target": r.Target, "type": r.Type, "description": r.Description,
			"values": values, "chunkIds": chunks, "docIds": docs, "embedding": nil,
		}
		if r.Embedding != nil {
			rows[i]["embedding"] = float64s(r.Embedding)
		}
	}
	err = exec(ctx, tx, `UNWIND $rows AS row
		MATCH (a:Entity {key: row.source}), (b:Entity {key: row.target})
		MERGE (a)-[r:RELATED {id: row.id}]->(b)
		ON CREATE SET r.type = row.type, r.description = row.description, r.chunkIds = [], r.docIds = []
		SET r.description = CASE WHEN size(row.description) > size(r.description) THEN row.description ELSE r.description END,
			r.values = row.values,
			r.embedding = coalesce(row.embedding, r.embedding),
			r.chunkIds = reduce(acc = r.chunkIds, x IN row.chunkIds | CASE WHEN x IN acc THEN acc ELSE acc + x END),
			r.docIds = reduce(acc = r.docIds, x IN row.docIds | CASE WHEN x IN acc THEN acc ELSE acc + x END)`,
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

// mergeValues overlays values on the stored JSON object and returns the result as JSON.
func mergeValues(stored string, values map[string]any) (string, error) {
	merged := map[string]any{}
	if stored != "" {
		if err := json.Unmarshal([]byte(stored), &merged); err != nil {
			return "", fmt.Errorf("stored values: %w", err)
		}
	}
	maps.Copy(merged, values)
	b, err := json.Marshal(merged)
	if err != nil {
		return "", fmt.Errorf("values: %w", err)
	}
	return string(b), nil
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
	var docs []string
	for _, id := range chunks {
		docs = union(docs, []string{docOf[id]})
	}
	return docs
}

// union returns the sorted union of a and b without empty strings or repeats.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range append(slices.Clone(a), b...) {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
