package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU returns the processor time (user and system) that the server's
// processes — the postmaster and the backends and workers it started —
// have used so far. Benchmarks on a shared machine report work per
// record with it, which the machine's other load does not change the
// way it changes wall-clock rates. Linux only (it reads /proc); the time
// of backends that have already exited is not counted.
func (c *Cluster) CPU() (time.Duration, error) {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil {
		return 0, errors.New("pgtest: server not running")
	}
	var ticks int64
	for _, p := range serverProcs(cmd.Process.Pid) {
		ticks += p.ticks
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux platform Go supports
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

type proc struct {
	pid   int
	ticks int64 // user and system time, in clock ticks
}

// serverProcs lists the postmaster root and its children, from /proc.
func serverProcs(root int) []proc {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []proc
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ... utime stime: fields after the
		// command name, which may hold spaces, so split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		if pid != root && ppid != root {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		out = append(out, proc{pid, ut + st})
	}
	return out
}
