package parse

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// errInternal marks a recovered panic raised by this package's own code:
// a bug, as opposed to a library failing on malformed input. Fuzz tests
// fail on it; callers see ErrMalformed.
var errInternal = errors.New("internal error")

const ownPackage = "github.com/hopwise/hopwise/graphrag/parse."

// ownPanic reports whether the panic being recovered was raised in this
// package. Call it only from a deferred function that has recovered.
func ownPanic() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	afterPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			afterPanic = true
		case afterPanic && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, ownPackage)
		}
		if !more {
			return false
		}
	}
}

// recoveredError turns a recovered value into an ErrMalformed error, also
// marked errInternal when own is true.
func recoveredError(what string, v any, own bool) error {
	if own {
		return fmt.Errorf("%w: %w: %s: %v", ErrMalformed, errInternal, what, v)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, what, v)
}
