package graphrag_test

import (
	"os"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse"
)

// TestMain lets this test binary serve as the PDF child that ingesting a PDF starts.
func TestMain(m *testing.M) {
	parse.ServePDFChild()
	os.Exit(m.Run())
}
