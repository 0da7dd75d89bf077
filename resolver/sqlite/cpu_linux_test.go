//go:build linux

package sqlite_test

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time (user and system) of the calling OS thread:
// with runtime.LockOSThread, that of one goroutine. An import's own
// goroutine does all the writing, so its CPU time per record is what
// bounds the import rate, and it is steadier than the process's CPU time
// on a machine other work shares (the garbage collector's and the other
// processes' work count elsewhere).
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
