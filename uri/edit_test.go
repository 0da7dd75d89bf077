package uri

import (
	"encoding"
	"net/url"
	"slices"
	"strings"
	"testing"
)

var _ encoding.TextAppender = URI{}

// editCase is one edit, and what it gives: a URI, or an error at an
// offset of errInput.
type editCase struct {
	in       string
	edit     func(URI) (URI, error)
	want     string
	errInput string // "" when no error is expected
	errAt    int
}

func runEdits(t *testing.T, name string, cases []editCase) {
	t.Helper()
	for _, c := range cases {
		u, err := Parser{AllowZoneID: true}.ParseReference(c.in)
		if err != nil {
			t.Fatalf("%s: %q: %v", name, c.in, err)
		}
		got, err := c.edit(u)
		if c.errInput != "" {
			e, ok := err.(*Error)
			if !ok || e.Input != c.errInput || e.Offset != c.errAt {
				t.Errorf("%s(%q) = %q, %v; want an error at byte %d of %q", name, c.in, got, err, c.errAt, c.errInput)
			}
			continue
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s(%q) = %q, %v; want %q", name, c.in, got, err, c.want)
			continue
		}
		if again, err := (Parser{AllowZoneID: true}).ParseReference(got.String()); err != nil || again != got {
			t.Errorf("%s(%q) = %#v, which parses as %#v, %v", name, c.in, got, again, err)
		}
	}
}

func with(f func(URI, string) (URI, error), arg string) func(URI) (URI, error) {
	return func(u URI) (URI, error) { return f(u, arg) }
}

func without(f func(URI) URI) func(URI) (URI, error) {
	return func(u URI) (URI, error) { return f(u), nil }
}

func TestWithScheme(t *testing.T) {
	runEdits(t, "WithScheme", []editCase{
		{in: "http://a/b", edit: with(URI.WithScheme, "https"), want: "https://a/b"},
		{in: "//a/b?q", edit: with(URI.WithScheme, "ftp"), want: "ftp://a/b?q"},
		{in: "b/c", edit: with(URI.WithScheme, "x-y.z+1"), want: "x-y.z+1:b/c"},
		{in: "http://a/b", edit: with(URI.WithScheme, ""), want: "//a/b"},
		{in: "urn:isbn:123", edit: with(URI.WithScheme, ""), errInput: "urn:isbn:123", errAt: 8},
		{in: "mailto:a@b", edit: with(URI.WithScheme, ""), want: "a@b"},
		{in: "http://a/", edit: with(URI.WithScheme, "1http"), errInput: "1http", errAt: 0},
		{in: "http://a/", edit: with(URI.WithScheme, "ht tp"), errInput: "ht tp", errAt: 2},
		{in: "http://a/", edit: with(URI.WithScheme, "http:"), errInput: "http:", errAt: 4},
	})
}

