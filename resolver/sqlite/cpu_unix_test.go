//go:build unix

package sqlite_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used. The
// machines these benchmarks run on are shared, so wall time per op swings
// with the neighbours' load; CPU time per op far less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
