package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/auth/authtest"
)

func newAuthStore(t *testing.T) auth.Store {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "hopwise.db"), Options{EmbedDim: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAuthStoreContract(t *testing.T) { authtest.Run(t, newAuthStore) }

func TestAuthService(t *testing.T) { authtest.RunService(t, newAuthStore) }
