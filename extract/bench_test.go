package extract

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The side-by-side comparison with mvdan.cc/xurls/v2 is in the bench module
// (../bench), so that the peer is no dependency of this one.

// benchText builds the same text for both scanners: the seed documents
// (prose with few URIs) and lines of the URL lists in shared/data/urls
// written into sentences, about 2 MB.
func benchText(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	seeds, _ := filepath.Glob("../../shared/seeds/*.txt")
	for _, p := range seeds {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(d)
		buf.WriteByte('\n')
	}
	for _, name := range []string{"kasztp.txt", "node_files.txt"} {
		d, err := os.ReadFile(filepath.Join("../../shared/data/urls", name))
		if err != nil {
			b.Skip("shared URL lists not found")
		}
		lines := bytes.Split(d, []byte("\n"))
		for i, l := range lines[:min(len(lines), 8000)] {
			switch i % 4 {
			case 0:
				buf.WriteString("See ")
				buf.Write(l)
				buf.WriteString(" for details.\n")
			case 1:
				buf.WriteString("Linked as <")
				buf.Write(l)
				buf.WriteString(">, mentioned in passing.\n")
			case 2:
				buf.WriteString(`Quoted: "`)
				buf.Write(l)
				buf.WriteString("\" (old).\n")
			default:
				buf.WriteString("Note: nothing here, ratio 3:1, time 10:30; foo.com:8080.\n")
			}
		}
	}
	if buf.Len() < 1<<20 {
		b.Skip("bench text too small")
	}
	return buf.Bytes()
}

func BenchmarkScanner(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	b.ResetTimer() // b.Loop would need Go 1.24; the module asks for 1.22
	for range b.N {
		sc := NewScanner(bytes.NewReader(text), Options{})
		for sc.Scan() {
			n++
		}
	}
	_ = n
}

// BenchmarkScannerDiscard counts without building the URI strings' slice,
// streaming through an io.Reader that hides the bytes.Reader fast paths.
func BenchmarkScannerStream(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	b.ResetTimer()
	for range b.N {
		sc := NewScanner(struct{ io.Reader }{bytes.NewReader(text)}, Options{})
		for sc.Scan() {
		}
	}
}
