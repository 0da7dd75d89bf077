package uri

// Parse speed over whole URL lists, against the two reference points of
// issue 11: net/url.Parse, and a loop that does nothing but one 256-entry
// table lookup per byte. Standard library only, so that it stays in this
// module when the side-by-side benchmarks against other libraries move out.
// Figures and the exact commands are in ../BENCHMARKS.md ("Parse at the
// speed of validation"). One op is one pass over a whole list, every line,
// the ones uri.Parse rejects included. Besides the wall clock (sec/op),
// each reports the CPU time of the process per op (cpu-ns/op).
//
//	go test -c -o /tmp/uri.test ./uri/
//	cd uri && for i in $(seq 10); do /tmp/uri.test -test.run='^$' -test.bench='^BenchmarkLists$' -test.benchmem -test.count=1; done > /tmp/lists.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -row /list -col /impl /tmp/lists.txt
//
// BenchmarkListsRatio gives the same comparisons as ratios of fastest passes.

import (
	"bytes"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// listsDir holds the URL lists (see its README.md): a sibling of the
// repository, present on the project's machines and skipped elsewhere.
const listsDir = "../../shared/data/urls"

var benchListFiles = []struct{ name, file string }{
	{"isaacs_files", "isaacs_files.txt"}, // long file paths: scanning is all the work
	{"kasztp", "kasztp.txt"},             // short web URLs, 341 of them invalid
	{"node_files", "node_files.txt"},     // short file URLs
}

type urlList struct {
	lines []string // every line, BOM stripped
	valid []string // the lines Parse accepts
}

var (
	urlListsMu sync.Mutex
	urlLists   = map[string]*urlList{}
)

// loadURLList reads a list once: BOM stripped, split on LF, the empty
// string after a final newline dropped.
func loadURLList(tb testing.TB, file string) *urlList {
	tb.Helper()
	urlListsMu.Lock()
	defer urlListsMu.Unlock()
	if l, ok := urlLists[file]; ok {
		return l
	}
	data, err := os.ReadFile(filepath.Join(listsDir, file))
	if err != nil {
		tb.Skipf("URL list not available: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	l := &urlList{lines: strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")}
	for _, s := range l.lines {
		if _, err := Parse(s); err == nil {
			l.valid = append(l.valid, s)
		}
	}
	urlLists[file] = l
	return l
}

var (
	listSinkURI URI
	listSinkInt int
	listSinkURL *url.URL
)

// lookupLoop is the reference of the issue: one lookup in a 256-entry
// table per byte of every line, and nothing else (no grammar, no
// component boundaries, no early exit).
func lookupLoop(lines []string) int {
	ok := 0
	for _, l := range lines {
		bad := uint16(0)
		for i := 0; i < len(l); i++ {
			bad |= ^class[l[i]] & cQuery
		}
		if bad == 0 {
			ok++
		}
	}
	return ok
}

func parseList(lines []string) int {
	ok := 0
	var last URI // kept in a local, as a caller would: no store to the heap per line
	for _, l := range lines {
		if u, err := Parse(l); err == nil {
			last = u
			ok++
		}
	}
	listSinkURI = last
	return ok
}

func netURLList(lines []string) int {
	ok := 0
	var last *url.URL
	for _, l := range lines {
		if u, err := url.Parse(l); err == nil {
			last = u
			ok++
		}
	}
	listSinkURL = last
	return ok
}

// BenchmarkLists times, over each list: the lookup loop, uri.Parse, and
// net/url.Parse on every line; and uri.Parse on the valid lines only (the
// 0-allocation case). The sub-benchmarks of one list run one after the
// other, so a run of the binary interleaves them.
func BenchmarkLists(b *testing.B) {
	for _, f := range benchListFiles {
		b.Run("list="+f.name, func(b *testing.B) {
			l := loadURLList(b, f.file)
			for _, v := range []struct {
				name  string
				lines []string
				run   func([]string) int
			}{
				{"lookup-loop", l.lines, lookupLoop},
				{"parse", l.lines, parseList},
				{"net-url", l.lines, netURLList},
				{"parse-valid", l.valid, parseList},
			} {
				b.Run("impl="+v.name, func(b *testing.B) {
					n := 0
					for _, s := range v.lines {
						n += len(s)
					}
					b.SetBytes(int64(n))
					b.ReportAllocs()
					cpu := listsCPU()
					for b.Loop() {
						listSinkInt = v.run(v.lines)
					}
					// CPU time, which a machine shared with other jobs
					// inflates less than the wall clock: time spent
					// waiting for a core does not count.
					if cpu := listsCPU() - cpu; cpu > 0 {
						b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
					}
				})
			}
		})
	}
}

// BenchmarkListsRatio runs the lookup loop and Parse (every line, then the
// valid lines) by turns, one pass over the list each per op, and reports
// how their fastest passes compare: parse/loop and parse-valid/loop. On a
// machine shared with other jobs the fastest pass of each is the one
// disturbed least, so these ratios hold still where the times of
// BenchmarkLists do not. (net/url is left out: its fastest pass would be
// one without a garbage collection, whose cost is part of its own.)
func BenchmarkListsRatio(b *testing.B) {
	for _, f := range benchListFiles {
		b.Run("list="+f.name, func(b *testing.B) {
			l := loadURLList(b, f.file)
			runs := []struct {
				lines []string
				run   func([]string) int
			}{{l.lines, lookupLoop}, {l.lines, parseList}, {l.valid, parseList}}
			best := make([]time.Duration, len(runs))
			for k := range best {
				best[k] = time.Duration(math.MaxInt64)
			}
			for b.Loop() {
				for k, r := range runs {
					t0 := time.Now()
					listSinkInt = r.run(r.lines)
					best[k] = min(best[k], time.Since(t0))
				}
			}
			b.ReportMetric(float64(best[1])/float64(best[0]), "parse/loop")
			b.ReportMetric(float64(best[2])/float64(best[0]), "parse-valid/loop")
		})
	}
}

// TestListsAllocs checks that parsing the valid lines of each list
// allocates nothing.
func TestListsAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the URL lists")
	}
	for _, f := range benchListFiles {
		l := loadURLList(t, f.file)
		if n := testing.AllocsPerRun(3, func() { parseList(l.valid) }); n != 0 {
			t.Errorf("%s: parsing %d valid lines allocates %v times", f.name, len(l.valid), n)
		}
	}
}
