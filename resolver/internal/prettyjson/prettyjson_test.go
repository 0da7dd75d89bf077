package prettyjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestIndentAsJSONIndent(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `"x"`, `1`, `null`,
		`{"title":"The Lord of the Rings","author":[{"family":"Tolkien","given":"J. R. R."}],"issued":{"date-parts":[[1987,1,1]]}}`,
		` { "a" : [ 1 , { } , [ ] , { "b" : "c\"d\\", "e":[ ] } ] , "f" : {"g":{"h":true}} } `,
		`{"s":"{[,:]}\u2028\ud83d\ude00"}`,
		`{"a":` + strings.Repeat("[", MaxDepth-1) + `1,2` + strings.Repeat("]", MaxDepth-1) + `}`,
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(strings.TrimSpace(in)), "", "  "); err != nil {
			t.Fatal(err)
		}
		got, err := Indent([]byte(in))
		if err != nil || got != want.String() {
			t.Errorf("%s:\n got %s (%v)\nwant %s", in, got, err, want.String())
		}
	}
	if _, err := Indent([]byte(`{"a":`)); err != ErrInvalid {
		t.Errorf("cut short: %v", err)
	}
	if _, err := Indent(nil); err != ErrInvalid {
		t.Errorf("empty: %v", err)
	}
}

// TestIndentBounded: a value nested deeper than MaxDepth is indented to
// that depth and compact below; one whose indented text would grow past the
// bound is compacted whole. The deep metadata of the security review
// (16 KB, 8185 levels) gave json.Indent 134 MB.
func TestIndentBounded(t *testing.T) {
	const n = 8185
	deep := `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	got, err := Indent([]byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > growth*len(deep)+slack {
		t.Fatalf("%d bytes from %d", len(got), len(deep))
	}
	lines := strings.Split(got, "\n")
	// A line for each level opened, one for the rest, one for each
	// closed.
	if len(lines) != 2*MaxDepth+1 {
		t.Fatalf("%d lines, want %d", len(lines), 2*MaxDepth+1)
	}
	// The deepest indented line holds the rest, compact.
	if l := lines[MaxDepth]; !strings.HasPrefix(l, strings.Repeat("  ", MaxDepth)+"[[") || len(l) < 2*(n-MaxDepth) {
		t.Fatalf("line %d: %.80s…", MaxDepth, l)
	}
	if !json.Valid([]byte(got)) {
		t.Fatal("not JSON")
	}
	var c bytes.Buffer
	json.Compact(&c, []byte(got))
	if c.String() != deep {
		t.Fatal("not the same value")
	}

	// Many short values at MaxDepth: each line's indentation is more
	// than growth times the value: compacted whole.
	wide := strings.Repeat("[", MaxDepth) + strings.Repeat("0,", 4000) + "0" + strings.Repeat("]", MaxDepth)
	if got, _ := Indent([]byte(wide)); got != wide {
		t.Fatalf("wide: %d bytes, want it compact (%d)", len(got), len(wide))
	}
	spaced := strings.ReplaceAll(wide, ",", " , ")
	if got, _ := Indent([]byte(spaced)); got != wide {
		t.Fatalf("wide with spaces: %d bytes, want it compact (%d)", len(got), len(wide))
	}
}

// FuzzIndent: Indent is json.Indent up to MaxDepth and within its bound,
// and otherwise the same value, never longer than the bound.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,{"b":"c"},[],{}]}`, `[[[[[[]]]]]]`, `"\"\\"`, ` {"a" : 1 } `, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Indent(data)
		if err != nil {
			if json.Valid(data) {
				t.Fatalf("%q: %v", data, err)
			}
			return
		}
		if len(got) > growth*len(data)+slack {
			t.Fatalf("%q: %d bytes", data, len(got))
		}
		var a, b bytes.Buffer
		json.Compact(&a, data)
		if err := json.Compact(&b, []byte(got)); err != nil || a.String() != b.String() {
			t.Fatalf("%q: %q is another value (%v)", data, got, err)
		}
		if depth(data) > MaxDepth {
			return // indented to MaxDepth only
		}
		var want bytes.Buffer
		json.Indent(&want, data, "", "  ")
		w := strings.TrimRight(want.String(), " \t\r\n") // json.Indent keeps trailing space
		if len(w) > growth*len(data)+slack {
			w = a.String() // past the bound: compact
		}
		if got != w {
			t.Fatalf("%q:\n got %q\nwant %q", data, got, w)
		}
	})
}

func depth(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	d, m := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return m
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			d++
			m = max(m, d)
		case json.Delim('}'), json.Delim(']'):
			d--
		}
	}
}
