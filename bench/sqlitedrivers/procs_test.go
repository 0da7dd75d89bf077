package sqlitedrivers

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// cpuTime is the user+system CPU time the process has used. The machine is
// shared, so wall time per op swings with the neighbours' load; CPU time per
// op much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-µs/op metric measured from start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
}
