//go:build unix

package graphrag

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has this PID (signal 0 checks without sending anything).
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
