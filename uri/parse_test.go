package uri

import (
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// none marks an undefined component in the tables ('<' cannot occur in a URI).
const none = "<none>"

// comps are the components of a parsed reference, undefined ones as none.
type comps struct {
	scheme, authority, userinfo, host string
	kind                              HostKind
	port, path, query, fragment       string
}

func componentsOf(u URI) comps {
	opt := func(has bool, v string) string {
		if !has {
			return none
		}
		return v
	}
	return comps{
		scheme:    opt(u.HasScheme(), u.Scheme()),
		authority: opt(u.HasAuthority(), u.Authority()),
		userinfo:  opt(u.HasUserinfo(), u.Userinfo()),
		host:      opt(u.HasAuthority(), u.Host()),
		kind:      u.HostKind(),
		port:      opt(u.HasPort(), u.Port()),
		path:      u.Path(),
		query:     opt(u.HasQuery(), u.Query()),
		fragment:  opt(u.HasFragment(), u.Fragment()),
	}
}

var parseTests = []struct {
	in   string
	want comps
}{
	// RFC 3986 §1.1.2
	{"ftp://ftp.is.co.za/rfc/rfc1808.txt", comps{"ftp", "ftp.is.co.za", none, "ftp.is.co.za", RegName, none, "/rfc/rfc1808.txt", none, none}},
	{"http://www.ietf.org/rfc/rfc2396.txt", comps{"http", "www.ietf.org", none, "www.ietf.org", RegName, none, "/rfc/rfc2396.txt", none, none}},
	{"ldap://[2001:db8::7]/c=GB?objectClass?one", comps{"ldap", "[2001:db8::7]", none, "2001:db8::7", IPv6, none, "/c=GB", "objectClass?one", none}},
	{"mailto:John.Doe@example.com", comps{"mailto", none, none, none, NoHost, none, "John.Doe@example.com", none, none}},
	{"news:comp.infosystems.www.servers.unix", comps{"news", none, none, none, NoHost, none, "comp.infosystems.www.servers.unix", none, none}},
	{"tel:+1-816-555-1212", comps{"tel", none, none, none, NoHost, none, "+1-816-555-1212", none, none}},
	{"telnet://192.0.2.16:80/", comps{"telnet", "192.0.2.16:80", none, "192.0.2.16", IPv4, "80", "/", none, none}},
	{"urn:oasis:names:specification:docbook:dtd:xml:4.1.2", comps{"urn", none, none, none, NoHost, none, "oasis:names:specification:docbook:dtd:xml:4.1.2", none, none}},
	// §3, §3.3
	{"foo://example.com:8042/over/there?name=ferret#nose", comps{"foo", "example.com:8042", none, "example.com", RegName, "8042", "/over/there", "name=ferret", "nose"}},
	{"urn:example:animal:ferret:nose", comps{"urn", none, none, none, NoHost, none, "example:animal:ferret:nose", none, none}},
	{"foo://info.example.com?fred", comps{"foo", "info.example.com", none, "info.example.com", RegName, none, "", "fred", none}},
	{"http://a/b/c/d;p?q", comps{"http", "a", none, "a", RegName, none, "/b/c/d;p", "q", none}},

	// Undefined versus empty (§5.3).
	{"http://a/", comps{"http", "a", none, "a", RegName, none, "/", none, none}},
	{"http://a/?", comps{"http", "a", none, "a", RegName, none, "/", "", none}},
	{"http://a/#", comps{"http", "a", none, "a", RegName, none, "/", none, ""}},
	{"http://a?#", comps{"http", "a", none, "a", RegName, none, "", "", ""}},
	{"http://a:/", comps{"http", "a:", none, "a", RegName, "", "/", none, none}},
	{"http://@a/", comps{"http", "@a", "", "a", RegName, none, "/", none, none}},
	{"http://@:", comps{"http", "@:", "", "", RegName, "", "", none, none}},
	{"http://", comps{"http", "", none, "", RegName, none, "", none, none}},
	{"http:", comps{"http", none, none, none, NoHost, none, "", none, none}},
	{"http:?#", comps{"http", none, none, none, NoHost, none, "", "", ""}},
	{"", comps{none, none, none, none, NoHost, none, "", none, none}},
	{"//", comps{none, "", none, "", RegName, none, "", none, none}},
	{"?", comps{none, none, none, none, NoHost, none, "", "", none}},
	{"#", comps{none, none, none, none, NoHost, none, "", none, ""}},
	{"///", comps{none, "", none, "", RegName, none, "/", none, none}},
	{"//u:p@h:1/p?q#f", comps{none, "u:p@h:1", "u:p", "h", RegName, "1", "/p", "q", "f"}},
	{"a:b:c", comps{"a", none, none, none, NoHost, none, "b:c", none, none}},
	{"./a:b", comps{none, none, none, none, NoHost, none, "./a:b", none, none}},
	{"/a:b", comps{none, none, none, none, NoHost, none, "/a:b", none, none}},
	{"a/b:c", comps{none, none, none, none, NoHost, none, "a/b:c", none, none}},
	{"a+b-c.d:x", comps{"a+b-c.d", none, none, none, NoHost, none, "x", none, none}},
	{"?a/b?c:d@", comps{none, none, none, none, NoHost, none, "", "a/b?c:d@", none}},
	{"#a/b?c:d@", comps{none, none, none, none, NoHost, none, "", none, "a/b?c:d@"}},
	{"s://u%20:p@h", comps{"s", "u%20:p@h", "u%20:p", "h", RegName, none, "", none, none}},
	{"s://h/%7E%20!$&'()*+,;=:@", comps{"s", "h", none, "h", RegName, none, "/%7E%20!$&'()*+,;=:@", none, none}},

	// Host kinds (§3.2.2).
	{"http://1.2.3.4/", comps{"http", "1.2.3.4", none, "1.2.3.4", IPv4, none, "/", none, none}},
	{"http://0.0.0.0", comps{"http", "0.0.0.0", none, "0.0.0.0", IPv4, none, "", none, none}},
	{"http://255.255.255.255:0", comps{"http", "255.255.255.255:0", none, "255.255.255.255", IPv4, "0", "", none, none}},
	{"http://1.2.3.256/", comps{"http", "1.2.3.256", none, "1.2.3.256", RegName, none, "/", none, none}},
	{"http://01.2.3.4/", comps{"http", "01.2.3.4", none, "01.2.3.4", RegName, none, "/", none, none}},
	{"http://1.2.3/", comps{"http", "1.2.3", none, "1.2.3", RegName, none, "/", none, none}},
	{"http://1.2.3.4.5/", comps{"http", "1.2.3.4.5", none, "1.2.3.4.5", RegName, none, "/", none, none}},
	{"http://1.2.3.4./", comps{"http", "1.2.3.4.", none, "1.2.3.4.", RegName, none, "/", none, none}},
	{"http://0x7f.1/", comps{"http", "0x7f.1", none, "0x7f.1", RegName, none, "/", none, none}},
	{"http://%31.2.3.4/", comps{"http", "%31.2.3.4", none, "%31.2.3.4", RegName, none, "/", none, none}},
	{"http://[::1]:80/", comps{"http", "[::1]:80", none, "::1", IPv6, "80", "/", none, none}},
	{"http://u@[::1]:/", comps{"http", "u@[::1]:", "u", "::1", IPv6, "", "/", none, none}},
	{"http://[v7.x:y]/", comps{"http", "[v7.x:y]", none, "v7.x:y", IPvFuture, none, "/", none, none}},
	{"http://[VaB1.!$&'()*+,;=:-._~]:8", comps{"http", "[VaB1.!$&'()*+,;=:-._~]:8", none, "VaB1.!$&'()*+,;=:-._~", IPvFuture, "8", "", none, none}},
}

// ipv6Valid covers every alternative of the IPv6address rule of §3.2.2.
var ipv6Valid = []string{
	// 6( h16 ":" ) ls32
	"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "FEDC:BA98:7654:3210:FEDC:BA98:7654:3210", "ffff:0:0:0:0:0:0:ffff",
	// "::" 5( h16 ":" ) ls32
	"::2:3:4:5:6:7:8", "::2:3:4:5:6:1.2.3.4",
	// [ h16 ] "::" 4( h16 ":" ) ls32
	"1::3:4:5:6:7:8", "::3:4:5:6:7:8", "1::3:4:5:6:1.2.3.4",
	// [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
	"1:2::4:5:6:7:8", "2::4:5:6:7:8", "::4:5:6:7:8",
	// [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
	"1:2:3::5:6:7:8", "1:2:3::5:6:1.2.3.4",
	// [ *3( h16 ":" ) h16 ] "::" h16 ":" ls32
	"1:2:3:4::6:7:8", "::6:7:8", "1:2:3:4::6:1.2.3.4",
	// [ *4( h16 ":" ) h16 ] "::" ls32
	"1:2:3:4:5::7:8", "1:2:3:4:5::1.2.3.4", "::7:8", "::1.2.3.4", "::ffff:1.2.3.4", "::FFFF:129.144.52.38",
	// [ *5( h16 ":" ) h16 ] "::" h16
	"1:2:3:4:5:6::8", "::8", "::1", "2001:db8::7", "FF01::101",
	// [ *6( h16 ":" ) h16 ] "::"
	"1:2:3:4:5:6:7::", "1::", "ABCD:EF01::", "::",
	// leading zeros, four digits
	"0001:0002:0003:0004:0005:0006:0007:0008", "0::0", "abcd::ABCD",
}

func TestParseComponents(t *testing.T) {
	for _, tt := range parseTests {
		u, err := ParseReference(tt.in)
		if err != nil {
			t.Errorf("ParseReference(%q): %v", tt.in, err)
			continue
		}
		if got := componentsOf(u); got != tt.want {
			t.Errorf("ParseReference(%q) =\n\t%+v, want\n\t%+v", tt.in, got, tt.want)
		}
		if u.String() != tt.in || recompose(u) != tt.in {
			t.Errorf("ParseReference(%q): String %q, recomposed %q", tt.in, u.String(), recompose(u))
		}
		p, err := Parse(tt.in)
		if u.HasScheme() != (err == nil) || err == nil && p != u {
			t.Errorf("Parse(%q) = %v, %v; scheme %v", tt.in, p, err, u.HasScheme())
		}
		a, err := ParseAbsolute(tt.in)
		if u.IsAbsolute() != (err == nil) || err == nil && a != u {
			t.Errorf("ParseAbsolute(%q) = %v, %v; absolute %v", tt.in, a, err, u.IsAbsolute())
		}
	}
}

func TestParseIPv6(t *testing.T) {
	for _, h := range ipv6Valid {
		in := "http://[" + h + "]/"
		u, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if u.HostKind() != IPv6 || u.Host() != h {
			t.Errorf("Parse(%q): host %q kind %v", in, u.Host(), u.HostKind())
		}
		want := netip.MustParseAddr(h)
		if got, ok := u.Addr(); !ok || got != want {
			t.Errorf("Parse(%q).Addr() = %v, %v; want %v", in, got, ok, want)
		}
	}
}

func TestAddr(t *testing.T) {
	zp := Parser{AllowZoneID: true}
	tests := []struct {
		in   string
		want string // "" for no address
	}{
		{"http://1.2.3.4/", "1.2.3.4"},
		{"http://[::ffff:1.2.3.4]/", "::ffff:1.2.3.4"},
		{"http://[2001:DB8::7]:80/", "2001:db8::7"},
		{"http://[fe80::1%25eth0]/", "fe80::1%eth0"},
		{"http://[fe80::1%25en%301]/", "fe80::1%en01"},
		{"http://1.2.3.256/", ""},
		{"http://01.2.3.4/", ""},
		{"http://example.com/", ""},
		{"http://[v7.x:y]/", ""},
		{"mailto:a@1.2.3.4", ""},
		{"//", ""},
	}
	for _, tt := range tests {
		u, err := zp.ParseReference(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		a, ok := u.Addr()
		if tt.want == "" {
			if ok {
				t.Errorf("%q: Addr() = %v, want none", tt.in, a)
			}
			continue
		}
		if !ok || a != netip.MustParseAddr(tt.want) {
			t.Errorf("%q: Addr() = %v, %v; want %v", tt.in, a, ok, tt.want)
		}
	}
	u, _ := zp.Parse("http://[fe80::1%25eth0]/")
	if a, _ := u.Addr(); a.Zone() != "eth0" || u.Host() != "fe80::1%25eth0" || u.HostKind() != IPv6 {
		t.Errorf("zone: Addr %v (zone %q), host %q, kind %v", a, a.Zone(), u.Host(), u.HostKind())
	}
}

func TestPortNumber(t *testing.T) {
	tests := []struct {
		in   string
		port int
		ok   bool
	}{
		{"http://a:80/", 80, true},
		{"http://a:080/", 80, true},
		{"http://a:0/", 0, true},
		{"http://a:65535/", 65535, true},
		{"http://a:65536/", 0, false},
		{"http://a:99999999999999999999/", 0, false},
		{"http://a:/", 0, false},
		{"http://a/", 0, false},
		{"a:80", 0, false},
	}
	for _, tt := range tests {
		p, ok := MustParseReference(tt.in).PortNumber()
		if p != tt.port || ok != tt.ok {
			t.Errorf("%q: PortNumber() = %d, %v; want %d, %v", tt.in, p, ok, tt.port, tt.ok)
		}
	}
}

func TestDecoded(t *testing.T) {
	u := MustParse("s://us%65r:p%40ss@h%C3%A9%2Eorg/a%20b/c%2Fd?x%3D1+2&y#f%23%25")
	for _, c := range []struct{ got, want string }{
		{u.DecodedUserinfo(), "user:p@ss"},
		{u.DecodedHost(), "hé.org"},
		{u.DecodedPath(), "/a b/c/d"},
		{u.DecodedQuery(), "x=1+2&y"},
		{u.DecodedFragment(), "f#%"},
		{u.Userinfo(), "us%65r:p%40ss"},
		{u.Host(), "h%C3%A9%2Eorg"},
		{u.Path(), "/a%20b/c%2Fd"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// parseErrorTests: at is the input up to the offending byte, so the
// expected Offset is len(at) (len(in) when the input ends too early).
var parseErrorTests = []struct {
	parse  string // "ref" (ParseReference), "uri" (Parse), "abs" (ParseAbsolute), "zone" (AllowZoneID)
	in, at string
	reason string // a part of the Reason
}{
	// Characters outside the grammar.
	{"ref", "http://a/b c", "http://a/b", "space in path"},
	{"ref", "http://a/\u00fc", "http://a/", "non-ASCII byte 0xC3 in path"},
	{"ref", "http://a/\x00", "http://a/", "control character 0x00"},
	{"ref", "http://a/\x7f", "http://a/", "control character 0x7F"},
	{"ref", "http://a/<b>", "http://a/", "'<'"},
	{"ref", "a?b[", "a?b", "'[' in query"},
	{"ref", "a?b c", "a?b", "space in query"},
	{"ref", "a#b#c", "a#b", "'#' in fragment"},
	{"ref", "a#b\\c", "a#b", "in fragment"},
	{"ref", "http://a b/", "http://a", "space"},
	{"ref", "http://a b@c/", "http://a", "space in userinfo"},
	{"ref", "http://a:b c/", "http://a:b", "space in authority"},
	{"ref", "http://a]/", "http://a", "IP literal"},
	{"ref", "http://a[b]/", "http://a", "IP literal"},
	{"ref", "http://u@h@x/", "http://u@h", "'@' in host"},
	{"ref", "http://u@h^/", "http://u@h", "'^' in host"},
	// Percent-encoding (§2.1).
	{"ref", "http://a/%G1", "http://a/%", "percent-encoding"},
	{"ref", "http://a/%4", "http://a/%4", "ends before two hex digits"},
	{"ref", "http://a/%4G/", "http://a/%4", "two hex digits"},
	{"ref", "%", "%", "ends before"},
	{"ref", "?%", "?%", "ends before"},
	{"ref", "#%g0", "#%", "percent-encoding"},
	{"ref", "http://a%2/", "http://a%2", "percent-encoding"},
	{"ref", "http://us%zz@a/", "http://us%", "percent-encoding"},
	{"ref", "http://us%zz/", "http://us%", "percent-encoding"},
	// Ports (§3.2.3). Without an '@', "a:xyz" is still a valid start of a
	// userinfo, so the error is where the '@' would have to be.
	{"ref", "http://a:xyz/", "http://a:xyz", "port is not a number"},
	{"ref", "http://a:8x", "http://a:8x", "port is not a number"},
	{"ref", "http://a:80:90/", "http://a:80:90", "port is not a number"},
	{"ref", "http://a:8x?q", "http://a:8x", "no '@' follows"},
	{"ref", "http://u@a:8x/", "http://u@a:8", "port is not a number"},
	{"ref", "http://u@a:8:9", "http://u@a:8", "port is not a number"},
	{"ref", "http://[::1]:8x/", "http://[::1]:8", "port is not a number"},
	// IP literals.
	{"ref", "http://[::1]x/", "http://[::1]", "after IP-literal"},
	{"ref", "http://[::1", "http://[::1", "unclosed IP-literal"},
	{"ref", "http://[::1/p", "http://[::1", "unclosed IP-literal"},
	{"ref", "http://[", "http://[", "unclosed IP-literal"},
	{"ref", "http://[v7.x", "http://[v7.x", "unclosed IP-literal"},
	{"ref", "http://[v7.x/y]/", "http://[v7.x", "unclosed IP-literal"},
	{"ref", "http://[::1@x]/", "http://[::1", "invalid IPv6"},
	{"ref", "http://[]/", "http://[", "too few groups"},
	{"ref", "http://[x]/", "http://[", "invalid IPv6"},
	{"ref", "http://[1.2.3.4]/", "http://[1", "no room for an embedded IPv4"},
	{"ref", "http://[v.x]/", "http://[v", "hex version"},
	{"ref", "http://[vx.x]/", "http://[v", "hex version"},
	{"ref", "http://[v7]/", "http://[v7", "expected '.'"},
	{"ref", "http://[v7.]/", "http://[v7.", "IPvFuture"},
	{"ref", "http://[v7.x%20]/", "http://[v7.x", "IPvFuture"},
	// IPv6 addresses of every wrong kind.
	{"ref", "http://[1:2:3:4:5:6:7:8:9]/", "http://[1:2:3:4:5:6:7:8", "too many groups"},
	{"ref", "http://[1:2:3:4:5:6:7:8::]/", "http://[1:2:3:4:5:6:7:8", "too many groups"},
	{"ref", "http://[1::2:3:4:5:6:7:8]/", "http://[1::2:3:4:5:6:7", "too many groups"},
	{"ref", "http://[::1:2:3:4:5:6:7:8]/", "http://[::1:2:3:4:5:6:7", "too many groups"},
	{"ref", "http://[1:2:3:4:5:6:7::8]/", "http://[1:2:3:4:5:6:7::", "too many groups"},
	{"ref", "http://[1:2:3:4:5:6:7]/", "http://[1:2:3:4:5:6:7", "too few groups"},
	{"ref", "http://[1]/", "http://[1", "too few groups"},
	{"ref", "http://[1::2::3]/", "http://[1::2:", "more than one '::'"},
	{"ref", "http://[::1::]/", "http://[::1:", "more than one '::'"},
	{"ref", "http://[12345::]/", "http://[1234", "more than four hex digits"},
	{"ref", "http://[::12345]/", "http://[::1234", "more than four hex digits"},
	{"ref", "http://[::1.2.3.256]/", "http://[::1.2.3.25", "bad embedded IPv4"},
	{"ref", "http://[::1.2.3]/", "http://[::1.2.3", "bad embedded IPv4"},
	{"ref", "http://[::1.2.3.]/", "http://[::1.2.3.", "bad embedded IPv4"},
	{"ref", "http://[::1.2.3.04]/", "http://[::1.2.3.0", "bad embedded IPv4"},
	{"ref", "http://[::01.2.3.4]/", "http://[::01", "bad embedded IPv4"},
	{"ref", "http://[::256.1.1.1]/", "http://[::256", "bad embedded IPv4"},
	{"ref", "http://[::a.1.1.1]/", "http://[::a", "bad embedded IPv4"},
	{"ref", "http://[::1.2.3.4:5]/", "http://[::1.2.3.4", "invalid IPv6"},
	{"ref", "http://[::1.2.3.4.5]/", "http://[::1.2.3.4", "invalid IPv6"},
	{"ref", "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[1:2:3:4:5:6:7:1", "no room for an embedded IPv4"},
	{"ref", "http://[1:2:3:4:5:6::1.2.3.4]/", "http://[1:2:3:4:5:6::1", "no room for an embedded IPv4"},
	{"ref", "http://[1:2:3:4:5.1.2.3]/", "http://[1:2:3:4:5", "no room for an embedded IPv4"},
	{"ref", "http://[:1]/", "http://[:", "lone ':'"},
	{"ref", "http://[:]/", "http://[:", "lone ':'"},
	{"ref", "http://[1:]/", "http://[1:", "lone ':'"},
	{"ref", "http://[1::2:]/", "http://[1::2:", "lone ':'"},
	{"ref", "http://[:::]/", "http://[::", "invalid IPv6"},
	{"ref", "http://[1:::2]/", "http://[1::", "invalid IPv6"},
	{"ref", "http://[1:2g::]/", "http://[1:2", "invalid IPv6"},
	// Zone identifiers (RFC 6874, removed by RFC 9844).
	{"ref", "http://[fe80::1%25eth0]/", "http://[fe80::1", "zone identifiers are not allowed"},
	{"ref", "http://[fe80::1%eth0]/", "http://[fe80::1", "zone identifiers are not allowed"},
	{"zone", "http://[fe80::1%eth0]/", "http://[fe80::1%", `"%25"`},
	{"zone", "http://[fe80::1%2eth0]/", "http://[fe80::1%2", `"%25"`},
	{"zone", "http://[fe80::1%25]/", "http://[fe80::1%25", "zone identifier"},
	{"zone", "http://[fe80::1%25eth0", "http://[fe80::1%25eth0", "unclosed IP-literal"},
	{"zone", "http://[fe80::1%25a%2]/", "http://[fe80::1%25a%2", "percent-encoding"},
	{"zone", "http://[fe80::1%25a:b]/", "http://[fe80::1%25a", "zone identifier"},
	{"zone", "http://[fe80::1:%25a]/", "http://[fe80::1:", "lone ':'"},
	{"zone", "http://[fe80::1%", "http://[fe80::1%", "unclosed IP-literal"},
	// Relative references (§4.2).
	{"ref", "a_b:c", "a_b", "colon in the first segment"},
	{"ref", "1:x", "1", "colon in the first segment"},
	{"ref", "%41:b", "%41", "colon in the first segment"},
	{"ref", ":", "", "colon in the first segment"},
	// Parse needs a scheme (§3.1).
	{"uri", "", "", "missing scheme"},
	{"uri", "//a/b", "", "missing scheme"},
	{"uri", "/a:b", "", "missing scheme"},
	{"uri", "1a:b", "", "missing scheme"},
	{"uri", "abc", "abc", "missing ':'"},
	{"uri", "a/b:c", "a", "'/' in scheme"},
	{"uri", "ht tp://a", "ht", "space in scheme"},
	{"uri", "a_b:c", "a", "'_' in scheme"},
	{"uri", "a%41:b", "a", "'%' in scheme"},
	{"uri", "http://a:8x", "http://a:8x", "port"},
	// ParseAbsolute allows no fragment (§4.3).
	{"abs", "http://a/b#f", "http://a/b", "fragment"},
	{"abs", "a:#", "a:", "fragment"},
	{"abs", "//a", "", "missing scheme"},
}

func TestParseErrors(t *testing.T) {
	zp := Parser{AllowZoneID: true}
	for _, tt := range parseErrorTests {
		var parse func(string) (URI, error)
		switch tt.parse {
		case "ref":
			parse = ParseReference
		case "uri":
			parse = Parse
		case "abs":
			parse = ParseAbsolute
		case "zone":
			parse = zp.ParseReference
		}
		if !strings.HasPrefix(tt.in, tt.at) {
			t.Fatalf("bad test: %q does not start with %q", tt.in, tt.at)
		}
		u, err := parse(tt.in)
		if err == nil {
			t.Errorf("%s %q: no error, got %#v", tt.parse, tt.in, u)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s %q: %T is not an *Error", tt.parse, tt.in, err)
			continue
		}
		if e.Input != tt.in || e.Offset != len(tt.at) || !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("%s %q: got offset %d, reason %q; want offset %d (after %q), reason with %q",
				tt.parse, tt.in, e.Offset, e.Reason, len(tt.at), tt.at, tt.reason)
		}
		checkOffset(t, tt.parse, parse, tt.in, err)
		if u != (URI{}) {
			t.Errorf("%s %q: error with a non-zero URI %#v", tt.parse, tt.in, u)
		}
	}
}

func TestZoneID(t *testing.T) {
	const in = "http://[fe80::1%25eth0]:8080/p"
	if _, err := Parse(in); err == nil {
		t.Fatalf("Parse(%q) accepted a zone identifier", in)
	}
	u, err := Parser{AllowZoneID: true}.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if u.Host() != "fe80::1%25eth0" || u.DecodedHost() != "fe80::1%eth0" || u.Port() != "8080" || u.Path() != "/p" {
		t.Errorf("got host %q, port %q, path %q", u.Host(), u.Port(), u.Path())
	}
	a, ok := u.Addr()
	if !ok || a.Zone() != "eth0" || a.WithZone("") != netip.MustParseAddr("fe80::1") {
		t.Errorf("Addr() = %v, %v", a, ok)
	}
	// Without a zone, both parsers agree.
	v, _ := Parser{AllowZoneID: true}.Parse("http://[fe80::1]/")
	if w := MustParse("http://[fe80::1]/"); v != w {
		t.Errorf("%#v != %#v", v, w)
	}
}

func TestErrorString(t *testing.T) {
	_, err := Parse("http://a/%G1")
	const want = `uri: invalid percent-encoding ('%' must be followed by two hex digits) at byte 10 of "http://a/%G1"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// A long input is shown as a window around the offending byte, which
	// the message must still show, and never whole.
	long := "http://a/" + strings.Repeat("x", 100) + " " + strings.Repeat("y", 1<<20)
	_, err = Parse(long)
	if err == nil || !strings.Contains(err.Error(), "at byte 109 of ...\"") || !strings.Contains(err.Error(), `x y`) ||
		!strings.HasSuffix(err.Error(), `y"...`) || len(err.Error()) > 200 {
		t.Errorf("long input: %.300v", err)
	}
	// Invalid UTF-8 in the input is escaped, not copied into the message.
	_, err = Parse("http://a/\xff")
	if err == nil || !strings.Contains(err.Error(), `"http://a/\xff"`) {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// TestErrorKinds: every error carries one of the package's kinds, which
// errors.Is finds, so that programs need not read the Reason.
func TestErrorKinds(t *testing.T) {
	tests := []struct {
		in   string
		kind error
		f    func(string) (URI, error)
	}{
		{"", ErrMissingScheme, Parse},
		{"//a/b", ErrMissingScheme, Parse},
		{"a_b:c", ErrInvalidScheme, Parse},
		{"abc", ErrInvalidScheme, Parse},
		{"http://a b@c/", ErrInvalidUserinfo, ParseReference},
		{"http://u@h@x/", ErrInvalidHost, ParseReference},
		{"http://[::1/", ErrInvalidHost, ParseReference},
		{"http://[fe80::1%25eth0]/", ErrInvalidHost, ParseReference},
		{"http://[v7]/", ErrInvalidHost, ParseReference},
		{"http://u@a:8x/", ErrInvalidPort, ParseReference},
		{"http://a:8x/", ErrInvalidPort, ParseReference},
		{"http://a/b c", ErrInvalidPath, ParseReference},
		{"a:b", nil, ParseReference},
		{"a_b:c", ErrInvalidPath, ParseReference},
		{"a?b c", ErrInvalidQuery, ParseReference},
		{"a#b#c", ErrInvalidFragment, ParseReference},
		{"http://a/%G1", ErrInvalidPercentEncoding, ParseReference},
		{"http://us%zz@a/", ErrInvalidPercentEncoding, ParseReference},
		{"?%", ErrInvalidPercentEncoding, ParseReference},
		{"http://a/b#f", ErrNotAbsolute, ParseAbsolute},
	}
	for _, tt := range tests {
		_, err := tt.f(tt.in)
		if tt.kind == nil {
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != tt.kind || !errors.Is(err, tt.kind) {
			t.Errorf("%q: got %v (kind %v), want kind %v", tt.in, err, kindOf(err), tt.kind)
		}
	}
	// Every error of the offsets table has a kind.
	for _, tt := range parseErrorTests {
		f := map[string]func(string) (URI, error){"ref": ParseReference, "uri": Parse, "abs": ParseAbsolute,
			"zone": Parser{AllowZoneID: true}.ParseReference}[tt.parse]
		if _, err := f(tt.in); kindOf(err) == nil {
			t.Errorf("%s %q: error %v has no kind", tt.parse, tt.in, err)
		}
	}
	_, err := MustParse("http://a/").ResolveString("b")
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := ParseReference("a/b")
	if _, err := rel.ResolveString("c"); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("relative base: %v", err)
	}
}

func kindOf(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return nil
}

func TestMustParse(t *testing.T) {
	if u := MustParseReference("g?y#s"); u.Path() != "g" {
		t.Errorf("MustParseReference: %v", u)
	}
	if u := MustParse("a:g?y#s"); u.Path() != "g" {
		t.Errorf("MustParse: %v", u)
	}
	// MustParse mirrors Parse: a relative reference, which Parse refuses,
	// panics; MustParseReference mirrors ParseReference.
	for _, tt := range []struct {
		in   string
		must func(string) URI
	}{{"a b", MustParse}, {"g?y#s", MustParse}, {"//a/b", MustParse}, {"a b", MustParseReference}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q did not panic", tt.in)
				}
			}()
			tt.must(tt.in)
		}()
	}
}

func TestURIMethods(t *testing.T) {
	if !(URI{}).IsZero() || !MustParseReference("").IsZero() || MustParseReference("a").IsZero() {
		t.Error("IsZero")
	}
	u := MustParse("http://a/b?q#f")
	if u.IsAbsolute() || !u.WithoutFragment().IsAbsolute() || u.IsRelative() || !MustParseReference("b").IsRelative() {
		t.Error("IsAbsolute/IsRelative")
	}
	if w := u.WithoutFragment(); w.String() != "http://a/b?q" || w != MustParse("http://a/b?q") {
		t.Errorf("WithoutFragment = %#v", w)
	}
	if w := MustParseReference("a").WithoutFragment(); w != MustParseReference("a") {
		t.Errorf("WithoutFragment = %#v", w)
	}
	if b := u.AppendTo([]byte("<")); string(b) != "<http://a/b?q#f" {
		t.Errorf("AppendTo = %q", b)
	}
	// Text and JSON.
	type doc struct{ Link URI }
	j, err := json.Marshal(doc{u})
	if err != nil || string(j) != `{"Link":"http://a/b?q#f"}` {
		t.Fatalf("Marshal: %s, %v", j, err)
	}
	var d doc
	if err := json.Unmarshal(j, &d); err != nil || d.Link != u {
		t.Errorf("Unmarshal: %#v, %v", d.Link, err)
	}
	if err := json.Unmarshal([]byte(`{"Link":"a b"}`), &d); err == nil {
		t.Error("Unmarshal of an invalid reference succeeded")
	}
	for k, want := range map[HostKind]string{NoHost: "none", RegName: "reg-name", IPv4: "ipv4", IPv6: "ipv6", IPvFuture: "ipvfuture", 9: "none"} {
		if k.String() != want {
			t.Errorf("HostKind(%d).String() = %q", k, k.String())
		}
	}
}

func TestParseAllocs(t *testing.T) {
	inputs := []string{
		"http://www.ietf.org/rfc/rfc2396.txt",
		"ldap://[2001:db8::7]/c=GB?objectClass?one",
		"foo://user:pw@example.com:8042/over/there?name=ferret#nose",
		"urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
		"http://192.0.2.16:80/%7Euser/a%20b",
		"http://[v7.x:y]/",
	}
	for _, in := range inputs {
		n := testing.AllocsPerRun(100, func() {
			u, err := Parse(in)
			if err != nil || u.Scheme() == "" {
				panic(in)
			}
		})
		if n != 0 {
			t.Errorf("Parse(%q): %v allocations, want 0", in, n)
		}
	}
	n := testing.AllocsPerRun(100, func() { _, _ = ParseReference("../g;x?y#s") })
	if n != 0 {
		t.Errorf("ParseReference: %v allocations, want 0", n)
	}
}
