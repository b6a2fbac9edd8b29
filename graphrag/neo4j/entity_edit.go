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

// GraphState reads the entities with these keys with their mentions, and every relation touching one of
// them with its vector and supporting chunks.
func (s *Store) GraphState(ctx context.Context, keys []string) (graphrag.GraphPatch, error) {
	keys = uniqueInOrder(keys)
	var p graphrag.GraphPatch
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		p = graphrag.GraphPatch{}
		records, err := query(ctx, tx, `UNWIND $keys AS key MATCH (e:Entity {key: key})
			RETURN `+entityProjection+` AS entity ORDER BY e.key`, map[string]any{"keys": keys})
		if err != nil {
			return err
		}
		for _, v := range column(records) {
			e := entityFrom(asMap(v))
			e.DocIDs = nil
			p.Entities = append(p.Entities, e)
		}
		records, err = query(ctx, tx, `UNWIND $keys AS key MATCH (:Entity {key: key})-[r:RELATED]-(:Entity)
			WITH DISTINCT r
			RETURN r.id, startNode(r).key, endNode(r).key, r.type, r.description, r.values, r.chunkIds, r.embedding
			ORDER BY r.id`, map[string]any{"keys": keys})
		if err != nil {
			return err
		}
		for _, rec := range records {
			r := graphrag.Relation{ID: asString(rec.Values[0]), Source: asString(rec.Values[1]), Target: asString(rec.Values[2]),
				Type: asString(rec.Values[3]), Description: asString(rec.Values[4]), ChunkIDs: union(nil, asStrings(rec.Values[6]))}
			if v := asString(rec.Values[5]); v != "" {
				if err := json.Unmarshal([]byte(v), &r.Values); err != nil {
					return fmt.Errorf("relation %s values: %w", r.ID, err)
				}
			}
			if rec.Values[7] != nil {
				r.Embedding = float32s(rec.Values[7])
			}
			p.Relations = append(p.Relations, r)
		}
		return nil
	})
	if err != nil {
		return graphrag.GraphPatch{}, fmt.Errorf("neo4j: graph state: %w", err)
	}
	return p, nil
}

