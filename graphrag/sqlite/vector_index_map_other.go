//go:build !unix

package sqlite

import "os"

// mapsFiles is whether mapRegion maps files on this system.
const mapsFiles = false

// mapFrom is where vector_index_map_unix.go maps from; here nothing is mapped.
var mapFrom = 0

// mapRegion reads n bytes of f from offset at into the heap: this system's files are not mapped.
func mapRegion(f *os.File, at int64, n int) ([]byte, func(), error) { return readRegion(f, at, n) }
