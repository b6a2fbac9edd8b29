//go:build !unix

package storebench

import "time"

// processCPU is unknown here; the benchmarks then report no cpu-ms/op.
func processCPU() time.Duration { return 0 }
