//go:build !(linux || darwin)

package sqlite

// diskFree is unknown here.
func diskFree(string) (int64, bool) { return 0, false }
