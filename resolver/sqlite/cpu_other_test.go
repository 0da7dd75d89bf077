//go:build !unix

package sqlite_test

import "time"

// cpuTime is not measured here: the cpu-µs metrics read 0.
func cpuTime() time.Duration { return 0 }

// maxRSS is not measured here.
func maxRSS() int64 { return 0 }