func TestWithAuthorityParts(t *testing.T) {
	runEdits(t, "WithUserinfo", []editCase{
		{in: "http://a/b", edit: with(URI.WithUserinfo, "me:pw"), want: "http://me:pw@a/b"},
		{in: "http://x@a/b", edit: with(URI.WithUserinfo, ""), want: "http://@a/b"},
		{in: "http://x@[::1]:8/b", edit: with(URI.WithUserinfo, "y%40z"), want: "http://y%40z@[::1]:8/b"},
		{in: "http://a/b", edit: with(URI.WithUserinfo, "a@b"), errInput: "a@b", errAt: 1},
		{in: "mailto:a@b", edit: with(URI.WithUserinfo, "u"), errInput: "mailto:a@b", errAt: 7},
		{in: "http://x:y@a/b", edit: without(URI.WithoutUserinfo), want: "http://a/b"},
		{in: "http://@[::1]/b", edit: without(URI.WithoutUserinfo), want: "http://[::1]/b"},
		{in: "http://a/b", edit: without(URI.WithoutUserinfo), want: "http://a/b"},
	})
	runEdits(t, "WithHost", []editCase{
		{in: "http://u@a:80/b?q#f", edit: with(URI.WithHost, "example.com"), want: "http://u@example.com:80/b?q#f"},
		{in: "http://a/b", edit: with(URI.WithHost, "2001:db8::1"), want: "http://[2001:db8::1]/b"},
		{in: "http://a/b", edit: with(URI.WithHost, "[2001:db8::1]"), want: "http://[2001:db8::1]/b"},
		{in: "http://[::1]:8/b", edit: with(URI.WithHost, "1.2.3.4"), want: "http://1.2.3.4:8/b"},
		{in: "http://a/b", edit: with(URI.WithHost, "[v1.x]"), want: "http://[v1.x]/b"},
		{in: "http://a/b", edit: with(URI.WithHost, "v1.x"), want: "http://v1.x/b"}, // a reg-name
		{in: "http://a/b", edit: with(URI.WithHost, "caf%C3%A9"), want: "http://caf%C3%A9/b"},
		{in: "file:///etc", edit: with(URI.WithHost, "h"), want: "file://h/etc"},
		{in: "http://a/b", edit: with(URI.WithHost, ""), want: "http:///b"},
		{in: "mailto:", edit: with(URI.WithHost, "h"), want: "mailto://h"},
		{in: "/p?q", edit: with(URI.WithHost, "h"), want: "//h/p?q"},
		{in: "http://[fe80::1%25eth0]/", edit: with(URI.WithHost, "a"), want: "http://a/"},
		{in: "mailto:a@b", edit: with(URI.WithHost, "h"), errInput: "mailto:a@b", errAt: 7},
		{in: "http://a/b", edit: with(URI.WithHost, "a b"), errInput: "a b", errAt: 1},
		{in: "http://a/b", edit: with(URI.WithHost, "a:80"), errInput: "a:80", errAt: 4},
		{in: "http://a/b", edit: with(URI.WithHost, "a/b"), errInput: "a/b", errAt: 1},
		{in: "http://a/b", edit: with(URI.WithHost, "[::1"), errInput: "[::1", errAt: 4},
		{in: "http://a/b", edit: with(URI.WithHost, "[::1]:80"), errInput: "[::1]:80", errAt: 5},
		{in: "http://a/b", edit: with(URI.WithHost, "fe80::1%eth0"), errInput: "fe80::1%eth0", errAt: 7},
		{in: "http://a/b", edit: with(URI.WithHost, "[fe80::1%25eth0]"), errInput: "[fe80::1%25eth0]", errAt: 8},
		{in: "http://a/b", edit: with(URI.WithHost, "%4"), errInput: "%4", errAt: 2},
	})
	runEdits(t, "WithPort", []editCase{
		{in: "http://a/b", edit: with(URI.WithPort, "8080"), want: "http://a:8080/b"},
		{in: "http://[::1]:1/b", edit: with(URI.WithPort, ""), want: "http://[::1]:/b"},
		{in: "http://a:1", edit: with(URI.WithPort, "007"), want: "http://a:007"},
		{in: "http://a/b", edit: with(URI.WithPort, "80a"), errInput: "80a", errAt: 2},
		{in: "a/b", edit: with(URI.WithPort, "80"), errInput: "a/b", errAt: 0},
		{in: "http://a:80/b", edit: without(URI.WithoutPort), want: "http://a/b"},
		{in: "http://[::1]:/b", edit: without(URI.WithoutPort), want: "http://[::1]/b"},
	})
}

