package extract

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/urikit/urikit/uri"
)

// conformanceCase is one line of a conformance corpus (extract op only).
type conformanceCase struct {
	Op     string          `json:"op"`
	Text   string          `json:"text"`
	IRI    bool            `json:"iri"`
	Expect json.RawMessage `json:"expect"`
	Source string          `json:"source"`
}

func loadCorpus(t *testing.T, path string) []conformanceCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			t.Skipf("%s not found", path)
		}
		t.Fatal(err)
	}
	defer f.Close()
	var out []conformanceCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var c conformanceCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.Op == "extract" {
			out = append(out, c)
		}
	}
	return out
}

// TestConformance runs the extract vectors: the project's own (written from
// PROTOCOL.md) and the shared public ones.
func TestConformance(t *testing.T) {
	for _, path := range []string{
		"../testdata/conformance/extract.jsonl",
		"../testdata/conformance/extract-iri.jsonl",
		"../../shared/conformance/rfc3986-examples.jsonl",
	} {
		cases := loadCorpus(t, path)
		if len(cases) == 0 {
			t.Fatalf("%s: no extract cases", path)
		}
		for _, c := range cases {
			var exp struct {
				Result []string `json:"result"`
			}
			if err := json.Unmarshal(c.Expect, &exp); err != nil {
				t.Fatal(err)
			}
			want := exp.Result
			if want == nil {
				want = []string{}
			}
			opts := Options{IRI: c.IRI}
			if got := StringsWith(c.Text, opts); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%s)\n text: %q\n got:  %q\n want: %q", filepath.Base(path), c.Source, c.Text, got, want)
			}
			// The streaming scanner with one byte a read agrees.
			if got := scanAll(t, iotest.OneByteReader(strings.NewReader(c.Text)), opts); !reflect.DeepEqual(uris(got), want) {
				t.Errorf("%s (%s) streaming: got %q, want %q", filepath.Base(path), c.Source, uris(got), want)
			}
		}
	}
}

func scanAll(t *testing.T, r io.Reader, opts Options) []Match {
	t.Helper()
	var out []Match
	sc := NewScanner(r, opts)
	for sc.Scan() {
		out = append(out, sc.Match())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func uris(ms []Match) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.URI)
	}
	return out
}

func TestMatchDetails(t *testing.T) {
	tests := []struct {
		text string
		want []Match
	}{
		{"see http://a.example/x.", []Match{{URI: "http://a.example/x", Offset: 4, End: 22, Line: 1, Wrapper: Bare}}},
		{"1\n2\n<http://a.example/\n  b>", []Match{{URI: "http://a.example/b", Offset: 5, End: 26, Line: 3, Wrapper: Angle}}},
		{"< URL: http://a/ >", []Match{{URI: "http://a/", Offset: 7, End: 16, Line: 1, Wrapper: AngleURL}}},
		{"<URL:\nhttp://a/>", []Match{{URI: "http://a/", Offset: 6, End: 15, Line: 2, Wrapper: AngleURL}}},
		{`x "http://a/" y`, []Match{{URI: "http://a/", Offset: 3, End: 12, Line: 1, Wrapper: DoubleQuote}}},
		{`'URL: mailto:a@b.c'`, []Match{{URI: "mailto:a@b.c", Offset: 6, End: 18, Line: 1, Wrapper: SingleQuoteURL}}},
		{`"url:http://a/"`, []Match{{URI: "http://a/", Offset: 5, End: 14, Line: 1, Wrapper: DoubleQuoteURL}}},
		{"\n\nURL: http://a/b,", []Match{{URI: "http://a/b", Offset: 7, End: 17, Line: 3, Wrapper: URLPrefix}}},
		{"a\nb\nc http://a/ d\ne http://b/", []Match{
			{URI: "http://a/", Offset: 6, End: 15, Line: 3, Wrapper: Bare},
			{URI: "http://b/", Offset: 20, End: 29, Line: 4, Wrapper: Bare},
		}},
		{"caf\u00e9 \u00ab'http://a/'\u00bb", []Match{{URI: "http://a/", Offset: 9, End: 18, Line: 1, Wrapper: SingleQuote}}},
		// multi-byte whitespace inside <...> (U+2028 is 3 bytes, U+00A0 2)
		{"<\u2028URL:\u3000 http://a/\u00a0b >", []Match{{URI: "http://a/b", Offset: 12, End: 24, Line: 1, Wrapper: AngleURL}}},
		{"<URL:\u00a0http://a/>", []Match{{URI: "http://a/", Offset: 7, End: 16, Line: 1, Wrapper: AngleURL}}},
		// two spaces after a bare URL: — the prefix takes one at most
		{"URL:  http://a/", []Match{{URI: "http://a/", Offset: 6, End: 15, Line: 1, Wrapper: Bare}}},
	}
	for _, tt := range tests {
		got := All(tt.text)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("All(%q)\n got  %+v\n want %+v", tt.text, got, tt.want)
		}
	}
}

