package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// PutExtraction merges a chunk's entities by key and relations by ID and marks the chunk extracted, in
// one transaction. Every entity and both ends of every relation are recorded as mentioned by the chunk,
// so an entity lives exactly while some chunk mentions it and a relation's ends outlive the relation. An
// entity without a key gets graphrag.NormalizeKey of its name, a relation without an ID
// graphrag.RelationID. An unknown chunk is ErrNotFound.
func (s *Store) PutExtraction(ctx context.Context, x graphrag.Extraction) error {
	err := s.write(ctx, "put extraction", func(tx *sql.Tx) error {
		if err := requireChunk(ctx, tx, x.ChunkID); err != nil {
			return err
		}
		for _, e := range x.Entities {
			if e.Key == "" {
				e.Key = graphrag.NormalizeKey(e.Name)
			}
			if e.Key == "" {
				continue
			}
			if err := mergeEntity(ctx, tx, e); err != nil {
				return fmt.Errorf("entity %q: %w", e.Key, err)
			}
			if err := addMentions(ctx, tx, e.Key, append([]string{x.ChunkID}, e.ChunkIDs...)); err != nil {
				return fmt.Errorf("entity %q: %w", e.Key, err)
			}
		}
		for _, r := range x.Relations {
			if r.Source == "" || r.Target == "" {
				continue
			}
			if r.ID == "" {
				r.ID = graphrag.RelationID(r.Source, r.Type, r.Target)
			}
			if err := putRelation(ctx, tx, r, x.ChunkID, s.dim); err != nil {
				return fmt.Errorf("relation %s: %w", r.ID, err)
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE chunks SET status = 'extracted', error = '' WHERE id = ?`, x.ChunkID)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: put extraction of %s: %w", x.ChunkID, err)
	}
	return nil
}

// MarkChunkFailed ends a chunk's extraction with a reason; an unknown chunk is ErrNotFound.
func (s *Store) MarkChunkFailed(ctx context.Context, chunkID, reason string) error {
	err := s.write(ctx, "mark chunk failed", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE chunks SET status = 'failed', error = ? WHERE id = ?`, reason, chunkID)
		if err != nil {
			return err
		}
		return requireRow(res, "chunk", chunkID)
	})
	if err != nil {
		return fmt.Errorf("sqlite: mark chunk %s failed: %w", chunkID, err)
	}
	return nil
}

func requireChunk(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM chunks WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("no chunk %q: %w", id, graphrag.ErrNotFound)
	}
	return err
}

// mergeEntity inserts e or merges it into the stored entity of its key: the first name and type stay,
// aliases are unioned with e's name, the longer description wins. An unchanged entity is not rewritten,
// which spares its full-text entry.
func mergeEntity(ctx context.Context, tx *sql.Tx, e graphrag.Entity) error {
	var name, typ, desc, aliasJSON string
	err := tx.QueryRowContext(ctx, `SELECT name, type, description, aliases FROM entities WHERE key = ?`, e.Key).
		Scan(&name, &typ, &desc, &aliasJSON)
	if errors.Is(err, sql.ErrNoRows) {
		if e.Name == "" {
			e.Name = e.Key
		}
		aliases, err := json.Marshal(mergeSorted(e.Aliases, []string{e.Name}))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO entities (key, name, type, description, aliases) VALUES (?, ?, ?, ?, ?)`,
			e.Key, e.Name, e.Type, e.Description, string(aliases))
		return err
	}
	if err != nil {
		return err
	}
	var old []string
	if err := json.Unmarshal([]byte(aliasJSON), &old); err != nil {
		return fmt.Errorf("aliases: %w", err)
	}
	merged := mergeSorted(old, append(slices.Clone(e.Aliases), e.Name))
	newType, newDesc := typ, desc
	if newType == "" {
		newType = e.Type
	}
	if len(e.Description) > len(desc) {
		newDesc = e.Description
	}
	if slices.Equal(merged, old) && newType == typ && newDesc == desc {
		return nil
	}
	aliases, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE entities SET type = ?, description = ?, aliases = ? WHERE key = ?`,
		newType, newDesc, string(aliases), e.Key)
	return err
}

