package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// codedError stands for the driver's *sqlite.Error, which has a Code method.
type codedError int

func (e codedError) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e codedError) Code() int     { return int(e) }

func TestIsBusy(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"SQLITE_BUSY", codedError(5), true},
		{"SQLITE_BUSY_SNAPSHOT", codedError(517), true},
		{"SQLITE_LOCKED wrapped", fmt.Errorf("put: %w", codedError(6)), true},
		{"constraint", codedError(19), false},
		{"message only", errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{"other", errors.New("no such table: chunks"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isBusy(tc.err); got != tc.want {
				t.Errorf("isBusy(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestWriteRetriesBusy(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	tests := []struct {
		name      string
		failures  int
		failWith  error
		wantCalls int
		wantErr   bool
	}{
		{"succeeds first time", 0, nil, 1, false},
		{"busy once then succeeds", 1, codedError(5), 2, false},
		{"busy every time gives up", 100, codedError(5), writeAttempts, true},
		{"other error is not retried", 100, errors.New("constraint failed"), 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := s.write(t.Context(), "test", func(tx *sql.Tx) error {
				calls++
				if calls <= tc.failures {
					return tc.failWith
				}
				_, err := tx.ExecContext(t.Context(), `INSERT INTO meta (key, value) VALUES ('retry', 'x')
					ON CONFLICT (key) DO NOTHING`)
				return err
			})
			if calls != tc.wantCalls || (err != nil) != tc.wantErr {
				t.Errorf("write: %d calls, error %v; want %d calls, error %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
