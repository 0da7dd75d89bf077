package iri

// Benchmarks of package iri beside package uri (the same URL lists of
// ../../shared/data/urls, all ASCII) and, on a list of real IRIs with
// non-ASCII text (testdata/bench/iris.txt, see its README.md), beside
// net/url with golang.org/x/net/idna. The comparison with
// github.com/contomap/iri lives in the bench module (../bench), so that
// the peer is no dependency of this one. Figures and commands are in
// ../BENCHMARKS.md.
//
//	go test -run=^$ -bench=. -benchmem -count=6 ./iri/

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/idna"

	"github.com/urikit/urikit/uri"
)

func loadLines(tb testing.TB, path string) []string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("benchmark data not available: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

var (
	sinkIRI IRI
	sinkURI uri.URI
	sinkN   int
)

// BenchmarkURLLists parses every line of the shared URL lists with
// uri.Parse and with iri.Parse: an ASCII IRI is a URI, and the IRI parser
// should cost about the same (the issue asks for at most 1.2×).
func BenchmarkURLLists(b *testing.B) {
	for _, name := range []string{"kasztp", "node_files", "isaacs_files"} {
		lines := loadLines(b, filepath.Join("../../shared/data/urls", name+".txt"))
		var n int64
		for _, l := range lines {
			n += int64(len(l))
		}
		b.Run(name+"/uri.Parse", func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				for _, l := range lines {
					u, _ := uri.Parse(l)
					sinkURI = u
				}
			}
		})
		b.Run(name+"/iri.Parse", func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				for _, l := range lines {
					x, _ := Parse(l)
					sinkIRI = x
				}
			}
		})
	}
}

func benchIRIs(b *testing.B) ([]string, int64) {
	lines := loadLines(b, "testdata/bench/iris.txt")
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	return lines, n
}

// BenchmarkIRIs parses the list of real IRIs: this package and net/url
// (which takes raw non-ASCII bytes without checking them); ../bench adds
// github.com/contomap/iri to the same run.
func BenchmarkIRIs(b *testing.B) {
	lines, n := benchIRIs(b)
	b.Run("parse/iri.Parse", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, l := range lines {
				x, _ := Parse(l)
				sinkIRI = x
			}
		}
	})
	b.Run("parse/net_url.Parse", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, l := range lines {
				u, _ := url.Parse(l)
				sinkN += len(u.Path)
			}
		}
	})
	// To the URI a browser fetches: parse, IDNA on a non-ASCII host,
	// percent-encode the rest.
	b.Run("to-uri/iri.URIWithIDNA", func(b *testing.B) {
		b.SetBytes(n)
		var buf []byte
		for b.Loop() {
			for _, l := range lines {
				x, _ := Parse(l)
				buf, _ = x.AppendURIWithIDNA(buf[:0])
			}
		}
		sinkN += len(buf)
	})
	b.Run("to-uri/net_url+x_net_idna", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, l := range lines {
				u, err := url.Parse(l)
				if err != nil {
					continue
				}
				if h := u.Hostname(); !isASCII(h) {
					if a, err := idna.Lookup.ToASCII(h); err == nil {
						u.Host = a
					}
				}
				sinkN += len(u.String())
			}
		}
	})
}

// TestBenchIRIsValid: every line of the benchmark list is a valid IRI, not
// ASCII, and net/url accepts it too (so the comparison is like for like;
// ../bench checks github.com/contomap/iri).
func TestBenchIRIsValid(t *testing.T) {
	lines := loadLines(t, "testdata/bench/iris.txt")
	for _, l := range lines {
		x, err := Parse(l)
		if err != nil || x.IsASCII() {
			t.Errorf("%q: %v (ASCII %v)", l, err, x.IsASCII())
		}
		if _, err := url.Parse(l); err != nil {
			t.Errorf("url.Parse(%q): %v", l, err)
		}
	}
}
