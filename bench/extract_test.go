package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"mvdan.cc/xurls/v2"

	"github.com/urikit/urikit/extract"
)

// benchText builds the text both extractors read: the seed documents
// (prose with few URIs) and lines of the URL lists written into sentences,
// about 2 MB (the text of extract's own benchmarks).
func benchText(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	seeds, _ := filepath.Glob(filepath.Join(sharedDir, "seeds", "*.txt"))
	for _, p := range seeds {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(d)
		buf.WriteByte('\n')
	}
	for _, name := range []string{"kasztp.txt", "node_files.txt"} {
		lines := urlList(b, name)
		for i, l := range lines[:min(len(lines), 8000)] {
			switch i % 4 {
			case 0:
				buf.WriteString("See " + l + " for details.\n")
			case 1:
				buf.WriteString("Linked as <" + l + ">, mentioned in passing.\n")
			case 2:
				buf.WriteString(`Quoted: "` + l + "\" (old).\n")
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

// BenchmarkExtract: extract.Scanner against xurls' strict matcher over the
// same text, in the same run.
func BenchmarkExtract(b *testing.B) {
	text := benchText(b)
	b.Run("urikit", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			sc := extract.NewScanner(bytes.NewReader(text), extract.Options{})
			for sc.Scan() {
				sinkInt++
			}
		}
	})
	b.Run("xurls-strict", func(b *testing.B) {
		re := xurls.Strict()
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			sinkInt += len(re.FindAllIndex(text, -1))
		}
	})
}
