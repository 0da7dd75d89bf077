//go:build unix

package uri

import "syscall"

// listsCPU returns the CPU time the process has used (user + system, GC
// workers included), in nanoseconds.
func listsCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
