package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// PutDocument stores a new document with its source bytes and returns it with created=true; when a
// document with the same ID exists it is returned unchanged with created=false. The source bytes live in
// a Source node of their own so that listing documents never loads them. Empty Hash, Size, Status and
// times are filled from source and the clock.
func (s *Store) PutDocument(ctx context.Context, doc graphrag.Document, source []byte) (graphrag.Document, bool, error) {
	if doc.ID == "" {
		return graphrag.Document{}, false, errors.New("neo4j: put document: empty ID")
	}
	if doc.Hash == "" {
		doc.Hash = graphrag.ContentHash(source)
	}
	if doc.Size == 0 {
		doc.Size = int64(len(source))
	}
	if doc.Status == "" {
		doc.Status = graphrag.StatusQueued
	}
	now := time.Now().UTC()
	created := doc.CreatedAt.UTC()
	if doc.CreatedAt.IsZero() {
		created = now
	}
	updated := doc.UpdatedAt.UTC()
	if doc.UpdatedAt.IsZero() {
		updated = created
	}
	if source == nil {
		source = []byte{}
	}
	props := map[string]any{
		"name": doc.Name, "title": doc.Title, "format": doc.Format, "hash": doc.Hash, "size": doc.Size,
		"status": string(doc.Status), "error": doc.Error, "createdAt": created, "updatedAt": updated,
		"replaces": doc.Replaces,
	}
	var stored graphrag.Document
	var isNew bool
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		// The marker is set only when MERGE creates the node and removed in the same transaction, so it
		// tells this transaction whether it created the document, even against a parallel upload.
		records, err := query(ctx, tx, `MERGE (d:Document {id: $id})
			ON CREATE SET d += $props, d.relationCount = 0, d.createdHere = true
			WITH d, d.createdHere IS NOT NULL AS created
			REMOVE d.createdHere
			RETURN created`, map[string]any{"id": doc.ID, "props": props})
		if err != nil {
			return err
		}
		isNew, _ = first(records).(bool)
		if isNew {
			err := exec(ctx, tx, `MATCH (d:Document {id: $id})
				MERGE (src:Source {docId: $id})
				SET src.bytes = $source
				MERGE (d)-[:HAS_SOURCE]->(src)`, map[string]any{"id": doc.ID, "source": source})
			if err != nil {
				return err
			}
		}
		stored, err = readDocument(ctx, tx, doc.ID)
		return err
	})
	if err != nil {
		return graphrag.Document{}, false, fmt.Errorf("neo4j: put document %s: %w", doc.ID, err)
	}
	return stored, isNew, nil
}

// SetDocumentStatus records a job step and its reason (cleared when empty); title and format change only
// when given.
func (s *Store) SetDocumentStatus(ctx context.Context, id string, status graphrag.DocStatus, reason string, meta graphrag.DocumentMeta) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (d:Document {id: $id})
			SET d.status = $status, d.error = $reason,
				d.updatedAt = CASE WHEN d.updatedAt > $now THEN d.updatedAt ELSE $now END,
				d.title = CASE WHEN $title = '' THEN d.title ELSE $title END,
				d.format = CASE WHEN $format = '' THEN d.format ELSE $format END
			RETURN d.id`, map[string]any{
			"id": id, "status": string(status), "reason": reason, "now": time.Now().UTC(),
			"title": meta.Title, "format": meta.Format,
		})
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("document %s: %w", id, graphrag.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: set document status: %w", err)
	}
	return nil
}
