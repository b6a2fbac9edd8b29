package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Subgraph reads what a walk from the start entities and chunks reaches (see graphrag.GraphStore), in one
// read transaction of three queries: the start chunks' entities, the best supported relations touching
// those or the start entities, and the mentions of every entity met. The walk itself runs in Go.
func (s *Store) Subgraph(ctx context.Context, keys, chunkIDs []string, perEntity, maxRelations int) (graphrag.Subgraph, error) {
	sg := graphrag.Subgraph{Mentions: map[string][]string{}, Mentioned: map[string]int{}, ChunkEntities: map[string][]string{}}
	keys, chunkIDs = uniqueInOrder(keys), uniqueInOrder(chunkIDs)
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		sg = graphrag.Subgraph{Mentions: map[string][]string{}, Mentioned: map[string]int{}, ChunkEntities: map[string][]string{}}
		all := append([]string(nil), keys...)
		if len(chunkIDs) > 0 {
			records, err := query(ctx, tx, `UNWIND $ids AS id
				MATCH (c:Chunk {id: id})-[:MENTIONS]->(e:Entity)
				WITH id, e.key AS key ORDER BY id, key
				RETURN id, collect(key) AS keys`, map[string]any{"ids": chunkIDs})
			if err != nil {
				return err
			}
			for _, r := range records {
				ks := asStrings(r.Values[1])
				sg.ChunkEntities[asString(r.Values[0])] = ks
				all = append(all, ks...)
			}
		}
		all = uniqueInOrder(all)
		if len(all) == 0 {
			return nil
		}
		if maxRelations > 0 {
			records, err := query(ctx, tx, `MATCH (e:Entity)-[r:RELATED]-() WHERE e.key IN $keys
				WITH DISTINCT r
				WITH r, size(r.chunkIds) AS support ORDER BY support DESC, r.type, r.id LIMIT $max
				WITH r, support, startNode(r) AS a, endNode(r) AS b
				RETURN r {.id, .type, .description, .values, .chunkIds, .docIds, .embedding,
					source: a.key, target: b.key, sourceName: a.name, targetName: b.name} AS rel
				ORDER BY support DESC, r.type, r.id`, map[string]any{"keys": all, "max": maxRelations})
			if err != nil {
				return err
			}
			for _, v := range column(records) {
				e, err := edgeFrom(asMap(v), 1)
				if err != nil {
					return err
				}
				sg.Relations = append(sg.Relations, e.Relation)
				all = append(all, e.Source, e.Target)
			}
			all = uniqueInOrder(all)
		}
		records, err := query(ctx, tx, `UNWIND $keys AS key
			MATCH (e:Entity {key: key})
			CALL (e) {
				MATCH (c:Chunk)-[:MENTIONS]->(e)
				WITH c.id AS id ORDER BY id
				RETURN collect(id) AS ids
			}
			RETURN key, size(ids) AS n, ids[0..$per] AS ids`, map[string]any{"keys": all, "per": max(perEntity, 0)})
		if err != nil {
			return err
		}
		for _, r := range records {
			key := asString(r.Values[0])
			sg.Mentioned[key] = asInt(r.Values[1])
			if ids := asStrings(r.Values[2]); len(ids) > 0 {
				sg.Mentions[key] = ids
			}
		}
		return nil
	})
	if err != nil {
		return graphrag.Subgraph{}, fmt.Errorf("neo4j: subgraph: %w", err)
	}
	return sg, nil
}