// TestQuotesUnicode: the quote rule speaks of ASCII letters and digits
// (PROTOCOL.md: "an opening quote is one not preceded by an ASCII letter or
// digit, a closing quote one not followed by an ASCII letter or digit").
func TestQuotesUnicode(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"\u00e9'http://a/'", []string{"http://a/"}},       // é before: still an opening quote
		{"'http://a/'\u00e9", []string{"http://a/"}},       // é after: still a closing quote
		{"\u00e9http://a/", []string{"http://a/"}},         // non-ASCII before a bare URI: it starts
		{"\u0661'http://a/'", []string{"http://a/"}},       // an Arabic-Indic digit is no ASCII digit
		{"a'http://a/'", []string{"http://a/'"}},           // an ASCII letter before: an apostrophe
		{"\u2014'http://a/'\u2014", []string{"http://a/"}}, // dashes are neither letters nor digits
	}
	for _, tt := range tests {
		if got := Strings(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Strings(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestLiteralRules pins consequences of PROTOCOL.md's rules that may
// surprise: they are what the rules say, documented in the README.
func TestLiteralRules(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// content-type is a registered scheme; the closing quote is taken
		// as an apostrophe at the end of a bare URI, and such one stays.
		{"'Content-Type:'", []string{"Content-Type:'"}},
		// inside quotes any valid absolute URI counts
		{`style="background:url(http://x/bg.png)"`, []string{"background:url(http://x/bg.png)"}},
		// registered schemes that are English words
		{"about:blank, example:foo and session:1", []string{"about:blank", "example:foo", "session:1"}},
		// a bare URI ends at whitespace: only the first line of a URI
		// broken without brackets is found
		{"http://a/b/\nc/d", []string{"http://a/b/"}},
	}
	for _, tt := range tests {
		if got := Strings(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Strings(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestCorpus checks the realistic texts in testdata/corpus against their
// .want files (line, offset, end, wrapper, URI; "-" for a bare URI).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.want")
	if err != nil || len(files) == 0 {
		t.Fatal("no corpus", err)
	}
	for _, wantFile := range files {
		base := strings.TrimSuffix(wantFile, ".want")
		textFiles, _ := filepath.Glob(base + ".*")
		var textFile string
		for _, f := range textFiles {
			if f != wantFile {
				textFile = f
			}
		}
		text, err := os.ReadFile(textFile)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(wantFile)
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, m := range All(string(text)) {
			w := m.Wrapper
			if w == "" {
				w = "-"
			}
			fmt.Fprintf(&got, "%d\t%d\t%d\t%s\t%s\n", m.Line, m.Offset, m.End, w, m.URI)
		}
		if got.String() != string(want) {
			t.Errorf("%s:\n got:\n%s\n want:\n%s", textFile, got.String(), want)
		}
		// Streaming, one byte a read, with a small MaxLen, agrees.
		if s := scanAll(t, iotest.OneByteReader(strings.NewReader(string(text))), Options{MaxLen: 200}); !reflect.DeepEqual(s, All(string(text))) {
			t.Errorf("%s: streaming differs", textFile)
		}
	}
}

func TestMaxLen(t *testing.T) {
	long := "http://a.example/" + strings.Repeat("x", 100)
	text := "see " + long + " and <" + long + "> and http://b.example/ ."
	if got := uris(scanAll(t, strings.NewReader(text), Options{MaxLen: 64})); !reflect.DeepEqual(got, []string{"http://b.example/"}) {
		t.Errorf("MaxLen 64: got %q", got)
	}
	if got := uris(scanAll(t, strings.NewReader(text), Options{MaxLen: 200})); !reflect.DeepEqual(got, []string{long, long, "http://b.example/"}) {
		t.Errorf("MaxLen 200: got %q", got)
	}
}

// repeatReader yields text n times without holding it all in memory.
type repeatReader struct {
	text string
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.text[r.off:])
	r.off += k
	if r.off == len(r.text) {
		r.off = 0
		r.n--
	}
	return k, nil
}

// TestConstantMemory scans 40 MB: the buffer never grows past its bound,
// and the offsets and line numbers come out right at the far end.
func TestConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("40 MB")
	}
	unit := "Some prose, a <http://example.com/a\n b> and \"mailto:x@example.org\".\n" +
		strings.Repeat("filler text without any links, just words; Note: none.\n", 10)
	const n = 40 << 20 / 600
	sc := NewScanner(&repeatReader{text: unit, n: n}, Options{})
	count := 0
	var last Match
	for sc.Scan() {
		last = sc.Match()
		count++
		if c := cap(sc.buf); c > DefaultMaxLen+slack+history+readChunk+1 {
			t.Fatalf("buffer grew to %d", c)
		}
	}
	if sc.Err() != nil || count != 2*n {
		t.Fatalf("count %d, err %v", count, sc.Err())
	}
	wantOff := int64((n-1)*len(unit) + strings.Index(unit, "mailto:"))
	if last.Offset != wantOff || last.Line != 2+(n-1)*12 || last.URI != "mailto:x@example.org" {
		t.Errorf("last match %+v, want offset %d line %d", last, wantOff, 2+(n-1)*12)
	}
}

type errReader struct{ n int }

func (r *errReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		r.n--
		return copy(p, "see http://a/ "), nil
	}
	return 0, io.ErrUnexpectedEOF
}

func TestReadError(t *testing.T) {
	sc := NewScanner(&errReader{n: 2}, Options{})
	var got []string
	for sc.Scan() {
		got = append(got, sc.Match().URI)
	}
	if sc.Err() != io.ErrUnexpectedEOF || len(got) != 2 {
		t.Errorf("got %q, err %v", got, sc.Err())
	}
}

func TestRegistered(t *testing.T) {
	for _, s := range []string{"http", "HTTP", "urn", "mailto", "news", "Content-Type", "machineprovisioningprogressreporter", "z39.50r"} {
		if !registered([]byte(s)) {
			t.Errorf("%s not registered", s)
		}
	}
	for _, s := range []string{"note", "url", "text", "foo.com", "host", "", strings.Repeat("a", 40)} {
		if registered([]byte(s)) {
			t.Errorf("%s registered", s)
		}
	}
}

// TestEveryResultParses checks the guarantee on the texts of the corpus
// and the seeds: each URI returned is accepted by uri.Parse.
func TestEveryResultParses(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/seeds/*.txt")
	more, _ := filepath.Glob("testdata/corpus/*")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range All(string(b)) {
			if _, err := uri.Parse(m.URI); err != nil {
				t.Errorf("%s: %q: %v", p, m.URI, err)
			}
		}
	}
}

// TestAngleWhitespace: PROTOCOL.md, "whitespace and line breaks inside
// <...> are dropped (after a hyphen at a line break the hyphen stays)".
// Whitespace is Unicode's White_Space: U+00A0, U+2028 and the like are
// dropped too (they used to make the wrapper fail, leaving the bare URI up
// to the space).
func TestAngleWhitespace(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"<http://a/\u00a0b>", []string{"http://a/b"}},
		{"<http://example.com/long-\u2028path>", []string{"http://example.com/long-path"}},
		{"<http://a/\u0085b\u2029c\u3000d\u202fe>", []string{"http://a/bcde"}},
		{"<URL:\u3000http://example.com/>", []string{"http://example.com/"}},
		{"<http://a/\u200bb>", []string{"http://a/"}}, // U+200B is no White_Space: the wrapper fails
		{"<http://a/%4\n1>", []string{"http://a/%41"}},
		{"<a <http://x/>>", []string{"http://x/"}},
		{"<<<http://a/>", []string{"http://a/"}},
		{"<http://a/ \"b\">", []string{"http://a/"}}, // '"' makes the content no URI; the bare URI ends at the space
	}
	for _, tt := range tests {
		if got := Strings(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Strings(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestQuoteURLPrefix: PROTOCOL.md, inside quotes "any valid absolute URI
// without whitespace counts", and the URL: prefix is "with or without a
// space" — one ' ' at most. A second space or a tab is whitespace inside
// the quotes: they count for nothing (they used to be skipped).
func TestQuoteURLPrefix(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{`"URL:foo:x"`, []string{"foo:x"}},
		{`"URL: foo:x"`, []string{"foo:x"}},
		{`'url:  foo:x'`, []string{}},
		{"\"URL:\tfoo:x\"", []string{}},
		{"\"URL:\nfoo:x\"", []string{}},
		// the quotes fail; the bare URI keeps its final apostrophe
		{"'URL:  http://a/'", []string{"http://a/'"}},
		{"\"URL:  http://a/\"", []string{"http://a/"}},
	}
	for _, tt := range tests {
		if got := Strings(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Strings(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestHostileLinear: texts where many wrappers or candidates share one
// long run of text take linear time (each used to read the run again, up
// to MaxLen: minutes for a megabyte of "-'a").
func TestHostileLinear(t *testing.T) {
	const n = 256 << 10
	for _, tt := range []struct {
		unit string
		want int
	}{
		{"-'a", 0},  // quotes that open and never close
		{"-\"a", 0}, // double quotes that do not close
		{"-'a:", 0}, // the same with a scheme
		{"<a", 0},   // angle brackets that never close
		{".a", 0},   // scheme characters, every 'a' a candidate
		{"http://a/'", 1},
		{"-'ü", 0}, // the same with non-ASCII letters, with and without IRI
		{"<ü", 0},
		{".ü.a", 0},
		{"http://ü/'", 1}, // one IRI, or (without IRI) one candidate not taken
		{"a:ü ", 0},
	} {
		text := strings.Repeat(tt.unit, n/len(tt.unit))
		for _, tail := range []string{"", ":", "://x#y#", ">", "' "} {
			for _, mode := range []bool{false, true} {
				if !mode && !isASCIIString(tt.unit) && tt.want > 0 {
					continue // without IRI a candidate with non-ASCII text is never taken
				}
				in := text + tail
				sc := NewScanner(strings.NewReader(in), Options{IRI: mode})
				var got int
				for sc.Scan() {
					got++
				}
				// Work, not time: the bytes the scanner's searches and parses
				// read. Without the caches these inputs cost ~n²/2.
				if limit := int64(4 * len(in)); sc.examined > limit {
					t.Errorf("%q×%d+%q: read %d bytes, want at most %d", tt.unit, n/len(tt.unit), tail, sc.examined, limit)
				}
				if tail == "" && got != tt.want {
					t.Errorf("%q×%d (IRI %v): %d URIs, want %d", tt.unit, n/len(tt.unit), mode, got, tt.want)
				}
			}
		}
	}
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
