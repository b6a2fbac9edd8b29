//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapsFiles is whether mapRegion maps files on this system.
const mapsFiles = true

// mapFrom is the size from which an index file's codes and blocks are mapped rather than read: a map
// costs a few system calls and the pages are read when first searched, so opening a million passages
// reads no 430 MB into the heap. A variable for tests.
var mapFrom = 1 << 20

// mapRegion returns n bytes of f from offset at (a multiple of the page size), mapped copy-on-write: the
// index writes into them as it changes (those pages become the process's own; the file is never written),
// and it grows in place into anonymous memory reserved after them, half as much again, past which append
// moves them to the heap. unmap releases the mapping, which nothing may use afterwards. Below mapFrom, or
// where the system refuses a map, the bytes are read into the heap and unmap is nil.
func mapRegion(f *os.File, at int64, n int) (b []byte, unmap func(), err error) {
	if n < mapFrom || n == 0 || at%int64(os.Getpagesize()) != 0 {
		return readRegion(f, at, n)
	}
	page := os.Getpagesize()
	capacity := (n + n/2 + page - 1) / page * page
	mem, err := unix.Mmap(-1, 0, capacity, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return readRegion(f, at, n)
	}
	if _, err := unix.MmapPtr(int(f.Fd()), at, unsafe.Pointer(&mem[0]), uintptr(n), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
		unix.Munmap(mem)
		return readRegion(f, at, n)
	}
	return mem[:n], func() {
		if err := unix.Munmap(mem); err != nil {
			panic(fmt.Sprintf("sqlite: unmap the vector index: %v", err))
		}
	}, nil
}
