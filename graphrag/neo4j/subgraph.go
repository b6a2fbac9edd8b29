package neo4j

import (
	"context"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// Subgraph reads what a walk from the start entities and chunks reaches (see graphrag.GraphStore), in three
// statements of one round trip each (auto-commit: a read transaction would add its commit's, and reads
// are read-committed either way): the start chunks' entities, the best supported relations touching a
// start entity or supported by a start chunk (ranked by the support count each keeps, with their vectors
// as float32 bytes, whose similarity to the queries is computed here: relation_props.go), and the
// mentions of every entity met (counted, and the first perEntity read). The walk itself runs in Go.
func (s *Store) Subgraph(ctx context.Context, q graphrag.SubgraphQuery) (graphrag.Subgraph, error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-read
	defer s.searchMu.RUnlock()
	perEntity, maxRelations := q.PerEntity, q.MaxRelations
	keys, chunkIDs := uniqueInOrder(q.Keys), uniqueInOrder(q.ChunkIDs)
	vecs := make([][]float32, 0, len(q.Vectors))
	for _, v := range q.Vectors {
		if len(v) == s.embedDim() {
			vecs = append(vecs, v)
		}
	}
	sg := graphrag.Subgraph{Mentions: map[string][]string{}, Mentioned: map[string]int{}, ChunkEntities: map[string][]string{},
		Near: map[string]float64{}}
	all := append([]string(nil), keys...)
	if len(chunkIDs) > 0 {
		records, err := s.readRecords(ctx, `UNWIND $ids AS id
			MATCH (c:Chunk {id: id})-[:MENTIONS]->(e:Entity)
			WITH id, e.key AS key ORDER BY id, key
			RETURN id, collect(key) AS keys`, map[string]any{"ids": chunkIDs})
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("neo4j: subgraph: %w", err)
		}
		for _, r := range records {
			ks := asStrings(r.Values[1])
			sg.ChunkEntities[asString(r.Values[0])] = ks
			all = append(all, ks...)
		}
	}
	near := uniqueInOrder(all[len(keys):]) // the start chunks' entities
	near = near[:min(len(near), graphrag.MaxNear)]
	all = uniqueInOrder(all)
	if len(all) == 0 {
		return sg, nil
	}
	if maxRelations > 0 {
		records, err := s.readRecords(ctx, `CALL () {
				MATCH (e:Entity) WHERE e.key IN $keys AND COUNT { (e)-[:RELATED]-() } <= $hub
				MATCH (e)-[r:RELATED]-() RETURN r
				UNION
				MATCH (n:Entity) WHERE n.key IN $near
				WITH collect(n) AS ns
				UNWIND ns AS a
				WITH a, ns WHERE COUNT { (a)-[:RELATED]-() } <= $hub
				MATCH (a)-[r:RELATED]-(b) WHERE b IN ns RETURN r
			}
			WITH DISTINCT r
			WITH r, coalesce(r.support, 0) AS support ORDER BY support DESC, r.type, r.id LIMIT $max
			WITH r, support, startNode(r) AS a, endNode(r) AS b
			RETURN r {.id, .type, .description, .values, .chunkIds, .docIds,
				source: a.key, target: b.key, sourceName: a.name, targetName: b.name} AS rel,
				CASE WHEN $vectors THEN coalesce(r.embeddingF32, r.embedding) END AS vec
			ORDER BY support DESC, r.type, r.id`, map[string]any{"keys": keys, "near": near, "max": maxRelations,
			"vectors": len(vecs) > 0, "hub": graphrag.MaxHubRelations})
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("neo4j: subgraph: %w", err)
		}
		for _, rec := range records {
			e, err := edgeFrom(asMap(rec.Values[0]), 1)
			if err != nil {
				return graphrag.Subgraph{}, fmt.Errorf("neo4j: subgraph: %w", err)
			}
			sg.Near[e.ID] = graphrag.BestCosine(vectorOf(rec.Values[1]), vecs)
			sg.Relations = append(sg.Relations, e.Relation)
			all = append(all, e.Source, e.Target)
		}
		all = uniqueInOrder(all)
	}
	if err := s.readMentions(ctx, all, perEntity, &sg); err != nil {
		return graphrag.Subgraph{}, fmt.Errorf("neo4j: subgraph: %w", err)
	}
	return sg, nil
}

// readMentions sets each entity's mention count (the degree of its MENTIONS edges, which Neo4j keeps) and
// its first perEntity chunks in ID order, in one statement: an ordered, bounded read of the mentions'
// (entity, chunk) index for each entity, so that a hub's thousands of mentions are neither read nor
// sorted. An entity whose index read finds fewer mentions than it has and than asked (mentions an older
// Hopwise wrote after Open keyed them, see keyMentions) is read from its MENTIONS edges instead.
func (s *Store) readMentions(ctx context.Context, keys []string, perEntity int, sg *graphrag.Subgraph) error {
	per := max(perEntity, 0)
	records, err := s.readRecords(ctx, `UNWIND $keys AS key
		MATCH (e:Entity {key: key})
		WITH key, e, COUNT { ()-[:MENTIONS]->(e) } AS n
		CALL (key) {
			MATCH ()-[m:MENTIONS]->() WHERE m.entity = key AND m.chunk >= ''
			WITH m ORDER BY m.entity, m.chunk LIMIT $per
			RETURN collect(m.chunk) AS keyed
		}
		RETURN key, n, CASE WHEN size(keyed) >= n OR size(keyed) >= $per THEN keyed
			ELSE COLLECT { MATCH (c:Chunk)-[:MENTIONS]->(e) WITH c.id AS id ORDER BY id LIMIT $per RETURN id } END AS ids`,
		map[string]any{"keys": keys, "per": per})
	if err != nil {
		return err
	}
	for _, r := range records {
		key, n := asString(r.Values[0]), asInt(r.Values[1])
		sg.Mentioned[key] = n
		if ids := asStrings(r.Values[2]); len(ids) > 0 {
			slices.Sort(ids)
			sg.Mentions[key] = ids
		}
	}
	return nil
}
