package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// GraphState reads the entities with these keys with their mentions, and every relation touching one of
// them with its vector and supporting chunks.
func (s *Store) GraphState(ctx context.Context, keys []string) (graphrag.GraphPatch, error) {
	keys = unique(keys)
	var p graphrag.GraphPatch
	ents, err := s.Entities(ctx, keys)
	if err != nil {
		return p, err
	}
	for _, e := range ents {
		e.DocIDs = nil
		p.Entities = append(p.Entities, e)
	}
	seen := map[string]bool{}
	for lo := 0; lo < len(keys); lo += batchSize {
		part := stringArgs(keys[lo:min(lo+batchSize, len(keys))])
		in := placeholders(len(part))
		ids, err := queryStrings(ctx, s.reader, `SELECT id FROM relations WHERE source IN (`+in+`) OR target IN (`+in+`)
			ORDER BY id`, append(part, part...)...)
		if err != nil {
			return p, fmt.Errorf("sqlite: graph state: %w", err)
		}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			r, err := s.stateRelation(ctx, id)
			if err != nil {
				return p, fmt.Errorf("sqlite: graph state: relation %s: %w", id, err)
			}
			p.Relations = append(p.Relations, r)
		}
	}
	return p, nil
}

// stateRelation reads one relation with its vector and supporting chunks.
func (s *Store) stateRelation(ctx context.Context, id string) (graphrag.Relation, error) {
	r := graphrag.Relation{ID: id}
	var vals string
	var vec []byte
	err := s.reader.QueryRowContext(ctx, `SELECT source, target, type, description, vals, embedding FROM relations WHERE id = ?`, id).
		Scan(&r.Source, &r.Target, &r.Type, &r.Description, &vals, &vec)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(vals), &r.Values); err != nil {
		return r, fmt.Errorf("values: %w", err)
	}
	if vec != nil {
		if r.Embedding, err = decodeVector(vec, len(vec)/4); err != nil {
			return r, err
		}
	}
	r.ChunkIDs, err = queryStrings(ctx, s.reader, `SELECT chunk_id FROM relation_chunks WHERE relation_id = ? ORDER BY chunk_id`, id)
	return r, err
}

// ApplyEdit writes patch and records e in one transaction; an edit already recorded changes nothing.
func (s *Store) ApplyEdit(ctx context.Context, e graphrag.Edit, patch graphrag.GraphPatch) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("sqlite: apply edit %s: %w", e.ID, err)
	}
	err = s.write(ctx, "apply edit", func(tx *sql.Tx) error {
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM edits WHERE id = ?`, e.ID).Scan(&one); {
		case err == nil:
			return nil
		case err != sql.ErrNoRows:
			return err
		}
		if err := applyPatch(ctx, tx, patch); err != nil {
			return err
		}
		created := e.CreatedAt
		if created.IsZero() {
			created = time.Now()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO edits (id, kind, status, created_at, body) VALUES (?, ?, ?, ?, ?)`,
			e.ID, string(e.Kind), string(e.Status), created.UnixNano(), string(body)); err != nil {
			return err
		}
		for _, k := range graphrag.EditKeys(e) {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO edit_keys (key, edit_id) VALUES (?, ?)`, k, e.ID); err != nil {
				return err
			}
		}
		if e.Target != "" && e.TargetStatus != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE edits SET status = ? WHERE id = ?`, string(e.TargetStatus), e.Target); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: apply edit %s: %w", e.ID, err)
	}
	return nil
}