func TestWithPathQueryFragment(t *testing.T) {
	runEdits(t, "WithPath", []editCase{
		{in: "http://a/b?q#f", edit: with(URI.WithPath, "/c/d%2Fe"), want: "http://a/c/d%2Fe?q#f"},
		{in: "http://a/b", edit: with(URI.WithPath, ""), want: "http://a"},
		{in: "mailto:x", edit: with(URI.WithPath, "y@z"), want: "mailto:y@z"},
		{in: "x?q", edit: with(URI.WithPath, "./a:b"), want: "./a:b?q"},
		{in: "http:x", edit: with(URI.WithPath, "//y"), errInput: "//y", errAt: 0},
		{in: "http://a/b", edit: with(URI.WithPath, "c"), errInput: "c", errAt: 0},
		{in: "x?q", edit: with(URI.WithPath, "a:b/c"), errInput: "a:b/c", errAt: 1},
		{in: "http://a/b", edit: with(URI.WithPath, "/c?d"), errInput: "/c?d", errAt: 2},
		{in: "http://a/b", edit: with(URI.WithPath, "/c d"), errInput: "/c d", errAt: 2},
		{in: "http://a/b", edit: with(URI.WithPath, "/%zz"), errInput: "/%zz", errAt: 2},
	})
	runEdits(t, "WithQuery", []editCase{
		{in: "http://a/b", edit: with(URI.WithQuery, "x=1&y=2"), want: "http://a/b?x=1&y=2"},
		{in: "http://a/b?old#f", edit: with(URI.WithQuery, ""), want: "http://a/b?#f"},
		{in: "http://a/b?q#f", edit: with(URI.WithQuery, "a/b?c"), want: "http://a/b?a/b?c#f"},
		{in: "http://a/b", edit: with(URI.WithQuery, "a#b"), errInput: "a#b", errAt: 1},
		{in: "http://a/b?q#f", edit: without(URI.WithoutQuery), want: "http://a/b#f"},
		{in: "http://a/b?#f", edit: without(URI.WithoutQuery), want: "http://a/b#f"},
	})
	runEdits(t, "WithFragment", []editCase{
		{in: "http://a/b?q", edit: with(URI.WithFragment, "sec-1"), want: "http://a/b?q#sec-1"},
		{in: "http://a/b#x", edit: with(URI.WithFragment, ""), want: "http://a/b#"},
		{in: "http://a/b", edit: with(URI.WithFragment, "a#b"), errInput: "a#b", errAt: 1},
		{in: "http://a/b#x", edit: without(URI.WithoutFragment), want: "http://a/b"},
	})
}

