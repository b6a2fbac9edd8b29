package pdf

import (
	"runtime"
	"strings"
)

// ownCode is the import path of package parse: its code and that of the format
// packages under it (this one, and parse's Markdown writer that Read writes
// to) is Hopwise's own.
const ownCode = "github.com/hopwise/hopwise/graphrag/parse"

// ownPanic reports whether the panic being recovered was raised in Hopwise's
// own parsing code: a bug (parseerr.ErrInternal), as opposed to the library
// failing on malformed input. Call it only from a deferred function that has
// recovered.
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
			return strings.HasPrefix(f.Function, ownCode+".") || strings.HasPrefix(f.Function, ownCode+"/")
		}
		if !more {
			return false
		}
	}
}
