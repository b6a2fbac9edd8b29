package neo4j

import (
	"context"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Index names, used by the queries that read them.
const (
	vectorIndex     = "chunk_embedding"
	chunkTextIndex  = "chunk_text"
	entityNameIndex = "entity_names"
	metaID          = "hopwise"
)

// schemaStatements create the constraints and indexes, each a no-op when it exists. Every node kind has a
// uniqueness constraint on its key, so MERGE by key never duplicates a node, even from parallel
// transactions, and lookups by key use the constraint's index.
var schemaStatements = []string{
	"CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT source_doc_id IF NOT EXISTS FOR (n:Source) REQUIRE n.docId IS UNIQUE",
	"CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE n.key IS UNIQUE",
	"CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (n:Conversation) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (n:Meta) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT edit_id IF NOT EXISTS FOR (n:Edit) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (n:Lease) REQUIRE n.name IS UNIQUE",
	"CREATE CONSTRAINT run_event_seq IF NOT EXISTS FOR (n:RunEvent) REQUIRE (n.runId, n.seq) IS UNIQUE",
	"CREATE INDEX related_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)",
	"CREATE INDEX edit_created IF NOT EXISTS FOR (n:Edit) ON (n.createdAt)",
	"CREATE CONSTRAINT edit_id IF NOT EXISTS FOR (n:Edit) REQUIRE n.id IS UNIQUE",
	"CREATE INDEX related_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)",
	"CREATE INDEX edit_created IF NOT EXISTS FOR (n:Edit) ON (n.createdAt)",
	"CREATE INDEX chunk_doc_ordinal IF NOT EXISTS FOR (n:Chunk) ON (n.docId, n.ordinal)",
	"CREATE INDEX chunk_embedded IF NOT EXISTS FOR (n:Chunk) ON (n.embedded)",
	"CREATE INDEX related_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)",
	// A mention carries its entity's key and its chunk's ID (keyMentions), so that an entity's first
	// mentions in chunk order are an ordered index read, not a sort of all of a hub's thousands.
	"CREATE INDEX mention_entity_chunk IF NOT EXISTS FOR ()-[m:MENTIONS]-() ON (m.entity, m.chunk)",
	"CREATE FULLTEXT INDEX " + chunkTextIndex + " IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text]",
	"CREATE FULLTEXT INDEX " + entityNameIndex + " IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.searchText]",
}

// ensureSchema checks that an existing database was built for the configured embeddings, then creates
// what is missing and records the embedding model and dimension in the Meta node.
func (s *Store) ensureSchema(ctx context.Context) error {
	dim, err := s.vectorIndexDim(ctx)
	if err != nil {
		return fmt.Errorf("neo4j: read vector index: %w", err)
	}
	if dim != 0 && dim != s.opt.EmbedDim {
		return fmt.Errorf("neo4j: the vector index %s on %s has dimension %d but the embedding model gives %d: "+
			"run `hopwise reindex --embeddings` to embed every passage again with the configured model (the "+
			"Status page of `hopwise serve` offers it too), or use the embedding model the database was built with: %w",
			slotIndex[s.slot], s.uri, dim, s.opt.EmbedDim, graphrag.ErrDimension)
	}
	if err := s.checkModel(ctx); err != nil {
		return err
	}
	// the records every workspace shares, created with the default's schema
	shared := slices.Concat(authSchemaStatements, workspaceSchemaStatements)
	if s.workspace != "" {
		shared = nil
	}
	stmts := append(slices.Concat(schemaStatements, shared), vectorIndexStatement(s.slot, s.opt.EmbedDim))
	for _, stmt := range stmts {
		err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			return exec(ctx, tx, stmt, nil)
		})
		if err != nil {
			return fmt.Errorf("neo4j: create schema (%s): %w", stmt, err)
		}
	}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := exec(ctx, tx, "CALL db.awaitIndexes(300)", nil); err != nil {
			return err
		}
		return exec(ctx, tx, `MERGE (m:Meta {id: $id})
			SET m.embedDim = $dim, m.embedModel = CASE WHEN $model = '' THEN m.embedModel ELSE $model END`,
			map[string]any{"id": metaID, "dim": s.opt.EmbedDim, "model": s.opt.EmbedModel})
	})
	if err != nil {
		return fmt.Errorf("neo4j: create schema: %w", err)
	}
	if err := s.keyMentions(ctx); err != nil {
		return err
	}
	return s.prepareRelations(ctx) // relation_props.go
}

