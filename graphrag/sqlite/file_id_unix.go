//go:build linux || darwin

package sqlite

import (
	"os"
	"syscall"
)

// fileID is what the file system says of a file besides its size and modification time: its device and
// inode (another file put in its place has others) and its change time, which any write, copy over it or
// setting of its times moves, and no program can set back.
func fileID(fi os.FileInfo) (dev, ino uint64, ctimeNanos int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return uint64(st.Dev), st.Ino, statCtime(st)
}