// ApplyEdit writes patch and records e in one transaction; an edit already recorded changes nothing. The
// documents' relation counters follow the relations deleted and written.
func (s *Store) ApplyEdit(ctx context.Context, e graphrag.Edit, patch graphrag.GraphPatch) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("neo4j: apply edit %s: %w", e.ID, err)
	}
	created := e.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MERGE (x:Edit {id: $id})
			ON CREATE SET x.kind = $kind, x.status = $status, x.createdAt = $created, x.body = $body, x.keys = $keys, x.fresh = true
			WITH x, coalesce(x.fresh, false) AS fresh REMOVE x.fresh RETURN fresh`,
			map[string]any{"id": e.ID, "kind": string(e.Kind), "status": string(e.Status), "created": created.UnixNano(),
				"body": string(body), "keys": nonNil(graphrag.EditKeys(e))})
		if err != nil {
			return err
		}
		if fresh, _ := first(records).(bool); !fresh {
			return nil
		}
		if err := applyPatchTx(ctx, tx, patch); err != nil {
			return err
		}
		if e.Target != "" && e.TargetStatus != "" {
			return exec(ctx, tx, `MATCH (x:Edit {id: $id}) SET x.status = $status`,
				map[string]any{"id": e.Target, "status": string(e.TargetStatus)})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: apply edit %s: %w", e.ID, err)
	}
	return nil
}

// applyPatchTx deletes, then writes entities (fields and exact mentions), then relations (fields, vector,
// exact supports, and their ends mentioned by those chunks), keeping Document.relationCount exact.
func applyPatchTx(ctx context.Context, tx neo4j.ManagedTransaction, p graphrag.GraphPatch) error {
	ids := slices.Clone(p.DeleteRelations)
	for _, r := range p.Relations {
		ids = append(ids, r.ID)
	}
	// the relations that go, and what their documents counted
	records, err := query(ctx, tx, `UNWIND $ids AS id MATCH ()-[r:RELATED {id: id}]->() RETURN r.id, r.docIds
		UNION
		UNWIND $keys AS key MATCH (:Entity {key: key})-[r:RELATED]-() RETURN r.id, r.docIds`,
		map[string]any{"ids": nonNil(ids), "keys": nonNil(p.DeleteEntities)})
	if err != nil {
		return err
	}
	counts := map[string]int{}
	var gone []string
	for _, rec := range records {
		gone = append(gone, asString(rec.Values[0]))
		for _, d := range asStrings(rec.Values[1]) {
			counts[d]--
		}
	}
	steps := []struct {
		cypher string
		params map[string]any
	}{
		{`UNWIND $ids AS id MATCH ()-[r:RELATED {id: id}]->() DELETE r`, map[string]any{"ids": nonNil(gone)}},
		{`UNWIND $keys AS key MATCH (e:Entity {key: key}) DETACH DELETE e`, map[string]any{"keys": nonNil(p.DeleteEntities)}},
	}
	for _, st := range steps {
		if err := exec(ctx, tx, st.cypher, st.params); err != nil {
			return err
		}
	}
	rows := make([]map[string]any, len(p.Entities))
	for i, e := range p.Entities {
		rows[i] = entityParams(e, e.ChunkIDs)
	}
	err = exec(ctx, tx, `UNWIND $rows AS row
		MERGE (e:Entity {key: row.key})
		SET e.name = row.name, e.type = row.type, e.description = row.description, e.aliases = row.aliases,
			e.searchText = row.searchText
		WITH e, row
		OPTIONAL MATCH (:Chunk)-[m:MENTIONS]->(e)
		DELETE m
		WITH DISTINCT e, row
		UNWIND row.chunkIds AS cid
		MATCH (c:Chunk {id: cid})
		MERGE (c)-[n:MENTIONS]->(e) ON CREATE SET n.entity = e.key, n.chunk = c.id`, map[string]any{"rows": rows})
	if err != nil {
		return fmt.Errorf("entities: %w", err)
	}
	if err := writePatchedRelations(ctx, tx, p.Relations, counts); err != nil {
		return fmt.Errorf("relations: %w", err)
	}
	out := make([]map[string]any, 0, len(counts))
	for _, d := range slices.Sorted(maps.Keys(counts)) {
		if counts[d] != 0 {
			out = append(out, map[string]any{"doc": d, "n": counts[d]})
		}
	}
	return exec(ctx, tx, `UNWIND $counts AS row
		MATCH (d:Document {id: row.doc})
		SET d.relationCount = coalesce(d.relationCount, 0) + row.n`, map[string]any{"counts": out})
}

// writePatchedRelations creates the relations (the old ones of the same IDs are gone by now) supported by
// their chunks in the store, with those chunks' documents, and adds them to counts.
func writePatchedRelations(ctx context.Context, tx neo4j.ManagedTransaction, rels []graphrag.Relation, counts map[string]int) error {
	if len(rels) == 0 {
		return nil
	}
	var chunkIDs []string
	for _, r := range rels {
		chunkIDs = append(chunkIDs, r.ChunkIDs...)
	}
	records, err := query(ctx, tx, `UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.id, c.docId`,
		map[string]any{"ids": nonNil(graphrag.SortedUnion(chunkIDs))})
	if err != nil {
		return err
	}
	docOf := map[string]string{}
	for _, rec := range records {
		docOf[asString(rec.Values[0])] = asString(rec.Values[1])
	}
	rows := make([]map[string]any, 0, len(rels))
	for _, r := range rels {
		chunks := known(r.ChunkIDs, docOf)
		docs := docsOf(chunks, docOf)
		for _, d := range docs {
			counts[d]++
		}
		values, err := json.Marshal(r.Values)
		if err != nil {
			return fmt.Errorf("relation %s values: %w", r.ID, err)
		}
		row := map[string]any{"id": r.ID, "source": r.Source, "target": r.Target, "type": r.Type,
			"description": r.Description, "values": string(values), "chunkIds": nonNil(chunks), "docIds": nonNil(docs), "embedding": nil,
			"f32": nil}
		if r.Embedding != nil {
			row["embedding"], row["f32"] = float64s(r.Embedding), f32Bytes(r.Embedding)
		}
		rows = append(rows, row)
	}
	return exec(ctx, tx, `UNWIND $rows AS row
		MATCH (a:Entity {key: row.source}), (b:Entity {key: row.target})
		CREATE (a)-[r:RELATED {id: row.id}]->(b)
		SET r.type = row.type, r.description = row.description, r.values = row.values,
			r.chunkIds = row.chunkIds, r.support = size(row.chunkIds), r.docIds = row.docIds,
			r.embedding = row.embedding, r.embeddingF32 = row.f32
		WITH a, b, row
		UNWIND row.chunkIds AS cid
		MATCH (c:Chunk {id: cid})
		MERGE (c)-[ma:MENTIONS]->(a) ON CREATE SET ma.entity = a.key, ma.chunk = c.id
		MERGE (c)-[mb:MENTIONS]->(b) ON CREATE SET mb.entity = b.key, mb.chunk = c.id`, map[string]any{"rows": rows})
}

// Edits lists the edits q selects, newest first.
func (s *Store) Edits(ctx context.Context, q graphrag.EditQuery) ([]graphrag.Edit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	kinds := make([]string, len(q.Kinds))
	for i, k := range q.Kinds {
		kinds[i] = string(k)
	}
	statuses := make([]string, len(q.Statuses))
	for i, st := range q.Statuses {
		statuses[i] = string(st)
	}
	var out []graphrag.Edit
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		out = nil
		records, err := query(ctx, tx, `MATCH (x:Edit)
			WHERE ($id = '' OR x.id = $id)
				AND (size($statuses) = 0 OR x.status IN $statuses)
				AND (size($kinds) = 0 OR x.kind IN $kinds)
				AND (size($keys) = 0 OR any(k IN x.keys WHERE k IN $keys))
			RETURN x.status, x.createdAt, x.body ORDER BY x.createdAt DESC, x.id DESC LIMIT $limit`,
			map[string]any{"id": q.ID, "statuses": statuses, "kinds": kinds, "keys": nonNil(q.Keys), "limit": limit})
		if err != nil {
			return err
		}
		for _, rec := range records {
			var e graphrag.Edit
			if err := json.Unmarshal([]byte(asString(rec.Values[2])), &e); err != nil {
				return err
			}
			e.Status = graphrag.EditStatus(asString(rec.Values[0]))
			e.CreatedAt = time.Unix(0, int64(asInt(rec.Values[1]))).UTC()
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: edits: %w", err)
	}
	return out, nil
}
