package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// DeleteDocument removes a document and everything only it supports, in one transaction: its chunks
// (with their vectors, full-text entries and mentions), its source, its chunks' IDs from the relations
// they support (deleting the relations left with none) and the entities no chunk mentions any more.
// Entities and relations it shares keep the other documents' provenance. Deleting an unknown document
// does nothing.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := deleteDocumentTx(ctx, tx, id); err != nil {
			return err
		}
		return countChange(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete document: %w", err)
	}
	s.vectorsWritten()
	return nil
}

// deleteDocumentTx deletes a document and what only it supports in tx.
func deleteDocumentTx(ctx context.Context, tx neo4j.ManagedTransaction, id string) error {
	params := map[string]any{"id": id}
	records, err := query(ctx, tx, `MATCH (d:Document {id: $id})
		OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
		OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity)
		RETURN collect(DISTINCT c.id) AS chunkIds, collect(DISTINCT e.key) AS keys`, params)
	if err != nil {
		return err
	}
	if len(records) == 0 {
		return nil
	}
	params["chunkIds"] = records[0].Values[0]
	params["keys"] = records[0].Values[1]
	steps := []string{
		// Every chunk supporting a relation mentions its source entity, so the relations this
		// document supports are all reached from its chunks' mentions.
		`UNWIND $chunkIds AS cid
		MATCH (:Chunk {id: cid})-[:MENTIONS]->(:Entity)-[r:RELATED]->()
		WITH DISTINCT r
		WITH r, [x IN r.chunkIds WHERE NOT x IN $chunkIds] AS kept
		SET r.chunkIds = kept, r.support = size(kept), r.docIds = [x IN r.docIds WHERE x <> $id]
		WITH r WHERE size(r.chunkIds) = 0
		DELETE r`,
		`MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) DETACH DELETE c`,
		`UNWIND $keys AS key
		MATCH (e:Entity {key: key})
		WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
		DETACH DELETE e`,
		`MATCH (d:Document {id: $id})
		OPTIONAL MATCH (d)-[:HAS_SOURCE]->(src:Source)
		DETACH DELETE src, d`,
	}
	for _, step := range steps {
		if err := exec(ctx, tx, step, params); err != nil {
			return err
		}
	}
	return nil
}
