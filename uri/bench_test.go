package uri

// Benchmarks of package uri against net/url on the URL lists of
// ../../shared/data/urls (see its README.md); the comparison with
// github.com/fredbi/uri lives in the bench module (../bench), so that the
// peer is no dependency of this one. Every line of a
// list is parsed, the invalid ones included: rejecting them is part of the
// work. Results and the command that produced them are in ../BENCHMARKS.md.
//
//	go test -run=^$ -bench=. -benchmem -count=6 -timeout=60m ./uri/
//	go test -run=TestBenchCorpus -v ./uri/   # how many lines each parser accepts

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const benchDataDir = "../../shared/data/urls"

// benchLists are the lists benchmarked, by sub-benchmark name and file.
var benchLists = []struct{ name, file string }{
	{"kasztp", "kasztp.txt"},
	{"node_files", "node_files.txt"},
	{"isaacs_files", "isaacs_files.txt"},
}

type benchCorpus struct {
	lines []string
	bytes int64    // sum of the line lengths (newlines and BOM not counted)
	valid []string // the lines Parse accepts
}

var (
	benchCorpusMu    sync.Mutex
	benchCorpusCache = map[string]*benchCorpus{}
)

// loadBenchCorpus reads a list once: BOM stripped, split on LF, a final
// empty line (after a trailing newline) dropped, every other line kept.
func loadBenchCorpus(tb testing.TB, file string) *benchCorpus {
	tb.Helper()
	benchCorpusMu.Lock()
	defer benchCorpusMu.Unlock()
	if c, ok := benchCorpusCache[file]; ok {
		return c
	}
	data, err := os.ReadFile(filepath.Join(benchDataDir, file))
	if err != nil {
		tb.Skipf("benchmark data not available: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	text := strings.TrimSuffix(string(data), "\n")
	c := &benchCorpus{lines: strings.Split(text, "\n")}
	for _, l := range c.lines {
		c.bytes += int64(len(l))
		if _, err := Parse(l); err == nil {
			c.valid = append(c.valid, l)
		}
	}
	benchCorpusCache[file] = c
	return c
}

// Sinks keep the compiler from discarding the work.
var (
	benchSinkURI   URI
	benchSinkInt   int
	benchSinkStr   string
	benchSinkBytes []byte
)

// processCPU returns the CPU time (user + system) the process has used, GC
// workers included.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// runOverLines runs f over lines in every iteration and reports MB/s, ns
// per URL (wall clock) and cpu-ns per URL (CPU time of the whole process,
// GC included, from getrusage: less sensitive than the wall clock to
// other jobs sharing the machine).
func runOverLines(b *testing.B, lines []string, f func([]string) int) {
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	ok := 0
	cpu0 := processCPU()
	b.ResetTimer() // b.Loop would need Go 1.24; the module asks for 1.22
	for range b.N {
		ok = f(lines)
	}
	cpu := processCPU() - cpu0
	benchSinkInt = ok
	per := float64(b.N) * float64(len(lines))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/url")
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/per, "cpu-ns/url")
	}
}

func parseAllURIKit(lines []string) int {
	ok := 0
	for _, l := range lines {
		u, err := Parse(l)
		if err == nil {
			ok++
			benchSinkURI = u
		}
	}
	return ok
}

func parseAllURIKitRef(lines []string) int {
	ok := 0
	for _, l := range lines {
		u, err := ParseReference(l)
		if err == nil {
			ok++
			benchSinkURI = u
		}
	}
	return ok
}

func parseAllNetURL(lines []string) int {
	ok := 0
	for _, l := range lines {
		if u, err := url.Parse(l); err == nil {
			ok++
			benchSinkStr = u.Path
		}
	}
	return ok
}

// scanFloor is the reference for "a single pass over the bytes": one
// class-table lookup per byte and nothing else (no grammar, no offsets).
func scanFloor(lines []string) int {
	ok := 0
	for _, l := range lines {
		bad := 0
		for i := 0; i < len(l); i++ {
			bad |= int(^class[l[i]] & cQuery)
		}
		if bad == 0 {
			ok++
		}
	}
	return ok
}

