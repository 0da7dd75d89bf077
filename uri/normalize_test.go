package uri

import (
	"strings"
	"testing"
)

var normalizeTests = []struct {
	in             string
	syntax, scheme string
}{
	// §6.2.1 / §6.2.2
	{"eXAMPLE://a/./b/../b/%63/%7bfoo%7d", "example://a/b/c/%7Bfoo%7D", "example://a/b/c/%7Bfoo%7D"},
	{"example://a/b/c/%7Bfoo%7D", "example://a/b/c/%7Bfoo%7D", "example://a/b/c/%7Bfoo%7D"},
	// §6.2.2.1 case: scheme and host only; userinfo, path, query, fragment keep theirs.
	{"HTTP://www.EXAMPLE.com/", "http://www.example.com/", "http://www.example.com/"},
	{"HTTP://User@Example.COM:80/a/./b/../c?q#f", "http://User@example.com:80/a/c?q#f", "http://User@example.com/a/c?q#f"},
	{"http://a/B?C#D", "http://a/B?C#D", "http://a/B?C#D"},
	{"MAILTO:Joe@Example.COM", "mailto:Joe@Example.COM", "mailto:Joe@Example.COM"},
	{"http://%41%42c.COM/", "http://abc.com/", "http://abc.com/"},
	{"http://%c3%A9.COM/", "http://%C3%A9.com/", "http://%C3%A9.com/"},
	{"http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"},
	{"http://[2001:DB8:0:0:0:0:0:7]/", "http://[2001:db8:0:0:0:0:0:7]/", "http://[2001:db8:0:0:0:0:0:7]/"},
	{"http://[V7.X:Y]:/", "http://[v7.x:y]:/", "http://[v7.x:y]/"},
	{"http://01.2.3.4/", "http://01.2.3.4/", "http://01.2.3.4/"},
	// §6.2.2.2 percent-encoding
	{"http://a/%7euser", "http://a/~user", "http://a/~user"},
	{"http://a/%7Euser", "http://a/~user", "http://a/~user"},
	{"http://a/%3a%3A", "http://a/%3A%3A", "http://a/%3A%3A"},
	{"http://a/%41%2d%2E%5f%7E%30", "http://a/A-._~0", "http://a/A-._~0"},
	{"http://a/%2f%25%20", "http://a/%2F%25%20", "http://a/%2F%25%20"},
	{"http://a/b?%7e%3d%41#%7e%3d%41", "http://a/b?~%3DA#~%3DA", "http://a/b?~%3DA#~%3DA"},
	{"http://%7e%3a@a/", "http://~%3A@a/", "http://~%3A@a/"},
	{"http://USER:%7e@a/", "http://USER:~@a/", "http://USER:~@a/"},
	// §6.2.2.3 dot segments, percent-encoded ones included
	{"http://a/b/c/./../../g", "http://a/g", "http://a/g"},
	{"http://a/%2e%2E/b/%2E/c", "http://a/b/c", "http://a/b/c"},
	{"http://a/..", "http://a/", "http://a/"},
	{"foo:a/./b/../c", "foo:a/c", "foo:a/c"},
	{"foo:a/../..//b", "foo:/.//b", "foo:/.//b"},
	{"f:/.//g", "f:/.//g", "f:/.//g"},
	{"f:/..//g", "f:/.//g", "f:/.//g"},
	{"f://h/.//g", "f://h//g", "f://h//g"},
	// relative references keep their dot segments
	{"./a/../b", "./a/../b", "./a/../b"},
	{"A/%7e/./B/%2E%2e", "A/~/./B/..", "A/~/./B/.."},
	{"//A.COM/./x/../y", "//a.com/./x/../y", "//a.com/./x/../y"},
	{"//a:80", "//a:80", "//a:80"},
	{"", "", ""},
	{"#%7e", "#~", "#~"},
	// §6.2.3 scheme-based
	{"http://example.com", "http://example.com", "http://example.com/"},
	{"http://example.com/", "http://example.com/", "http://example.com/"},
	{"http://example.com:/", "http://example.com:/", "http://example.com/"},
	{"http://example.com:80/", "http://example.com:80/", "http://example.com/"},
	{"http://example.com:", "http://example.com:", "http://example.com/"},
	{"http://example.com/?", "http://example.com/?", "http://example.com/?"},
	{"http://a:080/", "http://a:080/", "http://a/"},
	{"http://a:0000080/", "http://a:0000080/", "http://a/"},
	{"http://a:0081", "http://a:0081", "http://a:81/"},
	{"http://a:0/", "http://a:0/", "http://a:0/"},
	{"http://a:000/", "http://a:000/", "http://a:0/"},
	{"http://a:443/", "http://a:443/", "http://a:443/"},
	{"http://a?q", "http://a?q", "http://a/?q"},
	{"http://a#f", "http://a#f", "http://a/#f"},
	{"http:", "http:", "http:"},
	{"http:/a/./b", "http:/a/b", "http:/a/b"},
	{"HTTPS://a:443", "https://a:443", "https://a/"},
	{"https://a:80", "https://a:80", "https://a:80/"},
	{"ws://a:80", "ws://a:80", "ws://a/"},
	{"wss://a:0443", "wss://a:0443", "wss://a/"},
	{"ftp://a:21", "ftp://a:21", "ftp://a/"},
	{"gopher://a:70", "gopher://a:70", "gopher://a"},
	{"telnet://a:23/", "telnet://a:23/", "telnet://a/"},
	{"tn3270://a:23", "tn3270://a:23", "tn3270://a"},
	{"rlogin://a:513", "rlogin://a:513", "rlogin://a"},
	{"nntp://a:119/g", "nntp://a:119/g", "nntp://a/g"},
	{"news://a:119/g", "news://a:119/g", "news://a/g"},
	{"wais://a:210/d", "wais://a:210/d", "wais://a/d"},
	{"prospero://a:1525/p", "prospero://a:1525/p", "prospero://a/p"},
	{"Gopher://a:", "gopher://a:", "gopher://a"},
	// Schemes without a known default port keep their port as written.
	{"foo://a:/", "foo://a:/", "foo://a:/"},
	{"foo://a:0080/", "foo://a:0080/", "foo://a:0080/"},
	{"foo://a", "foo://a", "foo://a"},
	{"urn:ISBN:0451450523", "urn:ISBN:0451450523", "urn:ISBN:0451450523"},
}

