//go:build !(linux || darwin)

package sqlite

import "os"

// fileID is unknown here: a clean close is then recognised by the file's size, modification time and the
// digests of its ends alone.
func fileID(os.FileInfo) (dev, ino uint64, ctimeNanos int64) { return 0, 0, 0 }