// BenchmarkParse: validate and index only. Each op parses a whole list.
//
//	scan-floor    one table lookup per byte, no grammar: the floor to aim at
//	urikit        uri.Parse (scheme required)
//	urikit-ref    uri.ParseReference (URI or relative reference)
//	net-url       net/url.Parse
//	*-valid       the same, over the lines uri.Parse accepts only
func BenchmarkParse(b *testing.B) {
	for _, l := range benchLists {
		b.Run(l.name, func(b *testing.B) {
			c := loadBenchCorpus(b, l.file)
			b.Run("scan-floor", func(b *testing.B) { runOverLines(b, c.lines, scanFloor) })
			b.Run("urikit", func(b *testing.B) { runOverLines(b, c.lines, parseAllURIKit) })
			b.Run("urikit-ref", func(b *testing.B) { runOverLines(b, c.lines, parseAllURIKitRef) })
			b.Run("net-url", func(b *testing.B) { runOverLines(b, c.lines, parseAllNetURL) })
			b.Run("urikit-valid", func(b *testing.B) { runOverLines(b, c.valid, parseAllURIKit) })
			b.Run("net-url-valid", func(b *testing.B) { runOverLines(b, c.valid, parseAllNetURL) })
		})
	}
}

// BenchmarkNormalize: parse → normalize → serialize, over the whole list
// (a line that does not parse stops there).
//
//	urikit-syntax-append  Parse → AppendNormalized(buf[:0], Syntax), buffer reused
//	urikit-scheme-append  Parse → AppendNormalized(buf[:0], SchemeBased), buffer reused
//	urikit-syntax-string  Parse → Normalize(Syntax).String() (a new string, re-parsed)
//	urikit-scheme-string  Parse → Normalize(SchemeBased).String()
//	net-url-string        url.Parse → String(): re-serialization only; net/url
//	                      has no normalization (no case folding, no dot
//	                      segments, no default port), it only re-escapes
func BenchmarkNormalize(b *testing.B) {
	for _, l := range benchLists {
		b.Run(l.name, func(b *testing.B) {
			c := loadBenchCorpus(b, l.file)
			for _, lv := range []struct {
				name  string
				level Level
			}{{"syntax", Syntax}, {"scheme", SchemeBased}} {
				b.Run("urikit-"+lv.name+"-append", func(b *testing.B) {
					buf := make([]byte, 0, 4096)
					runOverLines(b, c.lines, func(lines []string) int {
						ok := 0
						for _, s := range lines {
							u, err := Parse(s)
							if err != nil {
								continue
							}
							buf = u.AppendNormalized(buf[:0], lv.level)
							ok++
						}
						benchSinkBytes = buf
						return ok
					})
				})
			}
			for _, lv := range []struct {
				name  string
				level Level
			}{{"syntax", Syntax}, {"scheme", SchemeBased}} {
				b.Run("urikit-"+lv.name+"-string", func(b *testing.B) {
					runOverLines(b, c.lines, func(lines []string) int {
						ok := 0
						for _, s := range lines {
							u, err := Parse(s)
							if err != nil {
								continue
							}
							benchSinkStr = u.Normalize(lv.level).String()
							ok++
						}
						return ok
					})
				})
			}
			b.Run("net-url-string", func(b *testing.B) {
				runOverLines(b, c.lines, func(lines []string) int {
					ok := 0
					for _, s := range lines {
						u, err := url.Parse(s)
						if err != nil {
							continue
						}
						benchSinkStr = u.String()
						ok++
					}
					return ok
				})
			})
		})
	}
}

// The resolution benchmarks use the examples of RFC 3986 §5.4.1 and
// §5.4.2 (rfcBase, rfc3986Examples in resolve_test.go).
var (
	benchResolveBase = rfcBase
	benchResolveRefs = rfc3986Examples
)

