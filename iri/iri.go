package iri

import (
	"net/netip"
	"strconv"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

// flags say which delimiters were present (RFC 3986 §5.3, which RFC 3987
// §2.2 follows, tells a component that is undefined from one that is empty).
const (
	hasScheme uint8 = 1 << iota
	hasAuthority
	hasUserinfo
	hasPort
	hasQuery
	hasFragment
	nonASCII // the text holds a non-ASCII character (else the IRI is a URI as it stands)
)

// IRI is a parsed IRI reference (RFC 3987 §2.2): the text as given, UTF-8,
// plus the offsets of its components. The zero value is the empty relative
// reference. Like uri.URI it is small, immutable and comparable with ==;
// two IRIs are == when they were parsed from the same text with the same
// outcome.
//
//	scheme ":" "//" iuserinfo "@" ihost ":" port ipath "?" iquery "#" ifragment
//	      ^schemeEnd          ^userEnd ^hostStart..hostEnd ^portStart ^pathStart ^queryStart ^fragStart
type IRI struct {
	s          string
	schemeEnd  uint32 // index of the ':' ending the scheme
	userEnd    uint32 // index of the '@' ending the userinfo
	hostStart  uint32 // host text, brackets of an IP-literal excluded
	hostEnd    uint32
	portStart  uint32 // index just after the port's ':'
	pathStart  uint32
	queryStart uint32 // index of '?'
	fragStart  uint32 // index of '#'
	flags      uint8
	kind       uri.HostKind
}

func (x IRI) has(f uint8) bool { return x.flags&f != 0 }

// String returns the IRI exactly as it was parsed.
func (x IRI) String() string { return x.s }

// AppendTo appends the IRI's text to b.
func (x IRI) AppendTo(b []byte) []byte { return append(b, x.s...) }

// AppendText implements encoding.TextAppender: it appends the IRI's text.
func (x IRI) AppendText(b []byte) ([]byte, error) { return append(b, x.s...), nil }

// MarshalText implements encoding.TextMarshaler.
func (x IRI) MarshalText() ([]byte, error) { return []byte(x.s), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts any IRI
// reference (absolute or relative).
func (x *IRI) UnmarshalText(text []byte) error {
	v, err := ParseReference(string(text))
	if err != nil {
		return err
	}
	*x = v
	return nil
}

// IsZero reports whether x is the zero value (the empty reference).
func (x IRI) IsZero() bool { return x == IRI{} }

// IsASCII reports whether the text is all ASCII, that is, whether the IRI
// is a URI as it stands (RFC 3987 §3.1: the mapping is then the identity).
func (x IRI) IsASCII() bool { return !x.has(nonASCII) }

// IsAbsolute reports whether x is an absolute-IRI: a scheme and no fragment.
func (x IRI) IsAbsolute() bool { return x.has(hasScheme) && !x.has(hasFragment) }

// IsRelative reports whether x is a relative reference (irelative-ref): no scheme.
func (x IRI) IsRelative() bool { return !x.has(hasScheme) }

// HasScheme reports whether x has a scheme (is an IRI, not a relative reference).
func (x IRI) HasScheme() bool { return x.has(hasScheme) }

// Scheme returns the scheme as written ("" when there is none).
func (x IRI) Scheme() string {
	if !x.has(hasScheme) {
		return ""
	}
	return x.s[:x.schemeEnd]
}

// HasAuthority reports whether the "//" that starts an authority is present.
func (x IRI) HasAuthority() bool { return x.has(hasAuthority) }

func (x IRI) authStart() uint32 {
	if x.has(hasScheme) {
		return x.schemeEnd + 3
	}
	return 2
}

// Authority returns the iauthority as written, without the leading "//".
func (x IRI) Authority() string {
	if !x.has(hasAuthority) {
		return ""
	}
	return x.s[x.authStart():x.pathStart]
}

// HasUserinfo reports whether the authority has a userinfo (an '@'), even an empty one.
func (x IRI) HasUserinfo() bool { return x.has(hasUserinfo) }

// Userinfo returns the iuserinfo as written.
func (x IRI) Userinfo() string {
	if !x.has(hasUserinfo) {
		return ""
	}
	return x.s[x.authStart():x.userEnd]
}

// Host returns the host as written; an IP-literal comes without its brackets.
func (x IRI) Host() string { return x.s[x.hostStart:x.hostEnd] }

// HostKind says what kind of host x has; a host with non-ASCII characters
// is a uri.RegName (an ireg-name).
func (x IRI) HostKind() uri.HostKind { return x.kind }

// Addr returns the IP address of an IPv4 or IPv6 host; ok is false for
// other hosts.
func (x IRI) Addr() (addr netip.Addr, ok bool) {
	switch x.kind {
	case uri.IPv4, uri.IPv6:
		a, err := netip.ParseAddr(x.Host())
		return a, err == nil
	}
	return netip.Addr{}, false
}

// HasPort reports whether a ':' after the host announces a port, even an empty one.
func (x IRI) HasPort() bool { return x.has(hasPort) }

// Port returns the port's digits as written ("" when absent or empty).
func (x IRI) Port() string {
	if !x.has(hasPort) {
		return ""
	}
	return x.s[x.portStart:x.pathStart]
}

// PortNumber returns the port as a number, leading zeros allowed; ok is
// false when there is no port, it is empty, or it exceeds 65535.
func (x IRI) PortNumber() (port int, ok bool) {
	p := x.Port()
	if p == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

func (x IRI) pathEnd() uint32 {
	switch {
	case x.has(hasQuery):
		return x.queryStart
	case x.has(hasFragment):
		return x.fragStart
	}
	return uint32(len(x.s))
}

// Path returns the ipath as written. It is never undefined, though it may be empty.
func (x IRI) Path() string { return x.s[x.pathStart:x.pathEnd()] }

// HasQuery reports whether a '?' is present.
func (x IRI) HasQuery() bool { return x.has(hasQuery) }

// Query returns the iquery as written, without the '?'.
func (x IRI) Query() string {
	if !x.has(hasQuery) {
		return ""
	}
	end := uint32(len(x.s))
	if x.has(hasFragment) {
		end = x.fragStart
	}
	return x.s[x.queryStart+1 : end]
}

// HasFragment reports whether a '#' is present.
func (x IRI) HasFragment() bool { return x.has(hasFragment) }

// Fragment returns the ifragment as written, without the '#'.
func (x IRI) Fragment() string {
	if !x.has(hasFragment) {
		return ""
	}
	return x.s[x.fragStart+1:]
}

// WithoutFragment returns x with its fragment (and the '#') removed.
func (x IRI) WithoutFragment() IRI {
	if !x.has(hasFragment) {
		return x
	}
	v := x
	v.s = x.s[:x.fragStart]
	v.flags &^= hasFragment
	v.fragStart = 0
	if v.has(nonASCII) && isASCII(v.s) {
		v.flags &^= nonASCII
	}
	return v
}

// DecodedUserinfo returns the userinfo with its percent-encodings decoded.
func (x IRI) DecodedUserinfo() string { return unescape(x.Userinfo()) }

// DecodedHost returns the host with its percent-encodings decoded.
func (x IRI) DecodedHost() string { return unescape(x.Host()) }

// DecodedPath returns the path with its percent-encodings decoded; a
// decoded "%2F" is no longer told apart from a segment separator, and the
// result may hold bytes that are not UTF-8 ("%FC").
func (x IRI) DecodedPath() string { return unescape(x.Path()) }

// DecodedQuery returns the query with its percent-encodings decoded.
func (x IRI) DecodedQuery() string { return unescape(x.Query()) }

// DecodedFragment returns the fragment with its percent-encodings decoded.
func (x IRI) DecodedFragment() string { return unescape(x.Fragment()) }

// unescape decodes s, whose percent-encodings are known to be valid.
func unescape(s string) string { return ascii.Decode(s) }
