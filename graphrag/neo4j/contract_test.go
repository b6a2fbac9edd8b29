package neo4j

import (
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/storetest"
)

func TestContract(t *testing.T) {
	testURI(t)
	storetest.Run(t, func(t *testing.T, dim int) graphrag.Store {
		s := openTest(t, dim)
		t.Cleanup(func() { checkRelationProps(t, s) }) // before openTest's Close
		return s
	})
}
