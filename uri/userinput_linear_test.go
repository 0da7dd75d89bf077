package uri

import (
	"runtime"
	"strings"
	"testing"
)

// hostileUserInputs build inputs of about n bytes on which a careless
// cleaner does quadratic work or keeps quadratic memory: the shapes that
// made ParseUserInput take seconds and hundreds of megabytes.
var hostileUserInputs = []struct {
	name string
	make func(n int) string
}{
	{"pct-encodings", func(n int) string { return "http://a/" + strings.Repeat("%41", n/3) }},
	{"nested angles", func(n int) string { return strings.Repeat("<", n/2) + "http://a/" + strings.Repeat(">", n/2) }},
	{"nested quotes", func(n int) string { return strings.Repeat("\"'", n/4) + "http://a/" + strings.Repeat("'\"", n/4) }},
	{"URL: prefixes", func(n int) string { return strings.Repeat("URL:", n/4) + "http://a/" }},
	{"line breaks", func(n int) string { return "http://a/" + strings.Repeat("b\n", n/2) }},
	{"spaces", func(n int) string { return "http://a/" + strings.Repeat(" x", n/2) }},
	{"non-ASCII", func(n int) string { return "http://a/" + strings.Repeat("é", n/2) }},
	{"long host", func(n int) string { return "www." + strings.Repeat("a", n) + "/x" }},
	{"colons", func(n int) string { return "http://" + strings.Repeat(":", n) + "/" }},
	{"at signs", func(n int) string { return "http://" + strings.Repeat("a", n) + "@@/" }},
	{"bad percent", func(n int) string { return "http://a/" + strings.Repeat("%4", n/2) }},
	{"leading spaces", func(n int) string { return strings.Repeat(" ", n) + "http://a/" }},
}

// allocated returns the bytes ParseUserInput allocates for s.
func allocated(s string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ParseUserInput(s)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestUserInputLinearMemory: ParseUserInput allocates at most a constant
// times the input's size (so its peak memory is linear too), whatever the
// input. Counting bytes rather than timing keeps the test deterministic.
func TestUserInputLinearMemory(t *testing.T) {
	const n = 32 << 10
	for _, h := range hostileUserInputs {
		s := h.make(n)
		if got, limit := allocated(s), uint64(24*len(s)+64<<10); got > limit {
			t.Errorf("%s: %d bytes allocated for %d bytes of input (limit %d)", h.name, got, len(s), limit)
		}
	}
}

// TestUserInputLinearWork: the bytes ParseUserInput's loops examine stay
// within a constant times the input's size, at two sizes, whatever the
// input (counted, not timed).
func TestUserInputLinearWork(t *testing.T) {
	for _, h := range hostileUserInputs {
		for _, n := range []int{8 << 10, 64 << 10} {
			s := h.make(n)
			var c cleaner
			c.parse(s, nil)
			if c.work > 12*len(s)+64 {
				t.Errorf("%s: %d bytes examined for %d bytes of input", h.name, c.work, len(s))
			}
			if c.work < len(s)/2 && !strings.HasPrefix(h.name, "bad") && h.name != "at signs" {
				// The counter must count: every input here is read whole.
				t.Errorf("%s: only %d bytes counted for %d bytes of input", h.name, c.work, len(s))
			}
		}
	}
}

// TestUserInputHugeLine: a 10 MB line is cleaned in a bounded number of
// bytes allocated (it took 450 MB once).
func TestUserInputHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	s := "http://a/" + strings.Repeat("%41 é<", 10<<20/8)
	if got := allocated(s); got > uint64(12*len(s)) {
		t.Errorf("%d bytes allocated for %d bytes of input", got, len(s))
	}
}
