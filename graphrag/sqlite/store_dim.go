package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// recordedDim reads the embedding dimension an existing file recorded when it was first opened, through a
// read-only connection. A file that does not exist, holds no meta table or no dimension has none:
// graphrag.ErrNoDimension.
func recordedDim(ctx context.Context, path string, existed bool) (int, error) {
	if !existed {
		return 0, graphrag.ErrNoDimension
	}
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var v string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaEmbedDim).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, graphrag.ErrNoDimension
	}
	if err != nil {
		return 0, fmt.Errorf("read the recorded embedding dimension: %w", err)
	}
	dim, err := strconv.Atoi(v)
	if err != nil || dim <= 0 {
		return 0, fmt.Errorf("the recorded embedding dimension %q is not a positive number", v)
	}
	return dim, nil
}
