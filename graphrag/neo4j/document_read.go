package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// documentQuery returns the documents matched by where (a clause binding d) with their counts, newest
// first. Chunk and entity counts are read from the document's chunks; the relation count is the counter
// PutExtraction keeps on the document, since counting relations here would walk every relation of every
// entity the document mentions (all of a hub's, for each chunk that names it).
func documentQuery(where string) string {
	return `MATCH (d:Document) ` + where + `
		CALL (d) {
			OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
			RETURN count(c) AS chunks,
				count(CASE WHEN c.embedded THEN 1 END) AS embedded,
				count(CASE WHEN c.status IN ['extracted', 'failed'] THEN 1 END) AS extracted,
				count(CASE WHEN c.status = 'failed' THEN 1 END) AS failed
		}
		CALL (d) {
			OPTIONAL MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity)
			RETURN count(DISTINCT e) AS entities
		}
		RETURN d {.*, chunks: chunks, embedded: embedded, extracted: extracted, failed: failed,
			entities: entities, relations: coalesce(d.relationCount, 0)} AS doc
		ORDER BY d.createdAt DESC, d.id`
}

// readDocuments runs documentQuery in tx.
func readDocuments(ctx context.Context, tx neo4j.ManagedTransaction, where string, params map[string]any) ([]graphrag.Document, error) {
	records, err := query(ctx, tx, documentQuery(where), params)
	if err != nil {
		return nil, err
	}
	docs := make([]graphrag.Document, 0, len(records))
	for _, v := range column(records) {
		docs = append(docs, documentFrom(asMap(v)))
	}
	return docs, nil
}

// readDocument returns one document with its counts, or ErrNotFound.
func readDocument(ctx context.Context, tx neo4j.ManagedTransaction, id string) (graphrag.Document, error) {
	docs, err := readDocuments(ctx, tx, "WHERE d.id = $id", map[string]any{"id": id})
	if err != nil {
		return graphrag.Document{}, err
	}
	if len(docs) == 0 {
		return graphrag.Document{}, fmt.Errorf("document %s: %w", id, graphrag.ErrNotFound)
	}
	return docs[0], nil
}

func documentFrom(m map[string]any) graphrag.Document {
	return graphrag.Document{
		ID:              asString(m["id"]),
		Name:            asString(m["name"]),
		Title:           asString(m["title"]),
		Format:          asString(m["format"]),
		Hash:            asString(m["hash"]),
		Size:            int64(asInt(m["size"])),
		Status:          graphrag.DocStatus(asString(m["status"])),
		Error:           asString(m["error"]),
		Replaces:        asString(m["replaces"]),
		CreatedAt:       asTime(m["createdAt"]),
		UpdatedAt:       asTime(m["updatedAt"]),
		Chunks:          asInt(m["chunks"]),
		ChunksEmbedded:  asInt(m["embedded"]),
		ChunksExtracted: asInt(m["extracted"]),
		FailedChunks:    asInt(m["failed"]),
		Entities:        asInt(m["entities"]),
		Relations:       asInt(m["relations"]),
	}
}

// Document returns one document with its counts, or ErrNotFound.
func (s *Store) Document(ctx context.Context, id string) (graphrag.Document, error) {
	var doc graphrag.Document
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		doc, err = readDocument(ctx, tx, id)
		return err
	})
	if err != nil {
		return graphrag.Document{}, fmt.Errorf("neo4j: read document: %w", err)
	}
	return doc, nil
}

// Documents lists every document with its counts, newest first.
func (s *Store) Documents(ctx context.Context) ([]graphrag.Document, error) {
	var docs []graphrag.Document
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		docs, err = readDocuments(ctx, tx, "", nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: list documents: %w", err)
	}
	return docs, nil
}

// DocumentsNamed lists the documents whose file name is name, with their counts, newest first.
func (s *Store) DocumentsNamed(ctx context.Context, name string) ([]graphrag.Document, error) {
	var docs []graphrag.Document
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		docs, err = readDocuments(ctx, tx, "WHERE d.name = $name", map[string]any{"name": name})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: documents named %q: %w", name, err)
	}
	return docs, nil
}

// DocumentSource returns the bytes a document was uploaded with, or ErrNotFound.
func (s *Store) DocumentSource(ctx context.Context, id string) ([]byte, error) {
	var src []byte
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (d:Document {id: $id})
			OPTIONAL MATCH (d)-[:HAS_SOURCE]->(s:Source)
			RETURN coalesce(s.bytes, '') AS bytes`, map[string]any{"id": id})
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return fmt.Errorf("document %s: %w", id, graphrag.ErrNotFound)
		}
		src = asBytes(first(records))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: read document source: %w", err)
	}
	return src, nil
}