func TestNormalize(t *testing.T) {
	for _, tt := range normalizeTests {
		u, err := ParseReference(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		for _, c := range []struct {
			level Level
			want  string
		}{{Simple, tt.in}, {Syntax, tt.syntax}, {SchemeBased, tt.scheme}} {
			n := u.Normalize(c.level)
			if n.String() != c.want {
				t.Errorf("%q at %v: got %q, want %q", tt.in, c.level, n, c.want)
			}
			if got := string(u.AppendNormalized([]byte("x"), c.level)); got != "x"+c.want {
				t.Errorf("%q at %v: AppendNormalized gives %q", tt.in, c.level, got)
			}
			if again := n.Normalize(c.level); again != n {
				t.Errorf("%q at %v: not idempotent: %q then %q", tt.in, c.level, n, again)
			}
			if !Equal(u, n, c.level) || !Equal(n, u, c.level) {
				t.Errorf("%q at %v: not Equal to its normal form %q", tt.in, c.level, n)
			}
			if c.level > Simple {
				if want := MustParseReference(c.want); n != want {
					t.Errorf("%q at %v: %#v is not the parse of its text %#v", tt.in, c.level, n, want)
				}
			}
		}
	}
}

func TestNormalizeZone(t *testing.T) {
	u, err := Parser{AllowZoneID: true}.Parse("HTTP://[FE80::1%25Eth%30]:80")
	if err != nil {
		t.Fatal(err)
	}
	// The address is lowered; the zone, an interface name, keeps its case.
	if got := u.Normalize(Syntax).String(); got != "http://[fe80::1%25Eth0]:80" {
		t.Errorf("syntax: %q", got)
	}
	n := u.Normalize(SchemeBased)
	if n.String() != "http://[fe80::1%25Eth0]/" {
		t.Errorf("scheme: %q", n)
	}
	if a, _ := n.Addr(); a.Zone() != "Eth0" {
		t.Errorf("zone after normalization: %v", a)
	}
}

type equalTest struct {
	a, b  string
	level Level
	want  bool
}

var equalTests = []equalTest{
	{"example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d", Syntax, true},
	{"example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d", Simple, false},
	{"example://a/b/c/%7Bfoo%7D", "eXAMPLE://a/./b/../b/%63/%7bfoo%7d", SchemeBased, true},
	{"HTTP://www.EXAMPLE.com/", "http://www.example.com/", Syntax, true},
	{"http://a/b", "http://a/b", Simple, true},
	{"http://a/b", "http://a/B", SchemeBased, false},
	{"http://User@a/", "http://user@a/", SchemeBased, false},
	{"http://a/%7e", "http://a/~", Syntax, true},
	{"http://a/%7e", "http://a/~", Simple, false},
	{"http://a/%2F", "http://a//", SchemeBased, false},
	{"http://a:80/", "http://a/", Syntax, false},
	{"http://a:80/", "http://a/", SchemeBased, true},
	{"http://a", "http://a/", Syntax, false},
	{"a/./b", "a/b", SchemeBased, false},
	{"http://a/?", "http://a/", SchemeBased, false},
	{"http://a/#", "http://a/", SchemeBased, false},
	{"http://[::1]/", "http://[0:0:0:0:0:0:0:1]/", SchemeBased, false}, // no address rewriting
	{"http://[::A]/", "http://[::a]/", Syntax, true},
}

func TestEqual(t *testing.T) {
	// §6.2.3: these four are equivalent at the scheme level, and
	// http://example.com/? is none of them.
	same := []string{"http://example.com", "http://example.com/", "http://example.com:/", "http://example.com:80/"}
	tests := append([]equalTest(nil), equalTests...)
	for _, a := range same {
		tests = append(tests, equalTest{a, "http://example.com/?", SchemeBased, false})
		for _, b := range same {
			tests = append(tests, equalTest{a, b, SchemeBased, true}, equalTest{a, b, Simple, a == b})
		}
	}
	for _, tt := range tests {
		for _, pair := range [][2]string{{tt.a, tt.b}, {tt.b, tt.a}} {
			if got := Equal(MustParseReference(pair[0]), MustParseReference(pair[1]), tt.level); got != tt.want {
				t.Errorf("Equal(%q, %q, %v) = %v", pair[0], pair[1], tt.level, got)
			}
			got, err := EqualStrings(pair[0], pair[1], tt.level)
			if err != nil || got != tt.want {
				t.Errorf("EqualStrings(%q, %q, %v) = %v, %v", pair[0], pair[1], tt.level, got, err)
			}
		}
	}
	for _, p := range [][2]string{{"a b", "a"}, {"a", "a b"}} {
		for _, level := range []Level{Simple, Syntax, SchemeBased} {
			if _, err := EqualStrings(p[0], p[1], level); err == nil {
				t.Errorf("EqualStrings(%q, %q, %v): no error", p[0], p[1], level)
			}
		}
	}
}

func TestLevel(t *testing.T) {
	for _, l := range []Level{Simple, Syntax, SchemeBased} {
		if p, ok := ParseLevel(l.String()); !ok || p != l {
			t.Errorf("ParseLevel(%q) = %v, %v", l.String(), p, ok)
		}
	}
	if _, ok := ParseLevel("Syntax"); ok {
		t.Error(`ParseLevel("Syntax") accepted`)
	}
	if s := Level(7).String(); s != "Level(7)" {
		t.Errorf("Level(7).String() = %q", s)
	}
}

func TestSchemes(t *testing.T) {
	if info, ok := LookupScheme("HTTP"); !ok || info != (SchemeInfo{DefaultPort: 80, EmptyPathIsSlash: true}) {
		t.Errorf("LookupScheme(HTTP) = %v, %v", info, ok)
	}
	// A caller's table: names of any length (IANA registers names of 35
	// and 36 bytes), matched without case.
	long := "microsoft.windows.camera.multipicker" // 36 bytes, in IANA's registry
	table := BuiltinSchemes()
	table[long] = SchemeInfo{DefaultPort: 8080, EmptyPathIsSlash: true}
	table["x-urikit-noport"] = SchemeInfo{}
	n := Normalizer{Level: SchemeBased, Schemes: table}
	if got := n.Normalize(MustParse("Microsoft.Windows.Camera.MultiPicker://A:08080")).String(); got != long+"://a/" {
		t.Errorf("36-byte scheme: %q", got)
	}
	if !n.Equal(MustParse(long+"://a:8080/"), MustParse(long+"://a")) {
		t.Error("36-byte scheme: default port not removed by Equal")
	}
	// A known scheme without a default port keeps its port as written
	// (an empty one too: §6.2.3 removes no delimiter the scheme does not
	// license to).
	for _, in := range []string{"x-urikit-noport://a:/", "x-urikit-noport://a:007"} {
		if got := n.Normalize(MustParse(in)).String(); got != in {
			t.Errorf("scheme without a default port: %q gives %q", in, got)
		}
	}
	// The built-in table is not the caller's copy: nothing a caller does
	// changes what the package-level functions return.
	if _, ok := LookupScheme(long); ok {
		t.Error("writing to BuiltinSchemes' copy changed the built-in table")
	}
	if got := MustParse(long + "://a:8080").Normalize(SchemeBased).String(); got != long+"://a:8080" {
		t.Errorf("built-in normalization of an unknown scheme: %q", got)
	}
	if _, ok := LookupScheme(strings.Repeat("a", 70)); ok {
		t.Error("a long unknown name is known")
	}
	// An empty, non-nil table knows no scheme.
	if got := (Normalizer{Level: SchemeBased, Schemes: Schemes{}}).Normalize(MustParse("http://a:80")).String(); got != "http://a:80" {
		t.Errorf("empty table: %q", got)
	}
}

// TestDefaultHost: RFC 3986 §3.2.2 lets a scheme define a default host;
// file's is "localhost" (RFC 8089 §2), which scheme-based normalization
// writes as the empty host.
func TestDefaultHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"file://localhost/etc/fstab", "file:///etc/fstab"},
		{"FILE://LocalHost/x", "file:///x"},
		{"file://%6Cocalhost/x", "file:///x"},
		{"file:///x", "file:///x"},
		{"file://host/x", "file://host/x"},
		{"file://localhost.example/x", "file://localhost.example/x"},
		{"file://u@localhost/x", "file://u@localhost/x"}, // not the host alone
		{"file://localhost:1/x", "file://localhost:1/x"},
		{"http://localhost/x", "http://localhost/x"},
	}
	for _, tt := range tests {
		if got := MustParse(tt.in).Normalize(SchemeBased).String(); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
		if got := MustParse(tt.in).Normalize(Syntax).String(); strings.Contains(tt.in, "ocalhost") && !strings.Contains(strings.ToLower(got), "localhost") {
			t.Errorf("%q: syntax normalization dropped the host: %q", tt.in, got)
		}
	}
	if !Equal(MustParse("file://localhost/x"), MustParse("file:///x"), SchemeBased) {
		t.Error("file://localhost/x and file:///x differ at SchemeBased")
	}
	if Equal(MustParse("file://localhost/x"), MustParse("file:///x"), Syntax) {
		t.Error("file://localhost/x and file:///x equal at Syntax")
	}
}