// applyPatch deletes, then writes entities (fields and exact mentions), then relations (fields, vector and
// exact supports); mentions and supports of chunks not in the store are skipped.
func applyPatch(ctx context.Context, tx *sql.Tx, p graphrag.GraphPatch) error {
	if err := execBatches(ctx, tx, `DELETE FROM relations WHERE id IN (%s)`, p.DeleteRelations); err != nil {
		return err
	}
	if err := execBatches(ctx, tx, `DELETE FROM relations WHERE source IN (%s)`, p.DeleteEntities); err != nil {
		return err
	}
	if err := execBatches(ctx, tx, `DELETE FROM relations WHERE target IN (%s)`, p.DeleteEntities); err != nil {
		return err
	}
	if err := execBatches(ctx, tx, `DELETE FROM entities WHERE key IN (%s)`, p.DeleteEntities); err != nil {
		return err
	}
	for _, e := range p.Entities {
		aliases, err := json.Marshal(graphrag.SortedUnion(e.Aliases))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO entities (key, name, type, description, aliases) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET name = excluded.name, type = excluded.type,
				description = excluded.description, aliases = excluded.aliases`,
			e.Key, e.Name, e.Type, e.Description, string(aliases))
		if err != nil {
			return fmt.Errorf("entity %q: %w", e.Key, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM mentions WHERE entity_key = ?`, e.Key); err != nil {
			return err
		}
		if err := addMentions(ctx, tx, e.Key, e.ChunkIDs); err != nil {
			return fmt.Errorf("entity %q: %w", e.Key, err)
		}
	}
	for _, r := range p.Relations {
		if err := putPatchedRelation(ctx, tx, r); err != nil {
			return fmt.Errorf("relation %s: %w", r.ID, err)
		}
	}
	return nil
}

func putPatchedRelation(ctx context.Context, tx *sql.Tx, r graphrag.Relation) error {
	vals, err := json.Marshal(r.Values)
	if err != nil {
		return err
	}
	if r.Values == nil {
		vals = []byte("{}")
	}
	var vec []byte
	if r.Embedding != nil {
		vec = encodeVector(r.Embedding)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO relations (id, source, target, type, description, vals, embedding)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET source = excluded.source, target = excluded.target, type = excluded.type,
			description = excluded.description, vals = excluded.vals, embedding = excluded.embedding`,
		r.ID, r.Source, r.Target, r.Type, r.Description, string(vals), vec)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM relation_chunks WHERE relation_id = ?`, r.ID); err != nil {
		return err
	}
	for _, id := range unique(r.ChunkIDs) {
		_, err := tx.ExecContext(ctx, `INSERT INTO relation_chunks (relation_id, chunk_id)
			SELECT ?, id FROM chunks WHERE id = ? ON CONFLICT DO NOTHING`, r.ID, id)
		if err != nil {
			return err
		}
	}
	// a relation's ends are mentioned by the chunks that support it, as PutExtraction records them
	for _, end := range []string{r.Source, r.Target} {
		if err := addMentions(ctx, tx, end, r.ChunkIDs); err != nil {
			return err
		}
	}
	return nil
}

// Edits lists the edits q selects, newest first.
func (s *Store) Edits(ctx context.Context, q graphrag.EditQuery) ([]graphrag.Edit, error) {
	var where []string
	var args []any
	if q.ID != "" {
		where, args = append(where, "e.id = ?"), append(args, q.ID)
	}
	if len(q.Keys) > 0 {
		keys := unique(q.Keys)[:min(len(unique(q.Keys)), batchSize)]
		where = append(where, "e.id IN (SELECT edit_id FROM edit_keys WHERE key IN ("+placeholders(len(keys))+"))")
		args = append(args, stringArgs(keys)...)
	}
	if len(q.Kinds) > 0 {
		where = append(where, "e.kind IN ("+placeholders(len(q.Kinds))+")")
		for _, k := range q.Kinds {
			args = append(args, string(k))
		}
	}
	if len(q.Statuses) > 0 {
		where = append(where, "e.status IN ("+placeholders(len(q.Statuses))+")")
		for _, st := range q.Statuses {
			args = append(args, string(st))
		}
	}
	query := `SELECT e.status, e.created_at, e.body FROM edits e`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	query += " ORDER BY e.created_at DESC, e.id DESC LIMIT ?"
	rows, err := s.reader.QueryContext(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: edits: %w", err)
	}
	defer rows.Close()
	var out []graphrag.Edit
	for rows.Next() {
		var status, body string
		var created int64
		if err := rows.Scan(&status, &created, &body); err != nil {
			return nil, fmt.Errorf("sqlite: edits: %w", err)
		}
		var e graphrag.Edit
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, fmt.Errorf("sqlite: edits: %w", err)
		}
		e.Status, e.CreatedAt = graphrag.EditStatus(status), time.Unix(0, created).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: edits: %w", err)
	}
	return out, nil
}
