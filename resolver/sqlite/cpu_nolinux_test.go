//go:build !linux

package sqlite_test

import "time"

// threadCPU is measured on Linux only (RUSAGE_THREAD).
func threadCPU() (time.Duration, bool) { return 0, false }
