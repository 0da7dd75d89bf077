package bench

import (
	"testing"

	fredbi "github.com/fredbi/uri"

	"github.com/urikit/urikit/uri"
)

// BenchmarkParse parses every line of each URL list (the invalid ones
// included: rejecting them is part of the work) with uri.Parse and with
// github.com/fredbi/uri.Parse, in the same run.
func BenchmarkParse(b *testing.B) {
	for _, l := range urlLists {
		b.Run(l.name, func(b *testing.B) {
			lines := urlList(b, l.file)
			b.Run("urikit", func(b *testing.B) {
				b.SetBytes(bytesOf(lines))
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range lines {
						if u, err := uri.Parse(s); err == nil {
							sinkStr = u.Scheme()
						}
					}
				}
			})
			b.Run("fredbi-uri", func(b *testing.B) {
				b.SetBytes(bytesOf(lines))
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range lines {
						if u, err := fredbi.Parse(s); err == nil {
							sinkStr = u.Scheme()
						}
					}
				}
			})
		})
	}
}

// BenchmarkNormalize: urikit's syntax normalization against fredbi/uri's
// re-serialization (it has no normalization ladder).
func BenchmarkNormalize(b *testing.B) {
	for _, l := range urlLists {
		b.Run(l.name, func(b *testing.B) {
			lines := urlList(b, l.file)
			b.Run("urikit-syntax-string", func(b *testing.B) {
				b.SetBytes(bytesOf(lines))
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range lines {
						if u, err := uri.Parse(s); err == nil {
							sinkStr = u.Normalize(uri.Syntax).String()
						}
					}
				}
			})
			b.Run("fredbi-uri-string", func(b *testing.B) {
				b.SetBytes(bytesOf(lines))
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range lines {
						if u, err := fredbi.Parse(s); err == nil {
							sinkStr = u.String()
						}
					}
				}
			})
		})
	}
}

// TestFredbiAccepted logs how many lines of each list each parser accepts
// (run with -v), and checks that both agree on most of them: the lists are
// real URLs, so a large disagreement means one side broke.
func TestFredbiAccepted(t *testing.T) {
	for _, l := range urlLists {
		t.Run(l.name, func(t *testing.T) {
			lines := urlList(t, l.file)
			var ours, theirs, both int
			for _, s := range lines {
				_, e1 := uri.Parse(s)
				_, e2 := fredbi.Parse(s)
				if e1 == nil {
					ours++
				}
				if e2 == nil {
					theirs++
				}
				if e1 == nil && e2 == nil {
					both++
				}
			}
			t.Logf("%s: %d lines; accepted: uri.Parse %d, fredbi/uri.Parse %d, both %d", l.name, len(lines), ours, theirs, both)
			if both < ours*9/10 {
				t.Errorf("fredbi/uri rejects %d of the %d lines uri.Parse accepts", ours-both, ours)
			}
		})
	}
}
