package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

type loc struct {
	URL   string `json:"url"`
	Type  string `json:"type,omitempty"`
	Label string `json:"label,omitempty"`
	Key   string `json:"-"`
}

type inner struct {
	Aliases   []string        `json:"aliases"`
	Locations []loc           `json:"locations"`
	Metadata  json.RawMessage `json:"metadata"`
	Redirect  int             `json:"redirect" want:"301, 302, 303 or 307"`
}

type body struct {
	inner
	URN    *string         `json:"urn"`
	Status json.RawMessage `json:"status"`
	Count  uint8           `json:"count"`
	Ratio  float64         `json:"ratio"`
	OK     bool            `json:"ok"`
	Tags   map[string]int  `json:"tags"`
	Any    any             `json:"any"`
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in, path, msg string
	}{
		{`{"locations":[{"url":"https://a/"}],"aliases":["urn:a:b"],"redirect":307,"metadata":{"x":[1,{"y":null}]}}`, "", ""},
		{`{"urn":"urn:a:b","status":{"any":["thing"]},"count":255,"ratio":1e300,"ok":true,"tags":{"a":1},"any":[{}]}`, "", ""},
		{`{"urn":null,"locations":null,"redirect":null}`, "", ""},
		{`{"locations":[{"url":"https://a/"},{"url":"https://b/","rel":"x"}]}`,
			"locations[1].rel", `unknown member "rel" in locations[1]`},
		{`{"Locations":[{"url":"https://a/"}]}`,
			"Locations", `unknown member "Locations" (member names are case-sensitive: "locations")`},
		{`{"locations":[{"URL":"https://a/"}]}`,
			"locations[0].URL", `unknown member "URL" in locations[0] (member names are case-sensitive: "url")`},
		{`{"Key":"x"}`, "Key", `unknown member "Key"`},
		{`{"locations":[{"url":"https://a/","a.b":1}]}`, `locations[0]["a.b"]`, `unknown member "a.b" in locations[0]`},
		{`{"":1}`, `[""]`, `unknown member ""`},
		{`{"locations":[{"url":"https://a/"},{"url":5}]}`,
			"locations[1].url", "locations[1].url must be a string, not the number 5"},
		{`{"aliases":["urn:a:b","urn:a:c",3]}`, "aliases[2]", "aliases[2] must be a string, not the number 3"},
		{`{"redirect":303.5}`, "redirect", "redirect must be 301, 302, 303 or 307, not the number 303.5"},
		{`{"redirect":"303"}`, "redirect", `redirect must be 301, 302, 303 or 307, not the string "303"`},
		{`{"locations":"https://a/"}`, "locations", `locations must be an array, not the string "https://a/"`},
		{`{"locations":[["x"]]}`, "locations[0]", "locations[0] must be an object, not an array"},
		{`{"count":256}`, "count", "count must be a whole number, not the number 256"},
		{`{"count":-1}`, "count", "count must be a whole number, not the number -1"},
		{`{"ok":"yes"}`, "ok", `ok must be true or false, not the string "yes"`},
		{`{"ratio":false}`, "ratio", "ratio must be a number, not false"},
		{`{"tags":{"a":"b"}}`, "tags.a", `tags.a must be an integer, not the string "b"`},
		{`{"urn":{}}`, "urn", "urn must be a string, not an object"},
		{`[1]`, "", "the value must be an object, not an array"},
		{`{"redirect":"0123456789012345678901234567890123456789xyz"}`,
			"redirect", `redirect must be 301, 302, 303 or 307, not the string "0123456789012345678901234567890123456789…"`},
	} {
		err := Check([]byte(c.in), &body{})
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.in, err)
			}
			var b body
			if err := json.Unmarshal([]byte(c.in), &b); err != nil {
				t.Errorf("%s passes Check but not encoding/json: %v", c.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", c.in, err)
			continue
		}
		if e.Path != c.path || e.Error() != c.msg {
			t.Errorf("%s:\n got %q %q\nwant %q %q", c.in, e.Path, e.Error(), c.path, c.msg)
		}
	}
}

