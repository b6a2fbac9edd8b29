package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/hopwise/hopwise/graphrag"
)

// Keys of the meta table.
const (
	metaSchemaVersion = "schema_version"
	metaEmbedDim      = "embed_dim"
	metaEmbedModel    = "embed_model"
)

// migrate applies the migrations the file has not seen yet, each in its own transaction with the version
// bump, so a crash leaves the file at a whole version.
func (s *Store) migrate(ctx context.Context) error {
	err := s.write(ctx, "create meta", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return err
	}
	for {
		done := false
		err := s.write(ctx, "migrate", func(tx *sql.Tx) error {
			version, err := metaInt(ctx, tx, metaSchemaVersion)
			if err != nil {
				return err
			}
			if version > len(migrations) {
				return fmt.Errorf("file has schema version %d, this program knows %d: use a newer Hopwise", version, len(migrations))
			}
			if version == len(migrations) {
				done = true
				return nil
			}
			if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
				return fmt.Errorf("version %d: %w", version+1, err)
			}
			s.logger.Info("sqlite schema migrated", "path", s.path, "version", version+1)
			return setMeta(ctx, tx, metaSchemaVersion, strconv.Itoa(version+1))
		})
		if err != nil || done {
			return err
		}
	}
}

// checkEmbedding records the embedding model and dimension in a new file and refuses a file built for
// others: its vectors would be compared with vectors of another space.
func (s *Store) checkEmbedding(ctx context.Context, opt Options) error {
	return s.write(ctx, "check embedding", func(tx *sql.Tx) error {
		dim, err := metaInt(ctx, tx, metaEmbedDim)
		if err != nil {
			return err
		}
		model, err := metaString(ctx, tx, metaEmbedModel)
		if err != nil {
			return err
		}
		if dim != 0 && dim != opt.EmbedDim || model != "" && opt.EmbedModel != "" && model != opt.EmbedModel {
			return fmt.Errorf("the file was built with embedding model %q of dimension %d, but the configured "+
				"model is %q of dimension %d: run `hopwise reindex --embeddings` to embed every passage again "+
				"with the configured model (the Status page of `hopwise serve` offers it too), or configure the "+
				"model the file was built with: %w",
				model, dim, opt.EmbedModel, opt.EmbedDim, graphrag.ErrDimension)
		}
		if opt.EmbedModel == "" {
			s.space.Store(&graphrag.EmbeddingSpace{Model: model, Dim: opt.EmbedDim})
		}
		if dim == 0 {
			if err := setMeta(ctx, tx, metaEmbedDim, strconv.Itoa(opt.EmbedDim)); err != nil {
				return err
			}
		}
		if model == "" && opt.EmbedModel != "" {
			return setMeta(ctx, tx, metaEmbedModel, opt.EmbedModel)
		}
		return nil
	})
}

func metaString(ctx context.Context, tx *sql.Tx, key string) (string, error) {
	var v string
	err := queryRowTx(ctx, tx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, nil
}

func metaInt(ctx context.Context, tx *sql.Tx, key string) (int, error) {
	v, err := metaString(ctx, tx, key)
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("meta %s is %q, not a number: %w", key, v, err)
	}
	return n, nil
}

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}