func TestPathSegments(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"http://a", nil},
		{"http://a/", []string{""}},
		{"http://a/b%2Fc/d", []string{"b/c", "d"}},
		{"http://a//x/", []string{"", "x", ""}},
		{"a/b%20c", []string{"a", "b c"}},
		{"mailto:x@y", []string{"x@y"}},
		{"?q", nil},
		{"/", []string{""}},
	} {
		u := MustParseReference(tt.in)
		got := slices.Collect(u.PathSegments())
		if !slices.Equal(got, tt.want) {
			t.Errorf("PathSegments(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := u.WithPathSegments(got...)
		if err != nil || !slices.Equal(slices.Collect(back.PathSegments()), got) {
			t.Errorf("WithPathSegments(PathSegments(%q)) = %q, %v", tt.in, back, err)
		}
	}
	// Stopping early.
	for seg := range MustParseReference("/a/b/c").PathSegments() {
		if seg != "a" {
			t.Errorf("first segment %q", seg)
		}
		break
	}
	if n := testing.AllocsPerRun(10, func() {
		for range MustParseReference("http://a/b/c/d").PathSegments() {
		}
	}); n != 0 {
		t.Errorf("PathSegments without escapes allocates %v times", n)
	}

	runEdits(t, "WithPathSegments", []editCase{
		{in: "http://a/x?q", edit: func(u URI) (URI, error) { return u.WithPathSegments("b/c", "d e", "") }, want: "http://a/b%2Fc/d%20e/?q"},
		{in: "http://a/x", edit: func(u URI) (URI, error) { return u.WithPathSegments() }, want: "http://a"},
		{in: "http://a", edit: func(u URI) (URI, error) { return u.WithPathSegments("") }, want: "http://a/"},
		{in: "x/y", edit: func(u URI) (URI, error) { return u.WithPathSegments("a:b", "c:d") }, want: "a%3Ab/c:d"},
		{in: "urn:x", edit: func(u URI) (URI, error) { return u.WithPathSegments("a:b", "c") }, want: "urn:a:b/c"},
		{in: "/x", edit: func(u URI) (URI, error) { return u.WithPathSegments("..", ".") }, want: "/../."},
		{in: "x", edit: func(u URI) (URI, error) { return u.WithPathSegments("", "y") }, errInput: "x", errAt: 0},
		{in: "/x", edit: func(u URI) (URI, error) { return u.WithPathSegments("", "y") }, errInput: "//y", errAt: 0},
		{in: "http://a/x", edit: func(u URI) (URI, error) { return u.WithPathSegments("", "y") }, want: "http://a//y"},
	})
}

func TestJoinPath(t *testing.T) {
	join := func(elem ...string) func(URI) (URI, error) {
		return func(u URI) (URI, error) { return u.JoinPath(elem...) }
	}
	runEdits(t, "JoinPath", []editCase{
		{in: "http://a/b?q", edit: join("c", "d"), want: "http://a/b/c/d?q"},
		{in: "http://a/b/", edit: join("/c/", "d/"), want: "http://a/b/c/d/"},
		{in: "http://a", edit: join("c"), want: "http://a/c"},
		{in: "http://a/b/c", edit: join("../d", "./e"), want: "http://a/b/d/e"},
		{in: "http://a/b", edit: join("../../../x"), want: "http://a/x"},
		{in: "http://a/b", edit: join("x%2Fy", "", "z"), want: "http://a/b/x%2Fy/z"},
		{in: "http://a/b", edit: join(), want: "http://a/b"},
		{in: "http://a/b/./c", edit: join(), want: "http://a/b/c"},
		{in: "x/y", edit: join("../z"), want: "x/y/../z"},
		{in: "../x", edit: join("y"), want: "../x/y"},
		{in: "/x", edit: join("../y"), want: "/y"},
		{in: "mailto:", edit: join("x@y"), want: "mailto:x@y"},
		{in: "foo:/a", edit: join("..", "..", "/b"), want: "foo:/b"},
		{in: "foo:a/..", edit: join("/", "/b"), want: "foo:/b"},
		{in: "foo:/a", edit: join("..//b"), want: "foo:/.//b"}, // "//b" would read as an authority
		{in: "", edit: join("a:b"), errInput: "a:b", errAt: 1},
		{in: "http://a/b", edit: join("c d"), errInput: "c d", errAt: 1},
		{in: "http://a/b", edit: join("c?d"), errInput: "c?d", errAt: 1},
	})
	// net/url agrees where it keeps to RFC 3986.
	for _, tt := range []struct{ base, elem string }{
		{"http://a/b", "c"}, {"http://a/b/", "c/"}, {"http://a/b/c", "../d"}, {"http://a", "c"},
	} {
		nu, _ := url.Parse(tt.base)
		got, err := MustParseReference(tt.base).JoinPath(tt.elem)
		if want := nu.JoinPath(tt.elem).String(); err != nil || got.String() != want {
			t.Errorf("JoinPath(%q, %q) = %q, %v; net/url gives %q", tt.base, tt.elem, got, err, want)
		}
	}
}

func TestRedacted(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://user:secret@host/p", "http://user:xxxxx@host/p"},
		{"http://user:@host", "http://user:xxxxx@host"},
		{"http://user@host:80", "http://user@host:80"},
		{"http://host/a:b@c", "http://host/a:b@c"},
		{"//u:p:q@[::1]:8/", "//u:xxxxx@[::1]:8/"},
		{"mailto:a:b@c", "mailto:a:b@c"},
	} {
		if got := MustParseReference(tt.in).Redacted(); got != tt.want {
			t.Errorf("Redacted(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if nu, err := url.Parse(tt.in); err == nil && nu.Redacted() != tt.want {
			t.Errorf("net/url Redacted(%q) = %q, we give %q", tt.in, nu.Redacted(), tt.want)
		}
	}
}

func TestCompareAndAppendText(t *testing.T) {
	in := []string{"http://b/", "HTTP://a/", "http://a/", "", "http://a/?", "http://a"}
	var us []URI
	for _, s := range in {
		us = append(us, MustParseReference(s))
	}
	slices.SortFunc(us, Compare)
	var got []string
	for _, u := range us {
		got = append(got, u.String())
	}
	if want := []string{"", "HTTP://a/", "http://a", "http://a/", "http://a/?", "http://b/"}; !slices.Equal(got, want) {
		t.Errorf("sorted: %q, want %q", got, want)
	}
	for _, a := range us {
		for _, b := range us {
			if (Compare(a, b) == 0) != (a == b) || Compare(a, b) != -Compare(b, a) {
				t.Errorf("Compare(%q, %q) = %d", a, b, Compare(a, b))
			}
		}
	}
	b, err := MustParseReference("http://a/").AppendText([]byte("x "))
	if err != nil || string(b) != "x http://a/" {
		t.Errorf("AppendText = %q, %v", b, err)
	}
}

// FuzzEdit replaces one component of a URI by arbitrary text and checks
// the promise of the With… methods: an edit succeeds exactly when writing
// the text in place of the component gives a URI that reads back with that
// component and every other one unchanged; on success the result is that
// URI. It also checks PathSegments against WithPathSegments, JoinPath and
// Redacted.
func FuzzEdit(f *testing.F) {
	f.Fuzz(func(t *testing.T, s, text string, which uint8) {
		zp := Parser{AllowZoneID: true}
		u, err := zp.ParseReference(s)
		if err != nil {
			return
		}
		p := u.parts()
		var got URI
		var set func(*parts)
		strict := false // the result must parse without a zone
		switch which % 9 {
		case 0:
			got, err = u.WithScheme(text)
			set = func(p *parts) {
				p.scheme = text
				if text == "" {
					p.flags &^= hasScheme
				} else {
					p.flags |= hasScheme
				}
			}
		case 1:
			got, err = u.WithUserinfo(text)
			set = func(p *parts) { p.userinfo = text; p.flags |= hasUserinfo }
			if !u.HasAuthority() {
				set = nil
			}
		case 2:
			got, err = u.WithHost(text)
			host := text
			if strings.Contains(text, ":") && !strings.HasPrefix(text, "[") {
				host = "[" + text + "]"
			}
			set = func(p *parts) { p.host = host; p.flags |= hasAuthority }
			strict = true
		case 3:
			got, err = u.WithPort(text)
			set = func(p *parts) { p.port = text; p.flags |= hasPort }
			if !u.HasAuthority() {
				set = nil
			}
		case 4:
			got, err = u.WithPath(text)
			set = func(p *parts) { p.path = text }
		case 5:
			got, err = u.WithQuery(text)
			set = func(p *parts) { p.query = text; p.flags |= hasQuery }
		case 6:
			got, err = u.WithFragment(text)
			set = func(p *parts) { p.fragment = text; p.flags |= hasFragment }
		case 7:
			checkSegments(t, u, text)
			return
		case 8:
			checkJoinRedact(t, u, text)
			return
		}
		// The oracle: write the text in place, parse, compare.
		want := p
		ok := false
		var wantURI URI
		if set != nil {
			set(&want)
			if strict {
				want.zone = false
			}
			v, errV := want.uri()
			ok = errV == nil && v.parts() == want
			wantURI = v
		}
		if err != nil {
			checkEditError(t, err)
			if ok {
				t.Fatalf("edit %d of %q with %q fails (%v), but %q reads right", which%9, s, text, err, wantURI)
			}
			return
		}
		if !ok {
			t.Fatalf("edit %d of %q with %q gives %q, which does not read as intended", which%9, s, text, got)
		}
		if got != wantURI {
			t.Fatalf("edit %d of %q with %q gives %#v, want %#v", which%9, s, text, got, wantURI)
		}
	})
}

// checkEditError checks that err is a well-formed *Error.
func checkEditError(t *testing.T, err error) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || e.Offset < 0 || e.Offset > len(e.Input) || e.Reason == "" {
		t.Fatalf("bad error %#v", err)
	}
}