func TestCheckSyntax(t *testing.T) {
	for _, in := range []string{`{"locations":[{"url":nope}]}`, `{"urn":"x",}`} {
		var se *json.SyntaxError
		if err := Check([]byte(in), &body{}); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *json.SyntaxError", in, err)
		}
	}
	for _, in := range []string{`{"locations":[{"url":"https://a/"}`, `{"status":{"a":[`, ``} {
		if err := Check([]byte(in), &body{}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v, want io.ErrUnexpectedEOF", in, err)
		}
	}
	// Only the first value is read.
	if err := Check([]byte(`{} {"x":1}`), &body{}); err != nil {
		t.Errorf("trailing value: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	e := &Error{Want: "an object", Got: "an array"}
	if got := e.Describe("the body"); got != "the body must be an object, not an array" {
		t.Errorf("Describe: %q", got)
	}
}

// FuzzCheck: Check never panics, and what it passes encoding/json decodes
// (with unknown members refused, as the callers decode), so a caller never
// meets an error Check should have named.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"locations":[{"url":"https://a/"}],"aliases":["urn:a:b"],"redirect":307,"metadata":{"x":[1]}}`,
		`{"urn":null,"count":255,"ratio":1e300,"ok":true,"tags":{"a":1},"any":[{}]}`,
		`{"Locations":[]}`, `[1]`, `{"redirect":303.5}`, `{"status":{"a":[{"b":"c"}]}}`, `{"a":`,
		`{"locations":[],"locations":[]}`, `{"metadata":{"a":[{"b":1,"b":2}]}}`, `{"tags":{"x":1,"\u0078":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data, &body{}) != nil {
			return
		}
		if err := Unique(data, ""); err != nil {
			t.Fatalf("Check passed %q, Unique: %v", data, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var b body
		if err := dec.Decode(&b); err != nil {
			t.Fatalf("Check passed %q, encoding/json: %v", data, err)
		}
	})
}

func TestDuplicates(t *testing.T) {
	for _, c := range []struct {
		in, path, msg string
		offset        int
	}{
		{`{"locations":[{"url":"https://a/"}],"locations":[{"url":"https://b/"}]}`,
			"locations", `member "locations" is given twice`, 36},
		{`{"locations":[{"url":"https://a/","label":"x", "label":"y"}]}`,
			"locations[0].label", `member "label" in locations[0] is given twice`, 47},
		{`{"metadata":{"a":1,"a":2}}`, "metadata.a", `member "a" in metadata is given twice`, 19},
		{`{"metadata":{"a":[1,{"b":{}, "c":[], "b":0}]}}`, "metadata.a[1].b", `member "b" in metadata.a[1] is given twice`, 37},
		{`{"metadata":{"a":1,"\u0061":2}}`, "metadata.a", `member "a" in metadata is given twice`, 19},
		{`{"metadata":{"dc.title":1,"dc.title":2}}`, `metadata["dc.title"]`, `member "dc.title" in metadata is given twice`, 26},
		{`{"metadata":{"":{"":1,"":2}}}`, `metadata[""][""]`, `member "" in metadata[""] is given twice`, 22},
		{`{"tags":{"x":1,"y":2,"x":3}}`, "tags.x", `member "x" in tags is given twice`, 21},
		{`{"any":[[{"k":true,"k":false}]]}`, "any[0][0].k", `member "k" in any[0][0] is given twice`, 19},
		{`{"status":{"s":"", ` + "\n\t" + `"s":""}}`, "status.s", `member "s" in status is given twice`, 21},
		{`{"redirect":301,"redirect":301}`, "redirect", `member "redirect" is given twice`, 16},
	} {
		var e *Error
		if err := Check([]byte(c.in), &body{}); !errors.As(err, &e) || !e.Duplicate {
			t.Errorf("%s: %v, want a duplicate", c.in, err)
			continue
		}
		if e.Path != c.path || e.Offset != c.offset || !strings.HasPrefix(e.Error(), c.msg+": ") {
			t.Errorf("%s:\n got %q at %d: %q\nwant %q at %d: %q", c.in, e.Path, e.Offset, e.Error(), c.path, c.offset, c.msg)
		}
		if c.in[e.Offset] != '"' {
			t.Errorf("%s: offset %d is not a name's quote", c.in, e.Offset)
		}
		// Unique finds the same, from the value as a whole.
		var u *Error
		if err := Unique([]byte(c.in), "body"); !errors.As(err, &u) || u.Offset != c.offset || u.Path != "body."+c.path {
			t.Errorf("Unique %s: %v", c.in, err)
		}
	}
	// Names that differ, in case or otherwise, are not the same name.
	for _, in := range []string{
		`{"metadata":{"a":1,"A":2,"a ":3,"b":{"a":1},"c":[{"a":1},{"a":2}]}}`,
		`{"metadata":{"e\u0301":1,"é":2}}`, // canonically equivalent, not the same code points
	} {
		if err := Check([]byte(in), &body{}); err != nil {
			t.Errorf("%s: %v", in, err)
		}
		if err := Unique([]byte(in), ""); err != nil {
			t.Errorf("Unique %s: %v", in, err)
		}
	}
	// Many members: the names kept in a map past the first few.
	var b strings.Builder
	b.WriteString(`{"metadata":{`)
	for i := range 40 {
		fmt.Fprintf(&b, `"m%d":%d,`, i, i)
	}
	b.WriteString(`"m0":0}}`)
	var e *Error
	if err := Check([]byte(b.String()), &body{}); !errors.As(err, &e) || !e.Duplicate || e.Path != "metadata.m0" {
		t.Errorf("41st member a duplicate of the first: %v", err)
	}
	if err := Check([]byte(strings.TrimSuffix(b.String(), `"m0":0}}`)+`"m40":0}}`), &body{}); err != nil {
		t.Errorf("41 members: %v", err)
	}
}

func TestUniqueDeep(t *testing.T) {
	// free keeps its own stack: a value as deep as encoding/json reads
	// (10000 levels) does not grow the goroutine's.
	const n = 10000
	in := `{"a":` + strings.Repeat(`[{"b":`, n/2-1) + `{"c":1,"c":2}` + strings.Repeat(`}]`, n/2-1) + `}`
	var e *Error
	if err := Unique([]byte(in), "metadata"); !errors.As(err, &e) || !e.Duplicate || !strings.HasSuffix(e.Path, "[0].b.c") {
		t.Fatalf("%v", err)
	}
	if err := Unique([]byte(strings.Replace(in, `"c":2`, `"d":2`, 1)), "metadata"); err != nil {
		t.Fatal(err)
	}
	if err := Unique([]byte(`{"a":[1,2`), ""); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut short: %v", err)
	}
	if err := Unique([]byte(`"a"`), ""); err != nil {
		t.Fatalf("a string: %v", err)
	}
}

func TestInvalidUTF8(t *testing.T) {
	for in, want := range map[string]int{
		``: -1, `{"a":"ok"}`: -1, "{\"a\":\"é€😀\ufffd\"}": -1,
		"{\"label\":\"ok\xff\"}": 12, "\xef\xbb": 0, "ab\xc3": 2, "a\xed\xa0\x80": 1, // a lone surrogate
		"a\xc0\xaf": 1, // overlong "/"
	} {
		if got := InvalidUTF8([]byte(in)); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}

func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  int
	}{
		{`{}`, 1, -1},
		{`{"a":[]}`, 1, 5},
		{`{"a":[]}`, 2, -1},
		{`{"a":"[[[[{{{{","b":[[1]]}`, 2, 21},
		{`{"a":"\"[[","b":[1],"c":{"d":[]}}`, 3, -1},
		{`{"a":"\"[[","b":[1],"c":{"d":[]}}`, 2, 29},
		{`{"a":"\\","b":[[1]]}`, 2, 15},
		{`[[],[],[[]]]`, 2, 8},
		{`{"a":` + strings.Repeat("[", 8185) + strings.Repeat("]", 8185) + `}`, 32, 5 + 31}, // the 32nd "[" is the 33rd level
	} {
		if got := TooDeep([]byte(c.in), c.limit); got != c.want {
			t.Errorf("%.40s (limit %d): %d, want %d", c.in, c.limit, got, c.want)
		}
	}
}

// FuzzUnique: Unique finds a name given twice exactly when decoding into
// maps loses members, and names the place; TooDeep agrees with the depth
// encoding/json's tokens reach.
func FuzzUnique(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"a":[{"b":{},"c":[],"b":0}]}`, `{"a":1,"\u0061":2}`,
		`[[[]]]`, `{"a":"[[{"}`, `{"":{"":1,"":2}}`, `"x"`, `{"a":[1,{"b":[{"c":null}]}],"d":{"e":{"f":{}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			Unique(data, "")
			return
		}
		// Count the member names, and the deepest level, from the tokens.
		dec := json.NewDecoder(bytes.NewReader(data))
		var objs []bool // open values: true for an object
		var afterName []bool
		names, depth := 0, 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			key := len(objs) > 0 && objs[len(objs)-1] && !afterName[len(afterName)-1]
			if len(afterName) > 0 && objs[len(objs)-1] {
				afterName[len(afterName)-1] = key
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				objs, afterName = append(objs, tok == json.Delim('{')), append(afterName, false)
				depth = max(depth, len(objs))
			case json.Delim('}'), json.Delim(']'):
				objs, afterName = objs[:len(objs)-1], afterName[:len(afterName)-1]
			default:
				if key {
					names++
				}
			}
		}
		var v any
		vd := json.NewDecoder(bytes.NewReader(data))
		vd.UseNumber() // a number too large for a float64 is still JSON
		if err := vd.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var keys func(any) int
		keys = func(v any) int {
			n := 0
			switch v := v.(type) {
			case map[string]any:
				for _, m := range v {
					n += 1 + keys(m)
				}
			case []any:
				for _, m := range v {
					n += keys(m)
				}
			}
			return n
		}
		err := Unique(data, "")
		var e *Error
		switch {
		case err == nil && keys(v) != names:
			t.Fatalf("%q: Unique passed, but %d names decode to %d members", data, names, keys(v))
		case err != nil && (!errors.As(err, &e) || !e.Duplicate || data[e.Offset] != '"'):
			t.Fatalf("%q: %v", data, err)
		case err != nil && keys(v) == names:
			t.Fatalf("%q: %v, but every name decodes to a member", data, err)
		}
		if TooDeep(data, depth) != -1 || depth > 0 && TooDeep(data, depth-1) < 0 {
			t.Fatalf("%q: %d deep, TooDeep %d, %d", data, depth, TooDeep(data, depth), TooDeep(data, depth-1))
		}
	})
}
