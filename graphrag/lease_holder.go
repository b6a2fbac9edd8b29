package graphrag

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// NewHolder names this process as the holder of leases (RunStore): prefix, then where it runs (host name,
// PID namespace and PID) and a random part, so that two holders never share a name and a process on the
// same machine can tell that a lease's holder is gone (HolderGone).
func NewHolder(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%s/%d/%s", prefix, thisMachine(), os.Getpid(), hex.EncodeToString(b))
}

// HolderGone reports whether a lease's holder is a process of this machine (the same host name and PID
// namespace) that no longer runs: it was killed, and its leases need not run out before another process
// takes its work over. A holder elsewhere, or one this cannot tell about, is not gone: its lease runs out.
func HolderGone(holder string) bool {
	parts := strings.Split(holder, "/")
	if len(parts) != 4 || parts[1] == "" || parts[1] != thisMachine() {
		return false
	}
	pid, err := strconv.Atoi(parts[2])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return processGone(pid)
}

// thisMachine is the host name and PID namespace of this process (Linux: the namespace's inode, so two
// containers with one host name do not mistake each other's PIDs); empty where it cannot be told.
func thisMachine() string {
	host, err := os.Hostname()
	if err != nil || host == "" || strings.Contains(host, "/") {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || ns == "" || strings.Contains(ns, "/") {
		return ""
	}
	return host + ":" + ns
}
