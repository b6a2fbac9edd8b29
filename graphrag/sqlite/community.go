package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// GraphLinks returns every relation as its ends and the chunks supporting it, by relation ID.
func (s *Store) GraphLinks(ctx context.Context) ([]graphrag.Link, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT r.id, r.source, r.target,
		coalesce((SELECT json_group_array(rc.chunk_id) FROM relation_chunks rc WHERE rc.relation_id = r.id), '[]')
		FROM relations r ORDER BY r.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: graph links: %w", err)
	}
	defer rows.Close()
	var out []graphrag.Link
	for rows.Next() {
		var l graphrag.Link
		var chunks string
		if err := rows.Scan(&l.ID, &l.Source, &l.Target, &chunks); err != nil {
			return nil, fmt.Errorf("sqlite: graph links: %w", err)
		}
		if err := json.Unmarshal([]byte(chunks), &l.ChunkIDs); err != nil {
			return nil, fmt.Errorf("sqlite: graph links: relation %s chunks: %w", l.ID, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: graph links: %w", err)
	}
	return out, nil
}

// PutCommunities replaces the stored communities by cs; one stored with the same ID and signature keeps
// its summary.
func (s *Store) PutCommunities(ctx context.Context, cs []graphrag.Community) error {
	err := s.write(ctx, "put communities", func(tx *sql.Tx) error {
		keep := map[string]graphrag.Community{}
		old, err := readCommunities(ctx, tx)
		if err != nil {
			return err
		}
		for _, c := range old {
			keep[c.ID+"\x00"+c.Signature] = c
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM communities`); err != nil {
			return err
		}
		for i, c := range cs {
			prev := keep[c.ID+"\x00"+c.Signature]
			c.Title, c.Summary, c.SummarizedAt = prev.Title, prev.Summary, prev.SummarizedAt
			if err := insertCommunity(ctx, tx, i, c); err != nil {
				return fmt.Errorf("community %s: %w", c.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: put communities: %w", err)
	}
	return nil
}

func insertCommunity(ctx context.Context, tx *sql.Tx, ordinal int, c graphrag.Community) error {
	lists := make([][]byte, 3)
	for i, l := range [][]string{c.Entities, c.Relations, c.ChunkIDs} {
		b, err := json.Marshal(nonNil(l))
		if err != nil {
			return err
		}
		lists[i] = b
	}
	var at int64
	if !c.SummarizedAt.IsZero() {
		at = c.SummarizedAt.UnixNano()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO communities
		(id, ordinal, signature, entities, relations, chunk_ids, weight, title, summary, summarized_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, ordinal, c.Signature, string(lists[0]), string(lists[1]), string(lists[2]), c.Weight, c.Title, c.Summary, at)
	return err
}

// Communities returns the stored communities in the order they were put.
func (s *Store) Communities(ctx context.Context) ([]graphrag.Community, error) {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("sqlite: communities: %w", err)
	}
	defer tx.Rollback()
	cs, err := readCommunities(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: communities: %w", err)
	}
	return cs, nil
}

func readCommunities(ctx context.Context, tx *sql.Tx) ([]graphrag.Community, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, signature, entities, relations, chunk_ids, weight, title, summary,
		summarized_at FROM communities ORDER BY ordinal`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphrag.Community
	for rows.Next() {
		var c graphrag.Community
		var ents, rels, chunks string
		var at int64
		if err := rows.Scan(&c.ID, &c.Signature, &ents, &rels, &chunks, &c.Weight, &c.Title, &c.Summary, &at); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			raw string
			dst *[]string
		}{{ents, &c.Entities}, {rels, &c.Relations}, {chunks, &c.ChunkIDs}} {
			if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
				return nil, fmt.Errorf("community %s: %w", c.ID, err)
			}
		}
		if at != 0 {
			c.SummarizedAt = time.Unix(0, at).UTC()
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetCommunitySummary records a summary for the community with this ID while it has this signature.
func (s *Store) SetCommunitySummary(ctx context.Context, id, signature, title, summary string) error {
	err := s.write(ctx, "set community summary", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE communities SET title = ?, summary = ?, summarized_at = ?
			WHERE id = ? AND signature = ?`, title, summary, time.Now().UnixNano(), id, signature)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("no community %s with signature %s: %w", id, signature, graphrag.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: set community summary: %w", err)
	}
	return nil
}
