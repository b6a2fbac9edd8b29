package parse

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as the PDF child its tests start.
func TestMain(m *testing.M) {
	ServePDFChild()
	os.Exit(m.Run())
}
