package bench

import (
	"bytes"
	"net/url"
	"os"
	"strings"
	"testing"

	contomap "github.com/contomap/iri"

	"github.com/urikit/urikit/iri"
)

// irisFile is the list of real IRIs with non-ASCII text that package iri
// benchmarks too (its README.md says what it holds).
const irisFile = "../iri/testdata/bench/iris.txt"

// benchIRIs reads irisFile: BOM stripped, split on LF, a final empty line
// dropped, as iri's own benchmarks read it.
func benchIRIs(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile(irisFile)
	if err != nil {
		tb.Fatalf("the IRI list is part of the repository: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// BenchmarkIRIParse parses the list of real IRIs with iri.Parse, with
// github.com/contomap/iri.Parse (an RFC 3987 parser built on regular
// expressions) and with net/url.Parse (which takes raw non-ASCII bytes
// without checking them), in the same run.
func BenchmarkIRIParse(b *testing.B) {
	lines := benchIRIs(b)
	n := bytesOf(lines)
	b.Run("urikit", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if x, err := iri.Parse(l); err == nil {
					sinkStr = x.Scheme()
				}
			}
		}
	})
	b.Run("contomap-iri", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if x, err := contomap.Parse(l); err == nil {
					sinkStr = x.Scheme
				}
			}
		}
	})
	b.Run("net-url", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if u, err := url.Parse(l); err == nil {
					sinkStr = u.Scheme
				}
			}
		}
	})
}

// TestContomapAccepts: both IRI parsers accept every line of the benchmark
// list and split it the same way, so the comparison is like for like.
func TestContomapAccepts(t *testing.T) {
	for _, l := range benchIRIs(t) {
		x, err := iri.Parse(l)
		if err != nil {
			t.Errorf("iri.Parse(%q): %v", l, err)
			continue
		}
		c, err := contomap.Parse(l)
		if err != nil {
			t.Errorf("contomap.Parse(%q): %v", l, err)
			continue
		}
		if c.Scheme != x.Scheme() || c.Authority != x.Authority() || c.Path != x.Path() ||
			c.Query != x.Query() || c.Fragment != x.Fragment() {
			t.Errorf("%q: contomap splits it as %+v", l, c)
		}
	}
}