// addMentions records that these chunks mention the entity; chunk IDs not in the store are skipped.
func addMentions(ctx context.Context, tx *sql.Tx, key string, chunkIDs []string) error {
	for _, id := range unique(chunkIDs) {
		_, err := tx.ExecContext(ctx, `INSERT INTO mentions (entity_key, chunk_id)
			SELECT ?, id FROM chunks WHERE id = ? ON CONFLICT DO NOTHING`, key, id)
		if err != nil {
			return err
		}
	}
	return nil
}

// putRelation makes sure both ends exist and are mentioned by the supporting chunks, merges the relation
// and records its support.
func putRelation(ctx context.Context, tx *sql.Tx, r graphrag.Relation, chunkID string, dim int) error {
	support := append([]string{chunkID}, r.ChunkIDs...)
	ends := []struct{ key, name string }{{r.Source, r.SourceName}, {r.Target, r.TargetName}}
	for _, end := range ends {
		name := end.name
		if name == "" {
			name = end.key
		}
		aliases, err := json.Marshal([]string{name})
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO entities (key, name, aliases) VALUES (?, ?, ?)
			ON CONFLICT (key) DO NOTHING`, end.key, name, string(aliases))
		if err != nil {
			return err
		}
		if err := addMentions(ctx, tx, end.key, support); err != nil {
			return err
		}
	}
	if err := mergeRelation(ctx, tx, r, dim); err != nil {
		return err
	}
	for _, id := range unique(support) {
		_, err := tx.ExecContext(ctx, `INSERT INTO relation_chunks (relation_id, chunk_id)
			SELECT ?, id FROM chunks WHERE id = ? ON CONFLICT DO NOTHING`, r.ID, id)
		if err != nil {
			return err
		}
	}
	return nil
}

// mergeRelation inserts r or merges it into the stored relation of its ID: ends and type stay, the
// longer description wins, values are merged with r's taking precedence.
func mergeRelation(ctx context.Context, tx *sql.Tx, r graphrag.Relation, dim int) error {
	var vec []byte
	if r.Embedding != nil {
		if len(r.Embedding) != dim {
			return fmt.Errorf("relation %s: vector of dimension %d, the store's is %d: %w", r.ID, len(r.Embedding), dim, graphrag.ErrDimension)
		}
		vec = encodeVector(r.Embedding)
	}
	var desc, valJSON string
	var oldVec []byte
	err := tx.QueryRowContext(ctx, `SELECT description, vals, embedding FROM relations WHERE id = ?`, r.ID).Scan(&desc, &valJSON, &oldVec)
	if errors.Is(err, sql.ErrNoRows) {
		typ := r.Type
		if typ == "" {
			typ = graphrag.NormalizeRelationType("")
		}
		vals, err := json.Marshal(nonNilMap(r.Values))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO relations (id, source, target, type, description, vals, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Source, r.Target, typ, r.Description, string(vals), vec)
		return err
	}
	if err != nil {
		return err
	}
	old := map[string]any{}
	if err := json.Unmarshal([]byte(valJSON), &old); err != nil {
		return fmt.Errorf("values: %w", err)
	}
	merged := maps.Clone(old)
	maps.Copy(merged, r.Values)
	newDesc := desc
	if len(r.Description) > len(desc) {
		newDesc = r.Description
	}
	vals, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	if vec == nil {
		vec = oldVec // a relation's sentence names its ends and type, which stay: its vector stays too
	}
	if newDesc == desc && jsonEqual(vals, valJSON) && bytes.Equal(vec, oldVec) {
		return nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE relations SET description = ?, vals = ?, embedding = ? WHERE id = ?`,
		newDesc, string(vals), vec, r.ID)
	return err
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// mergeSorted is the sorted union of a and b without empty strings.
func mergeSorted(a, b []string) []string {
	out := unique(append(slices.Clone(a), b...))
	slices.Sort(out)
	return out
}
