package uri

import (
	"errors"
	"strings"
	"testing"
)

const rfcBase = "http://a/b/c/d;p?q"

// RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples.
var rfc3986Examples = []struct{ ref, want string }{
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/d;p?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"},
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{"", "http://a/b/c/d;p?q"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
	// §5.4.2
	{"../../../g", "http://a/g"},
	{"../../../../g", "http://a/g"},
	{"/./g", "http://a/g"},
	{"/../g", "http://a/g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"},
}

// Appendix C of RFC 2396, all of it (rfc2396.txt pages 30-31).
var rfc2396Examples = []struct{ ref, want string }{
	// C.1
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"}, // (current document)#s
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
	// C.2
	{"", "http://a/b/c/d;p?q"}, // (current document)
	{"../../../g", "http://a/../g"},
	{"../../../../g", "http://a/../../g"},
	{"/./g", "http://a/./g"},
	{"/../g", "http://a/../g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	// §5.2 step 6 reduces the path alone; the query is appended in step 7.
	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"}, // "for validating parsers"; see TestResolveRFC2396
}

// Appendix C of draft-fielding-url-syntax-05 (May 1997, the draft that
// became RFC 2396), all of it. It differs from RFC 2396 in g?y/./x and
// g?y/../x: the draft merged the reference's query with its path before
// removing dot segments.
var draft1997Examples = []struct{ ref, want string }{
	// C.1
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"}, // (current document)#s
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},
	// C.2
	{"", "http://a/b/c/d;p?q"}, // (current document)
	{"../../../g", "http://a/../g"},
	{"../../../../g", "http://a/../../g"},
	{"/./g", "http://a/./g"},
	{"/../g", "http://a/../g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},
	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},
	{"g?y/./x", "http://a/b/c/g?y/x"},
	{"g?y/../x", "http://a/b/c/x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},
	{"http:g", "http:g"},
	{"http:", "http:"},
	// "Some parsers inappropriately strip a lead relative symbolic path
	// element": the draft's algorithm does not, a scheme ends it at step 3.
	{"http://a/../b/c", "http://a/../b/c"},
}

func resolveOK(t *testing.T, base, ref string, opts ResolveOption) string {
	t.Helper()
	b, err := Parse(base)
	if err != nil {
		t.Fatalf("base %q: %v", base, err)
	}
	r, err := ParseReference(ref)
	if err != nil {
		t.Fatalf("ref %q: %v", ref, err)
	}
	u, err := b.ResolveWith(r, opts)
	if err != nil {
		t.Errorf("resolve %q against %q (options %d): %v", ref, base, opts, err)
		return ""
	}
	txt, err := AppendResolved([]byte("x"), b, r, opts)
	if err != nil || string(txt) != "x"+u.String() {
		t.Errorf("AppendResolved(%q, %q) = %q, %v; ResolveWith gave %q", base, ref, txt, err, u)
	}
	return u.String()
}

func TestResolveRFC3986(t *testing.T) {
	for _, tt := range rfc3986Examples {
		if got := resolveOK(t, rfcBase, tt.ref, 0); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.ref, got, tt.want)
		}
		u, err := MustParse(rfcBase).ResolveString(tt.ref)
		if err != nil || u.String() != tt.want {
			t.Errorf("ResolveString(%q) = %q, %v", tt.ref, u, err)
		}
		// A fragment on the base is ignored (§5.1).
		if got := resolveOK(t, rfcBase+"#frag", tt.ref, 0); got != tt.want {
			t.Errorf("%q against a base with a fragment: got %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestResolveRFC2396(t *testing.T) {
	for _, tt := range rfc2396Examples {
		if got := resolveOK(t, rfcBase, tt.ref, RFC2396); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.ref, got, tt.want)
		}
	}
	// App. C: http:g is http://a/b/c/g "for backwards compatibility".
	if got := resolveOK(t, rfcBase, "http:g", RFC2396|SameSchemeIsRelative); got != "http://a/b/c/g" {
		t.Errorf("http:g for backwards compatibility: got %q", got)
	}
}

func TestResolveDraft1997(t *testing.T) {
	for _, tt := range draft1997Examples {
		if got := resolveOK(t, rfcBase, tt.ref, Draft1997); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestResolveSameSchemeIsRelative(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"http:g", "http://a/b/c/g"},
		{"HTTP:g", "http://a/b/c/g"}, // scheme compared without case; the base's is kept
		{"http:?y", "http://a/b/c/d;p?y"},
		{"http:", "http://a/b/c/d;p?q"},
		{"http:/g/../h", "http://a/h"},
		{"http://x/./y", "http://x/y"},
		{"https:g", "https:g"},
		{"g:h", "g:h"},
		{"g", "http://a/b/c/g"},
	}
	for _, tt := range tests {
		if got := resolveOK(t, rfcBase, tt.ref, SameSchemeIsRelative); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.ref, got, tt.want)
		}
	}
	// Strict resolution keeps the scheme-qualified reference as it is.
	if got := resolveOK(t, rfcBase, "http:g", 0); got != "http:g" {
		t.Errorf("strict http:g: got %q", got)
	}
}

