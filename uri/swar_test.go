package uri

import (
	"math/rand"
	"strings"
	"testing"
)

var wordClasses = []struct {
	name string
	w    *wordClass
}{
	{"scheme", &wordScheme},
	{"reg-name", &wordRegName},
	{"segment-nz-nc", &wordSegmentNC},
	{"path", &wordPath},
	{"query", &wordQuery},
}

// scanRef is the plain loop that scanWords must agree with: one table
// lookup per byte (scan, or its pct-encoded-free form for a scheme).
func scanRef(s string, i int, w *wordClass) int {
	if w.pct {
		return scan(s, i, w.mask)
	}
	for i < len(s) && class[s[i]]&w.mask != 0 {
		i++
	}
	return i
}

// TestWordClassesInClass checks that every byte a word test lets through
// belongs to the class: the word part may only be narrower.
func TestWordClassesInClass(t *testing.T) {
	for _, wc := range wordClasses {
		for c := 0; c < 256; c++ {
			x := uint64(c) * lsb // the byte in every lane
			if wordBad(x, wc.w.r1, wc.w.r2) == 0 && class[c]&wc.w.mask == 0 {
				t.Errorf("%s: byte 0x%02X passes the word test but is not in the class", wc.name, c)
			}
		}
	}
}

// TestScanWordsEveryByte puts every byte value at every position of runs
// of every length up to 40 (so in every lane of a word, in the first and
// in the last window, and before and after a short run), with the scan
// starting at every offset, and compares with the plain loop.
func TestScanWordsEveryByte(t *testing.T) {
	maxLen := 72
	if testing.Short() {
		maxLen = 40 // still a window of each kind and a tail
	}
	for _, wc := range wordClasses {
		for n := 0; n <= maxLen; n++ {
			buf := []byte(strings.Repeat("a", n))
			for pos := 0; pos < n; pos++ {
				for c := 0; c < 256; c++ {
					buf[pos] = byte(c)
					s := string(buf)
					for i := 0; i <= n; i++ {
						if got, want := scanWords(s, i, wc.w), scanRef(s, i, wc.w); got != want {
							t.Fatalf("%s: scanWords(%q, %d) = %d, plain loop %d", wc.name, s, i, got, want)
						}
					}
				}
				buf[pos] = 'a'
			}
		}
	}
}

// TestScanWordsRandom compares scanWords with the plain loop on random
// strings drawn mostly from URI characters, with percent-encodings (valid
// and broken) and bytes >= 0x80 among them, the same seed every run.
func TestScanWordsRandom(t *testing.T) {
	pieces := []string{
		"a", "Z", "0", "9", "-", ".", "_", "~", "/", ":", "@", "?", "#", "=", "&", "+", "!", "$", "'", "(", ";", ",",
		"%41", "%2f", "%", "%4", "%g1", " ", "\x00", "\x7f", "\x80", "\xff", "é", "[", "]", "\\", "^", "`", "{", "|", "}",
		"abcdefgh", "ABCDEFGHIJKLMNOP", "/node_modules/", "0123456789",
	}
	rng := rand.New(rand.NewSource(8))
	var b strings.Builder
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for range n {
		b.Reset()
		for k := rng.Intn(16); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		i := 0
		if len(s) > 0 {
			i = rng.Intn(len(s) + 1)
		}
		for _, wc := range wordClasses {
			if got, want := scanWords(s, i, wc.w), scanRef(s, i, wc.w); got != want {
				t.Fatalf("%s: scanWords(%q, %d) = %d, plain loop %d", wc.name, s, i, got, want)
			}
		}
	}
}

func FuzzScanWords(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, start uint16) {
		i := int(start) % (len(s) + 1)
		for _, wc := range wordClasses {
			if got, want := scanWords(s, i, wc.w), scanRef(s, i, wc.w); got != want {
				t.Fatalf("%s: scanWords(%q, %d) = %d, plain loop %d", wc.name, s, i, got, want)
			}
		}
	})
}

// TestURLListsMatchABNF parses every line of the URL lists and compares
// with the Appendix A expressions of abnf_test.go, an oracle that shares
// no code with the scanners.
func TestURLListsMatchABNF(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the URL lists")
	}
	for _, f := range benchListFiles {
		for _, s := range loadURLList(t, f.file).lines {
			want, wantKind, valid := abnfParse(s)
			u, err := ParseReference(s)
			if valid != (err == nil) {
				t.Fatalf("%s: ParseReference(%q): %v; Appendix A says valid: %v", f.name, s, err, valid)
			}
			if valid {
				if got, gotKind := parseFields(u); got != want || gotKind != wantKind {
					t.Fatalf("%s: ParseReference(%q) = %q %v, Appendix A gives %q %v", f.name, s, got, gotKind, want, wantKind)
				}
			}
		}
	}
}
