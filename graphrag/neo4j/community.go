package neo4j

import (
	"context"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// GraphLinks returns every relation as its ends and the chunks supporting it, by relation ID.
func (s *Store) GraphLinks(ctx context.Context) ([]graphrag.Link, error) {
	var out []graphrag.Link
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (a:Entity)-[r:RELATED]->(b:Entity)
			RETURN r.id, a.key, b.key, r.chunkIds ORDER BY r.id`, nil)
		if err != nil {
			return err
		}
		out = make([]graphrag.Link, 0, len(records))
		for _, rec := range records {
			v := rec.Values
			out = append(out, graphrag.Link{ID: asString(v[0]), Source: asString(v[1]), Target: asString(v[2]),
				ChunkIDs: asStrings(v[3])})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: graph links: %w", err)
	}
	return out, nil
}

// PutCommunities replaces the stored communities by cs; one stored with the same ID and signature keeps
// its summary.
func (s *Store) PutCommunities(ctx context.Context, cs []graphrag.Community) error {
	rows := make([]map[string]any, len(cs))
	for i, c := range cs {
		rows[i] = map[string]any{
			"id": c.ID, "ordinal": i, "signature": c.Signature, "entities": nonNil(c.Entities),
			"relations": nonNil(c.Relations), "chunkIds": nonNil(c.ChunkIDs), "weight": c.Weight,
		}
	}
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := exec(ctx, tx, `MATCH (c:Community) WHERE NOT c.id IN [row IN $rows | row.id] DETACH DELETE c`,
			map[string]any{"rows": rows}); err != nil {
			return err
		}
		return exec(ctx, tx, `UNWIND $rows AS row
			MERGE (c:Community {id: row.id})
			WITH c, row, coalesce(c.signature = row.signature, false) AS same
			SET c.ordinal = row.ordinal, c.signature = row.signature, c.entities = row.entities,
				c.relations = row.relations, c.chunkIds = row.chunkIds, c.weight = row.weight,
				c.title = CASE WHEN same THEN coalesce(c.title, '') ELSE '' END,
				c.summary = CASE WHEN same THEN coalesce(c.summary, '') ELSE '' END,
				c.summarizedAt = CASE WHEN same THEN c.summarizedAt ELSE null END`,
			map[string]any{"rows": rows})
	})
	if err != nil {
		return fmt.Errorf("neo4j: put communities: %w", err)
	}
	return nil
}

// Communities returns the stored communities in the order they were put.
func (s *Store) Communities(ctx context.Context) ([]graphrag.Community, error) {
	var out []graphrag.Community
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Community)
			RETURN c {.id, .signature, .entities, .relations, .chunkIds, .weight, .title, .summary, .summarizedAt}
			ORDER BY c.ordinal`, nil)
		if err != nil {
			return err
		}
		out = make([]graphrag.Community, 0, len(records))
		for _, v := range column(records) {
			m := asMap(v)
			out = append(out, graphrag.Community{
				ID: asString(m["id"]), Signature: asString(m["signature"]), Entities: asStrings(m["entities"]),
				Relations: asStrings(m["relations"]), ChunkIDs: asStrings(m["chunkIds"]), Weight: asInt(m["weight"]),
				Title: asString(m["title"]), Summary: asString(m["summary"]), SummarizedAt: asTime(m["summarizedAt"]),
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: communities: %w", err)
	}
	return out, nil
}

// SetCommunitySummary records a summary for the community with this ID while it has this signature.
func (s *Store) SetCommunitySummary(ctx context.Context, id, signature, title, summary string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (c:Community {id: $id, signature: $signature})
			SET c.title = $title, c.summary = $summary, c.summarizedAt = $at RETURN c.id`,
			map[string]any{"id": id, "signature": signature, "title": title, "summary": summary, "at": time.Now().UTC()})
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("no community %s with signature %s: %w", id, signature, graphrag.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: set community summary: %w", err)
	}
	return nil
}