func TestResolveOther(t *testing.T) {
	tests := []struct {
		base, ref string
		opts      ResolveOption
		want      string
	}{
		// The "/." guard: a path that would start with "//" without an authority.
		{"f:/a", ".//g", 0, "f:/.//g"},
		{"f:/a", ".//g", RFC2396, "f:/.//g"},
		{"f:/a/b", "..//g", 0, "f:/.//g"},
		{"f:/a", "/.//g", 0, "f:/.//g"},
		{"f:", "/.//g", 0, "f:/.//g"},
		{"f:/a", "/.//g", RFC2396, "f:/.//g"},
		{"f:/.//a", "", 0, "f:/.//a"},
		{"f:/.//a", "b", 0, "f:/.//b"},
		{"f:/.//a", "?q", 0, "f:/.//a?q"},
		{"f:/.//a", "f:/.//x/../y", 0, "f:/.//y"},
		{"f://h/a", ".//g", 0, "f://h//g"},
		// §5.2.4 literally: ".." above a rootless path makes it absolute.
		{"foo:a/b", "../c", 0, "foo:/c"},
		{"foo:a/b", "c", 0, "foo:a/c"},
		{"foo:a", "c", 0, "foo:c"},
		{"foo:", "c", 0, "foo:c"},
		{"foo:a/b", "../c", RFC2396, "foo:c"},
		{"foo:a/b", "../../c", RFC2396, "foo:../c"},
		// An empty path after an authority merges as "/" (§5.2.3).
		{"http://a", "g", 0, "http://a/g"},
		{"http://a", "g", RFC2396, "http://a/g"},
		{"http://a", "?y", 0, "http://a?y"},
		{"http://a", "?y", RFC2396, "http://a/?y"},
		{"http://a", "", 0, "http://a"},
		{"http://a", "#f", RFC2396, "http://a#f"},
		{"http://a?q#f", "", 0, "http://a?q"},
		// Opaque bases.
		{"mailto:x@y", "?subject=hi", 0, "mailto:x@y?subject=hi"},
		{"mailto:x@y", "#f", 0, "mailto:x@y#f"},
		{"urn:a:b", "c", 0, "urn:c"},
		// Network-path and authority-only references.
		{"http://a/b", "//", 0, "http://"},
		{"http://a/b", "//u@h:1", 0, "http://u@h:1"},
		{"http://a/b", "//h/../x", 0, "http://h/x"},
		{"http://a/b", "//h/../x", RFC2396, "http://h/../x"},
		// A reference with a scheme has its dot segments removed.
		{"http://a/b", "ftp://h/./x/../y", 0, "ftp://h/y"},
		{"http://a/b", "ftp://h/./x/../y", RFC2396, "ftp://h/./x/../y"},
		// Case of the base's scheme is kept.
		{"HTTP://a/b", "c", 0, "HTTP://a/c"},
	}
	for _, tt := range tests {
		if got := resolveOK(t, tt.base, tt.ref, tt.opts); got != tt.want {
			t.Errorf("%q against %q (options %d): got %q, want %q", tt.ref, tt.base, tt.opts, got, tt.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	for _, base := range []string{"/a/b", "a/b", "//a/b", ""} {
		b := MustParseReference(base)
		for _, opts := range []ResolveOption{0, RFC2396, SameSchemeIsRelative} {
			_, err := b.ResolveWith(MustParseReference("g"), opts)
			var e *Error
			if !errors.As(err, &e) || e.Input != base || e.Offset != 0 || !strings.Contains(e.Reason, "scheme") {
				t.Errorf("base %q (options %d): got %v", base, opts, err)
			}
			if dst, err := AppendResolved([]byte("x"), b, MustParseReference("g"), opts); err == nil || string(dst) != "x" {
				t.Errorf("AppendResolved with base %q: %q, %v", base, dst, err)
			}
		}
	}
	if _, err := MustParse(rfcBase).ResolveString("a b"); err == nil {
		t.Error("ResolveString of an invalid reference succeeded")
	}
}

func TestResolveZone(t *testing.T) {
	zp := Parser{AllowZoneID: true}
	b, err := zp.Parse("http://[fe80::1%25eth0]/a/b")
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.Resolve(MustParseReference("../c"))
	if err != nil || u.String() != "http://[fe80::1%25eth0]/c" {
		t.Errorf("got %q, %v", u, err)
	}
	if a, _ := u.Addr(); a.Zone() != "eth0" {
		t.Errorf("zone lost: %v", a)
	}
	r, _ := zp.ParseReference("//[fe80::2%25lo]/x")
	u, err = MustParse("http://a/").Resolve(r)
	if err != nil || u.String() != "http://[fe80::2%25lo]/x" {
		t.Errorf("got %q, %v", u, err)
	}
}

func TestRemoveDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/b/c/./../../g", "/a/g"}, // §5.2.4
		{"mid/content=5/../6", "mid/6"},
		{"", ""},
		{".", ""},
		{"..", ""},
		{"./", ""},
		{"../", ""},
		{"../a", "a"},
		{"./a", "a"},
		{"/", "/"},
		{"/.", "/"},
		{"/..", "/"},
		{"/../a", "/a"},
		{"/./a", "/a"},
		{"a/..", "/"},
		{"a/.", "a/"},
		{"a/../b", "/b"},
		{"/a/..", "/"},
		{"/a/../..", "/"},
		{"/a/b/..", "/a/"},
		{"/a/b/../", "/a/"},
		{"/a/./b/./", "/a/b/"},
		{"//a/../b", "//b"},
		{"/a//../b", "/a/b"},
		{"/.../a", "/.../a"},
		{"/a/.b/..c/...", "/a/.b/..c/..."},
		{"/%2E/a", "/%2E/a"}, // only literal dots
	}
	for _, tt := range tests {
		if got := RemoveDotSegments(tt.in); got != tt.want {
			t.Errorf("RemoveDotSegments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
