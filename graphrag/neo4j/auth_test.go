package neo4j

import (
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/auth/authtest"
)

func newAuthStore(t *testing.T) auth.Store { return openTest(t, 8) }

func TestAuthStoreContract(t *testing.T) { authtest.Run(t, newAuthStore) }

func TestAuthService(t *testing.T) { authtest.RunService(t, newAuthStore) }
