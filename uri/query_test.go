package uri

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want Params
	}{
		{"", nil},
		{"a=1&b=2&a=3", Params{{"a", "1"}, {"b", "2"}, {"a", "3"}}},
		{"a", Params{{"a", ""}}},
		{"a=", Params{{"a", ""}}},
		{"=", Params{{"", ""}}},
		{"=v", Params{{"", "v"}}},
		{"&&a=1&", Params{{"a", "1"}}},
		{"a=b=c", Params{{"a", "b=c"}}},
		{"a+b=c+d", Params{{"a b", "c d"}}},
		{"%2B=%26%3D%23", Params{{"+", "&=#"}}},
		{"a;b=c", Params{{"a;b", "c"}}}, // ';' is no separator
		{"q=caf%C3%A9&x=%2F/?:@", Params{{"q", "café"}, {"x", "//?:@"}}},
		{"%zz", nil}, // below: errors
	}
	for _, tt := range tests[:len(tests)-1] {
		got, err := ParseQuery(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseQuery(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
		u := MustParseReference("http://h/?" + tt.in)
		if got := u.QueryParams(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("QueryParams(%q) = %#v", u, got)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
	}{
		{"a b", 1},
		{"a=%G1", 3},
		{"a=%4", 4},
		{"a#b", 1},
		{"a=\xc3\xa9", 2},
	} {
		_, err := ParseQuery(tt.in)
		e, ok := err.(*Error)
		if !ok || e.Input != tt.in || e.Offset != tt.offset {
			t.Errorf("ParseQuery(%q) error = %v, want one at byte %d", tt.in, err, tt.offset)
		}
	}
}

func TestQueryValue(t *testing.T) {
	u := MustParseReference("http://x/?a=1&b=c+d&a=2&e%20f=%41&g&=h&i=#frag")
	for _, tt := range []struct {
		name, value string
		ok          bool
	}{
		{"a", "1", true},
		{"b", "c d", true},
		{"e f", "A", true},
		{"g", "", true},
		{"", "h", true},
		{"i", "", true},
		{"frag", "", false},
		{"c", "", false},
		{"e%20f", "", false}, // names are compared decoded
	} {
		if v, ok := u.QueryValue(tt.name); v != tt.value || ok != tt.ok {
			t.Errorf("QueryValue(%q) = %q, %v; want %q, %v", tt.name, v, ok, tt.value, tt.ok)
		}
	}
	if n := testing.AllocsPerRun(10, func() { u.QueryValue("a"); u.QueryValue("g"); u.QueryValue("zz") }); n != 0 {
		t.Errorf("QueryValue allocates %v times for plain values", n)
	}
	if _, ok := MustParseReference("http://x/").QueryValue(""); ok {
		t.Error("a URI without a query has a pair named \"\"")
	}
	if _, ok := MustParseReference("http://x/?").QueryValue(""); ok {
		t.Error("an empty query has a pair named \"\"")
	}
}

func TestParamsMethods(t *testing.T) {
	ps := Params{{"a", "1"}, {"b", "2"}, {"a", "3"}}
	if ps.Get("a") != "1" || ps.Get("c") != "" || !ps.Has("b") || ps.Has("c") {
		t.Errorf("Get/Has on %v", ps)
	}
	if vs := ps.Values("a"); !reflect.DeepEqual(vs, []string{"1", "3"}) {
		t.Errorf("Values(a) = %q", vs)
	}
	if vs := ps.Values("c"); vs != nil {
		t.Errorf("Values(c) = %q", vs)
	}
	ps.Add("c", "4")
	ps.Set("a", "5")
	if want := (Params{{"a", "5"}, {"b", "2"}, {"c", "4"}}); !reflect.DeepEqual(ps, want) {
		t.Errorf("after Add and Set: %v, want %v", ps, want)
	}
	ps.Set("d", "6")
	ps.Del("b")
	if want := (Params{{"a", "5"}, {"c", "4"}, {"d", "6"}}); !reflect.DeepEqual(ps, want) {
		t.Errorf("after Set and Del: %v, want %v", ps, want)
	}
	var empty Params
	empty.Set("x", "y")
	empty.Del("z")
	if want := (Params{{"x", "y"}}); !reflect.DeepEqual(empty, want) {
		t.Errorf("Set on nil Params: %v", empty)
	}
}

func TestParamsEncode(t *testing.T) {
	ps := Params{{"a b", "c&d"}, {"x+y", "="}, {"é", "#;"}, {"", ""}, {"k", "/?:@!$'()*,~"}}
	const want = "a+b=c%26d&x%2By=%3D&%C3%A9=%23%3B&=&k=/?:@!$'()*,~"
	if got := ps.Encode(); got != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
	if got := string(ps.AppendEncode([]byte("?"))); got != "?"+want {
		t.Errorf("AppendEncode = %q", got)
	}
	back, err := ParseQuery(want)
	if err != nil || !reflect.DeepEqual(back, ps) {
		t.Errorf("ParseQuery(Encode) = %v, %v", back, err)
	}
	// net/url reads it the same way.
	nv, err := url.ParseQuery(strings.ReplaceAll(want, "%3B", "%3b"))
	if err != nil || nv.Get("a b") != "c&d" || nv.Get("é") != "#;" || nv.Get("k") != "/?:@!$'()*,~" {
		t.Errorf("net/url reads %q as %v, %v", want, nv, err)
	}
	if Params(nil).Encode() != "" {
		t.Error("nil Params encode to text")
	}
}

// TestEscapeQueryValue is the example of issue 11: data escaped for a
// query value must read back the same, whether the query is read as a
// form or by RFC 3986 alone.
func TestEscapeQueryValue(t *testing.T) {
	if got, want := Escape("a&b c+d", ComponentQueryValue), "a%26b%20c%2Bd"; got != want {
		t.Errorf("Escape(ComponentQueryValue) = %q, want %q", got, want)
	}
	// ComponentQuery is for a whole query, where '&' keeps its meaning.
	if got, want := Escape("a&b c+d", ComponentQuery), "a&b%20c+d"; got != want {
		t.Errorf("Escape(ComponentQuery) = %q, want %q", got, want)
	}
	for _, v := range []string{"a&b c+d", "x=y", "100%", "#frag", "a;b", "é", "", "\x00\xff", "?/:@"} {
		u, err := ParseReference("http://h/?k=" + Escape(v, ComponentQueryValue) + "&z=1")
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got, ok := u.QueryValue("k"); !ok || got != v {
			t.Errorf("%q: QueryValue = %q, %v", v, got, ok)
		}
		if got := u.DecodedQuery(); got != "k="+v+"&z=1" {
			t.Errorf("%q: DecodedQuery = %q", v, got)
		}
		if nv, err := url.ParseQuery(u.Query()); err != nil || nv.Get("k") != v || nv.Get("z") != "1" {
			t.Errorf("%q: net/url reads %q as %v, %v", v, u.Query(), nv, err)
		}
	}
}

func FuzzQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, q, name, value string) {
		ps, err := ParseQuery(q)
		// The same text as the query of a URI (a '#' would end it).
		u, errU := ParseReference("?" + q)
		if errU == nil && u.HasFragment() {
			errU = errAt(ErrInvalidQuery, "?"+q, int(u.fragStart), "fragment")
		}
		if err != nil {
			checkParseError(t, q, err)
			if errU == nil {
				t.Fatalf("ParseQuery(%q) fails (%v), but it is a valid query", q, err)
			}
			if e := errU.(*Error); !strings.Contains(q, "#") && e.Offset != err.(*Error).Offset+1 {
				t.Fatalf("ParseQuery(%q) fails at %d, the query at %d", q, err.(*Error).Offset, e.Offset-1)
			}
		} else {
			if errU != nil {
				t.Fatalf("ParseQuery(%q) accepts an invalid query: %v", q, errU)
			}
			if got := u.QueryParams(); !reflect.DeepEqual(got, ps) {
				t.Fatalf("%q: QueryParams %v, ParseQuery %v", q, got, ps)
			}
			for _, p := range ps {
				if v, ok := u.QueryValue(p.Name); !ok || v != ps.Get(p.Name) {
					t.Fatalf("%q: QueryValue(%q) = %q, %v; Get gives %q", q, p.Name, v, ok, ps.Get(p.Name))
				}
			}
			enc := ps.Encode()
			back, err := ParseQuery(enc)
			if err != nil || !reflect.DeepEqual(back, ps) {
				t.Fatalf("%q: Encode %q reads back as %v, %v; want %v", q, enc, back, err, ps)
			}
		}
		// One pair, of any bytes, survives Encode and Escape.
		one := Params{{name, value}}
		back, err := ParseQuery(one.Encode())
		if err != nil || !reflect.DeepEqual(back, one) {
			t.Fatalf("Params{%q, %q}.Encode() = %q reads back as %v, %v", name, value, one.Encode(), back, err)
		}
		raw := Escape(name, ComponentQueryValue) + "=" + Escape(value, ComponentQueryValue)
		v, err := ParseReference("?x=1&" + raw)
		if err != nil {
			t.Fatalf("escaped pair %q: %v", raw, err)
		}
		if name != "x" {
			if got, ok := v.QueryValue(name); !ok || got != value {
				t.Fatalf("escaped pair %q: QueryValue(%q) = %q, %v", raw, name, got, ok)
			}
		}
	})
}