// BenchmarkResolve resolves the 42 references of RFC 3986 §5.4 against
// http://a/b/c/d;p?q; one op is the whole set, ns/url is per reference.
//
//	parsed/...  references parsed beforehand, outside the timing:
//	  urikit          base.Resolve(ref) → URI (builds the string, re-parses it)
//	  urikit-append   AppendResolved(buf[:0], base, ref, 0), buffer reused
//	  net-url         base.ResolveReference(ref) → *url.URL
//	  net-url-string  base.ResolveReference(ref).String()
//	string/...  the reference's parse included:
//	  urikit          base.ResolveString(ref)
//	  net-url         base.Parse(ref) (parses ref, then ResolveReference)
//	  net-url-string  base.Parse(ref) then String()
func BenchmarkResolve(b *testing.B) {
	refs := make([]string, len(benchResolveRefs))
	for i, r := range benchResolveRefs {
		refs[i] = r.ref
	}
	base := MustParse(benchResolveBase)
	nbase, err := url.Parse(benchResolveBase)
	if err != nil {
		b.Fatal(err)
	}
	urefs := make([]URI, len(refs))
	nrefs := make([]*url.URL, len(refs))
	for i, r := range refs {
		urefs[i] = MustParseReference(r)
		if nrefs[i], err = url.Parse(r); err != nil {
			b.Fatal(err)
		}
	}
	// runOverLines wants strings; the parsed variants index by position.
	b.Run("parsed", func(b *testing.B) {
		b.Run("urikit", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for i := range lines {
					u, err := base.Resolve(urefs[i])
					if err == nil {
						benchSinkURI = u
					}
				}
				return len(lines)
			})
		})
		b.Run("urikit-append", func(b *testing.B) {
			buf := make([]byte, 0, 256)
			runOverLines(b, refs, func(lines []string) int {
				for i := range lines {
					buf, _ = AppendResolved(buf[:0], base, urefs[i], 0)
				}
				benchSinkBytes = buf
				return len(lines)
			})
		})
		b.Run("net-url", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for i := range lines {
					benchSinkStr = nbase.ResolveReference(nrefs[i]).Path
				}
				return len(lines)
			})
		})
		b.Run("net-url-string", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for i := range lines {
					benchSinkStr = nbase.ResolveReference(nrefs[i]).String()
				}
				return len(lines)
			})
		})
	})
	b.Run("string", func(b *testing.B) {
		b.Run("urikit", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for _, r := range lines {
					u, err := base.ResolveString(r)
					if err == nil {
						benchSinkURI = u
					}
				}
				return len(lines)
			})
		})
		b.Run("net-url", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for _, r := range lines {
					if u, err := nbase.Parse(r); err == nil {
						benchSinkStr = u.Path
					}
				}
				return len(lines)
			})
		})
		b.Run("net-url-string", func(b *testing.B) {
			runOverLines(b, refs, func(lines []string) int {
				for _, r := range lines {
					if u, err := nbase.Parse(r); err == nil {
						benchSinkStr = u.String()
					}
				}
				return len(lines)
			})
		})
	})
}

// TestBenchCorpusAccepted logs how many lines of each list every parser
// accepts (run with -v), with a few lines net/url accepts and uri.Parse
// rejects. It checks that parsing a valid URI of the lists allocates nothing.
func TestBenchCorpusAccepted(t *testing.T) {
	for _, l := range benchLists {
		t.Run(l.name, func(t *testing.T) {
			c := loadBenchCorpus(t, l.file)
			var nParse, nRef, nNet int
			var onlyNet []string
			for _, s := range c.lines {
				_, errU := Parse(s)
				_, errN := url.Parse(s)
				if errU == nil {
					nParse++
				}
				if _, err := ParseReference(s); err == nil {
					nRef++
				}
				if errN == nil {
					nNet++
					if errU != nil && len(onlyNet) < 5 {
						onlyNet = append(onlyNet, errU.Error())
					}
				}
			}
			t.Logf("%s: %d lines, %d bytes; accepted: uri.Parse %d, uri.ParseReference %d, net/url.Parse %d",
				l.name, len(c.lines), c.bytes, nParse, nRef, nNet)
			for _, e := range onlyNet {
				t.Logf("  net/url accepts, uri rejects: %s", e)
			}
			if testing.Short() || len(c.valid) == 0 {
				return
			}
			valid := c.valid
			if n := testing.AllocsPerRun(5, func() { parseAllURIKit(valid) }); n != 0 {
				t.Errorf("parsing %d valid URIs of %s: %v allocations, want 0", len(valid), l.name, n)
			}
		})
	}
}

// TestBenchResolveRefs checks the references BenchmarkResolve uses against
// RFC 3986 §5.4 and logs where net/url's ResolveReference differs.
func TestBenchResolveRefs(t *testing.T) {
	base := MustParse(benchResolveBase)
	nbase, _ := url.Parse(benchResolveBase)
	for _, r := range benchResolveRefs {
		u, err := base.ResolveString(r.ref)
		if err != nil || u.String() != r.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", r.ref, u.String(), err, r.want)
		}
		if n, err := nbase.Parse(r.ref); err != nil || n.String() != r.want {
			t.Logf("net/url ResolveReference(%q) = %v, %v; RFC 3986 says %q", r.ref, n, err, r.want)
		}
	}
}
