package storebench

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// passCPU measures the CPU time a benchmark's passes take, which, unlike their wall time, does not grow
// much when other processes share the machine: this process's user and system time (getrusage, where the
// system has it) and, when HOPWISE_BENCH_NEO4J_PID names the Neo4j server's process, the server's (from
// /proc/PID/stat, Linux).
type passCPU struct {
	self, server time.Duration
	serverPID    string
}

func startCPU() *passCPU {
	c := &passCPU{serverPID: os.Getenv("HOPWISE_BENCH_NEO4J_PID")}
	c.self, c.server = processCPU(), serverCPU(c.serverPID)
	return c
}

// report reports the CPU time per pass of the n passes since startCPU as cpu-ms/op (this process) and,
// for a named server, server-cpu-ms/op.
func (c *passCPU) report(b *testing.B, n int) {
	if n == 0 {
		return
	}
	if d := processCPU() - c.self; c.self > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(n), "cpu-ms/op")
	}
	if c.serverPID != "" {
		after := serverCPU(c.serverPID)
		if after <= 0 {
			b.Logf("HOPWISE_BENCH_NEO4J_PID=%s: no CPU time read from /proc", c.serverPID)
			return
		}
		b.ReportMetric(float64((after-c.server).Microseconds())/1000/float64(n), "server-cpu-ms/op")
	}
}

// serverCPU is the user and system time of process pid from /proc/PID/stat (0 when unreadable).
func serverCPU(pid string) time.Duration {
	if pid == "" {
		return 0
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// the command name, in parentheses, may hold spaces: the fields counted start after it
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	const ticksPerSecond = 100 // USER_HZ, what /proc counts in
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