// mentionKeysBatch is how many chunks' mentions keyMentions sets in one transaction.
const mentionKeysBatch = 2000

// keyMentions gives the mentions of a database written before they carried their ends' keys (m.entity,
// m.chunk, which every write of a mention now sets) those keys, a batch of chunks per transaction in
// chunk ID order, once: the Meta node records that it is done.
func (s *Store) keyMentions(ctx context.Context) error {
	keyed, err := s.backfill(ctx, "mentionsKeyed", mentionKeysBatch,
		func(ctx context.Context, tx neo4j.ManagedTransaction, after string) (int, string, error) {
			records, err := query(ctx, tx, `MATCH (c:Chunk) WHERE c.id > $after
				WITH c ORDER BY c.id LIMIT $batch
				CALL (c) {
					MATCH (c)-[m:MENTIONS]->(e:Entity) WHERE m.entity IS NULL OR m.chunk IS NULL
					SET m.entity = e.key, m.chunk = c.id
				}
				RETURN count(c), max(c.id)`, map[string]any{"after": after, "batch": mentionKeysBatch})
			if err != nil {
				return 0, "", err
			}
			return asInt(records[0].Values[0]), asString(records[0].Values[1]), nil
		})
	if err != nil {
		return fmt.Errorf("neo4j: key the mentions: %w", err)
	}
	if keyed > 0 {
		s.logger.Info("neo4j: mentions keyed for the subgraph's index", "chunks", keyed)
	}
	return nil
}

// backfill migrates a database once, unless its Meta node records flag, which it sets when done: step
// migrates the batch of up to batch items after the ID after, in a transaction of its own, and returns how
// many it read and the last one's ID; backfill ends at the first batch short of batch and returns the
// items read in all.
func (s *Store) backfill(ctx context.Context, flag string, batch int,
	step func(ctx context.Context, tx neo4j.ManagedTransaction, after string) (int, string, error)) (int, error) {
	done := false
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (m:Meta {id: $id}) RETURN coalesce(m[$flag], false)`,
			map[string]any{"id": metaID, "flag": flag})
		if err != nil {
			return err
		}
		done = len(records) > 0 && records[0].Values[0] == true
		return nil
	})
	if err != nil || done {
		return 0, err
	}
	after, total := "", 0
	for {
		n, last := 0, ""
		err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			var err error
			n, last, err = step(ctx, tx, after)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < batch {
			break
		}
		after = last
	}
	return total, s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MERGE (m:Meta {id: $id}) SET m += $done`, map[string]any{"id": metaID, "done": map[string]any{flag: true}})
	})
}

// vectorIndexDim returns the dimension of the existing vector index on chunk embeddings, or 0 when there
// is none.
func (s *Store) vectorIndexDim(ctx context.Context) (int, error) {
	var dim int
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
			WHERE type = 'VECTOR' AND (name = $name OR ($label IN labelsOrTypes AND $prop IN properties))
			RETURN options`, map[string]any{"name": slotIndex[s.slot], "label": "Chunk", "prop": slotProperty[s.slot]})
		if err != nil {
			return err
		}
		config := asMap(asMap(first(records))["indexConfig"])
		dim = asInt(config["vector.dimensions"])
		return nil
	})
	return dim, err
}

// checkModel refuses a database whose embedded chunks come from another embedding model than the one
// configured: their vectors cannot be compared with the new model's, even at the same dimension.
func (s *Store) checkModel(ctx context.Context) error {
	if s.opt.EmbedModel == "" {
		return nil
	}
	var model string
	var embedded int
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id})
			RETURN m.embedModel AS model, COUNT { MATCH (c:Chunk) WHERE c.embedded } AS embedded`,
			map[string]any{"id": metaID})
		if err != nil {
			return err
		}
		if len(records) > 0 {
			model, embedded = asString(records[0].Values[0]), asInt(records[0].Values[1])
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: read meta: %w", err)
	}
	if model == "" || embedded == 0 || model == s.opt.EmbedModel {
		return nil
	}
	return fmt.Errorf("neo4j: %s holds %d chunks embedded with %q but the embedding model is %q: "+
		"run `hopwise reindex --embeddings` to embed every passage again with it (the Status page of `hopwise serve` "+
		"offers it too), or use that model: %w", s.uri, embedded, model, s.opt.EmbedModel, graphrag.ErrDimension)
}