// checkSegments: the segments of u's path, and the same path with text as
// a segment after them.
func checkSegments(t *testing.T, u URI, text string) {
	segs := slices.Collect(u.PathSegments())
	if u.Path() != "" && len(segs) != strings.Count(strings.TrimPrefix(u.Path(), "/"), "/")+1 {
		t.Fatalf("%q: %d segments %q", u, len(segs), segs)
	}
	v, err := u.WithPathSegments(segs...)
	if err != nil {
		t.Fatalf("%q: WithPathSegments(PathSegments) fails: %v", u, err)
	}
	if got := slices.Collect(v.PathSegments()); !slices.Equal(got, segs) {
		t.Fatalf("%q: WithPathSegments(%q) = %q, whose segments are %q", u, segs, v, got)
	}
	if vp, up := v.parts(), u.parts(); (vp.path == up.path) != (v == u) || vp.query != up.query || vp.host != up.host || vp.flags != up.flags {
		t.Fatalf("%q: WithPathSegments(PathSegments) = %q changes more than the path's spelling", u, v)
	}
	more := append(segs, text)
	w, err := u.WithPathSegments(more...)
	if err != nil {
		checkEditError(t, err)
		// The only refusals: an empty first segment that would read as a
		// root, or as an authority.
		if more[0] != "" {
			t.Fatalf("%q: WithPathSegments(%q): %v", u, more, err)
		}
		return
	}
	if got := slices.Collect(w.PathSegments()); !slices.Equal(got, more) {
		t.Fatalf("%q: WithPathSegments(%q) = %q, whose segments are %q", u, more, w, got)
	}
}

