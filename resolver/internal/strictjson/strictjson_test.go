package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data, &body{}) != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var b body
		if err := dec.Decode(&b); err != nil {
			t.Fatalf("Check passed %q, encoding/json: %v", data, err)
		}
	})
}
