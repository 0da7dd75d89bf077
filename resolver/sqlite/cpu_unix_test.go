//go:build unix

package sqlite_test

import (
	"runtime"
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

// maxRSS is the most memory the process has held resident, in bytes
// (ru_maxrss is in KiB on Linux and the BSDs, in bytes on macOS).
func maxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