// checkJoinRedact: JoinPath with text as an element, and Redacted.
func checkJoinRedact(t *testing.T, u URI, text string) {
	v, err := u.JoinPath(text)
	if err != nil {
		checkEditError(t, err)
	} else {
		up, vp := u.parts(), v.parts()
		up.path, vp.path = "", ""
		if up != vp {
			t.Fatalf("%q: JoinPath(%q) = %q changes more than the path", u, text, v)
		}
		p := v.Path()
		if strings.HasPrefix(p, "/.//") {
			p = p[2:] // the guard that keeps "//" from reading as an authority
		}
		if (u.HasScheme() || strings.HasPrefix(p, "/")) && RemoveDotSegments(p) != p {
			t.Fatalf("%q: JoinPath(%q) = %q keeps dot segments", u, text, v)
		}
		if !strings.Contains(v.Path(), strings.Trim(text, "/")) && !strings.Contains(text, ".") {
			t.Fatalf("%q: JoinPath(%q) = %q lost the element", u, text, v)
		}
	}
	r := u.Redacted()
	if !strings.Contains(u.Userinfo(), ":") {
		if r != u.String() {
			t.Fatalf("Redacted(%q) = %q", u, r)
		}
		return
	}
	ru, err := Parser{AllowZoneID: true}.ParseReference(r)
	user, _, _ := strings.Cut(u.Userinfo(), ":")
	if err != nil || ru.Userinfo() != user+":xxxxx" || ru.Host() != u.Host() || ru.Path() != u.Path() || ru.Query() != u.Query() {
		t.Fatalf("Redacted(%q) = %q, %v", u, r, err)
	}
}
