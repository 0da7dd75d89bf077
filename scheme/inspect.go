package scheme

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/urikit/urikit/uri"
)

// Warning codes of Inspect, stable for scripts (the batch protocol's
// inspect op reports them). Sections are RFC 3986's; the 2003 draft
// (draft-fielding-uri-rfc2396bis-01) numbered them one lower from §7.3 on
// (its §7.3 is rare IP formats).
const (
	CodeDotSegments    = "dot-segments"    // a "." or ".." segment is left in the path (§5.2.4, §7.3)
	CodeEscapedControl = "escaped-control" // %00-%1F or %7F in the path, query or fragment (§7.2)
	CodePassword       = "password"        // userinfo with a ":" password part (§7.5)
	CodePortMismatch   = "port-mismatch"   // a well-known port of another protocol (§7.2)
	CodeRareIP         = "rare-ip"         // a reg-name that browsers read as an IPv4 address (§7.4)
	CodeUserinfo       = "userinfo"        // a userinfo that can hide the real host (§7.6)
)

// Warning is one finding of Inspect.
type Warning struct {
	Code    string // one of the Code constants
	Message string // one sentence for a person
	// Addr is the IPv4 address a rare-ip host is read as.
	Addr netip.Addr
}

// wellKnown names the protocols of some ports below 1024, for messages.
var wellKnown = map[int]string{
	7: "echo", 13: "daytime", 19: "chargen", 20: "ftp-data", 21: "ftp", 22: "ssh", 23: "telnet",
	25: "smtp", 53: "dns", 69: "tftp", 70: "gopher", 79: "finger", 80: "http", 110: "pop3",
	111: "sunrpc", 113: "ident", 119: "nntp", 123: "ntp", 135: "msrpc", 139: "netbios",
	143: "imap", 161: "snmp", 179: "bgp", 389: "ldap", 443: "https", 445: "smb", 465: "smtps",
	513: "rlogin", 514: "rsh", 515: "printer", 587: "submission", 631: "ipp", 636: "ldaps",
	873: "rsync", 993: "imaps", 995: "pop3s",
}

// InspectString parses s as a URI-reference and inspects it.
func InspectString(s string) ([]Warning, error) {
	u, err := uri.ParseReference(s)
	if err != nil {
		return nil, err
	}
	return Inspect(u), nil
}

// Inspect checks u against the security considerations of RFC 3986 §7 and
// returns its warnings sorted by code, each code at most once.
func Inspect(u uri.URI) []Warning {
	var ws []Warning
	add := func(code, format string, args ...any) {
		ws = append(ws, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if u.HasUserinfo() {
		// §7.6: ftp://cnn.example.com&story=breaking_news@10.0.0.1/top_story.htm
		add(CodeUserinfo, "the authority has a userinfo %q before \"@\": the host is %q, not what comes first (RFC 3986 §7.6)",
			u.Userinfo(), u.Host())
		if i := strings.IndexByte(u.Userinfo(), ':'); i >= 0 {
			add(CodePassword, "the userinfo holds a password after \":\", in clear text for anyone who sees the URI (RFC 3986 §7.5)")
		}
	}
	if u.HasAuthority() && u.HostKind() == uri.RegName {
		if a, ok := WHATWGIPv4(u.DecodedHost()); ok {
			ws = append(ws, Warning{Code: CodeRareIP, Addr: a, Message: fmt.Sprintf(
				"the host %q is not a dotted-decimal IPv4 address, yet browsers and system resolvers read it as %s (RFC 3986 §7.4)",
				u.Host(), a)})
		}
	}
	// The default ports are uri's (the batch protocol's table under
	// normalize); a scheme without one gets no port-mismatch.
	if info, _ := uri.LookupScheme(u.Scheme()); info.DefaultPort > 0 && u.HasScheme() {
		def := info.DefaultPort
		if p, ok := portValue(u.Port()); ok && p < 1024 && p != def {
			what := "another service's"
			if name, ok := wellKnown[p]; ok {
				what = name + "'s"
			}
			add(CodePortMismatch, "port %d is %s well-known port, not %s's %d: a client may be made to send %s data to another protocol's server (RFC 3986 §7.2)",
				p, what, strings.ToLower(u.Scheme()), def, strings.ToLower(u.Scheme()))
		}
	}
	for _, part := range []struct{ name, text string }{{"path", u.Path()}, {"query", u.Query()}, {"fragment", u.Fragment()}} {
		if c, ok := escapedControl(part.text); ok {
			add(CodeEscapedControl, "the %s holds %s, a control character that can smuggle protocol commands once decoded (RFC 3986 §7.2)",
				part.name, c)
			break
		}
	}
	if u.HasScheme() {
		for _, seg := range strings.Split(u.Path(), "/") {
			if d := decode(seg); d == "." || d == ".." {
				add(CodeDotSegments, "the path still has the dot segment %q; resolvers will remove it, so the URI names another resource than it shows (RFC 3986 §5.2.4, §6.2.2.3)", seg)
				break
			}
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Code < ws[j].Code })
	return ws
}

// Codes returns the codes of ws in order.
func Codes(ws []Warning) []string {
	c := make([]string, len(ws))
	for i, w := range ws {
		c[i] = w.Code
	}
	return c
}

// portValue reads a port of any length as a number; ok is false when it
// is empty, and a port too large to matter reads as 65536.
func portValue(p string) (int, bool) {
	if p == "" {
		return 0, false
	}
	p = strings.TrimLeft(p, "0")
	if p == "" {
		return 0, true
	}
	if len(p) > 5 {
		return 65536, true
	}
	n, err := strconv.Atoi(p)
	return n, err == nil
}

// escapedControl finds a percent-encoded C0 control or DEL in s.
func escapedControl(s string) (string, bool) {
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			continue
		}
		if v < 0x20 || v == 0x7f {
			return strings.ToUpper(s[i : i+3]), true
		}
		i += 2
	}
	return "", false
}

// WHATWGIPv4 runs the IPv4 parser of the WHATWG URL Standard (§3.5, "IPv4
// parser", with its "ends in a number" test) on a decoded host: up to four
// dot-separated parts, each decimal, hexadecimal ("0x") or octal (leading
// "0"), the last filling the remaining bytes, one trailing dot allowed.
// ok is false when a browser would not read host as an IPv4 address. ASCII
// letters are compared case-insensitively; the IDNA mapping a browser
// applies first (full-width digits, ...) is not done.
func WHATWGIPv4(host string) (netip.Addr, bool) {
	if host == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := whatwgNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// whatwgNumber is the WHATWG "IPv4 number parser".
func whatwgNumber(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d int
		switch {
		case '0' <= c && c <= '9':
			d = int(c - '0')
		case 'a' <= c && c <= 'f':
			d = int(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = n*uint64(base) + uint64(d)
		if n > 1<<32 {
			n = 1<<32 + 1 // too large for any part; keep it from overflowing
		}
	}
	return n, true
}
