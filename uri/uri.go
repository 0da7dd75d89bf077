package uri

import (
	"net/netip"
	"strconv"
)

// HostKind says which rule of RFC 3986 §3.2.2 a host matched.
type HostKind uint8

const (
	NoHost    HostKind = iota // no authority
	RegName                   // reg-name, possibly empty
	IPv4                      // IPv4address, dotted decimal
	IPv6                      // IP-literal holding an IPv6address
	IPvFuture                 // IP-literal holding an IPvFuture
)

func (k HostKind) String() string {
	switch k {
	case RegName:
		return "reg-name"
	case IPv4:
		return "ipv4"
	case IPv6:
		return "ipv6"
	case IPvFuture:
		return "ipvfuture"
	}
	return "none"
}

// flags say which delimiters were present (RFC 3986 §5.3 distinguishes a
// component that is undefined from one that is empty).
const (
	hasScheme uint8 = 1 << iota
	hasAuthority
	hasUserinfo
	hasPort
	hasQuery
	hasFragment
	hasZone // the IPv6 literal carries a zone identifier (RFC 6874 form)
)

// URI is a parsed URI-reference: the text as given plus the offsets of its
// components. The zero value is the empty relative reference.
//
//	scheme ":" "//" userinfo "@" host ":" port path "?" query "#" fragment
//	      ^schemeEnd         ^hostStart..hostEnd     ^pathStart ^queryStart ^fragStart
//
// The '@' that ends a userinfo and the ':' that starts a port are next to
// the host (one byte further for the brackets of an IP-literal), so they
// need no field: at 48 bytes, a URI is copied in three 16-byte moves, none
// of which straddles two earlier stores (a 56-byte copy ends with an
// overlapping move that the processor cannot forward from the store before).
//
// Two URIs are == when they were parsed from the same text with the same
// outcome.
type URI struct {
	s          string
	schemeEnd  uint32 // index of the ':' ending the scheme
	hostStart  uint32 // host text, brackets of an IP-literal excluded
	hostEnd    uint32
	pathStart  uint32
	queryStart uint32 // index of '?'
	fragStart  uint32 // index of '#'
	flags      uint8
	kind       HostKind
}

// literal is 1 for an IP-literal host, whose brackets sit between it and
// the '@' before it and the ':' after it.
func (u *URI) literal() uint32 {
	if u.kind >= IPv6 {
		return 1
	}
	return 0
}

// userEnd is the index of the '@' ending the userinfo.
func (u *URI) userEnd() uint32 { return u.hostStart - 1 - u.literal() }

// portStart is the index just after the port's ':'.
func (u *URI) portStart() uint32 { return u.hostEnd + 1 + u.literal() }

func (u *URI) has(f uint8) bool { return u.flags&f != 0 } // a pointer, so that no call copies the URI

// String returns the URI exactly as it was parsed.
func (u URI) String() string { return u.s }

// AppendTo appends the URI's text to b.
func (u URI) AppendTo(b []byte) []byte { return append(b, u.s...) }

// MarshalText implements encoding.TextMarshaler.
func (u URI) MarshalText() ([]byte, error) { return []byte(u.s), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts any
// URI-reference (§4.1).
func (u *URI) UnmarshalText(text []byte) error {
	v, err := ParseReference(string(text))
	if err != nil {
		return err
	}
	*u = v
	return nil
}

// IsZero reports whether u is the zero value (the empty reference).
func (u URI) IsZero() bool { return u == URI{} }

// IsAbsolute reports whether u is an absolute-URI (§4.3): it has a scheme
// and no fragment.
func (u URI) IsAbsolute() bool { return u.has(hasScheme) && !u.has(hasFragment) }

// IsRelative reports whether u is a relative reference (§4.2): no scheme.
func (u URI) IsRelative() bool { return !u.has(hasScheme) }

// HasScheme reports whether u has a scheme (is a URI, §3, not a relative reference).
func (u URI) HasScheme() bool { return u.has(hasScheme) }

// Scheme returns the scheme as written ("" when there is none).
func (u URI) Scheme() string {
	if !u.has(hasScheme) {
		return ""
	}
	return u.s[:u.schemeEnd]
}

// HasAuthority reports whether the "//" that starts an authority is present.
func (u URI) HasAuthority() bool { return u.has(hasAuthority) }

func (u URI) authStart() uint32 {
	if u.has(hasScheme) {
		return u.schemeEnd + 3
	}
	return 2
}

// Authority returns the authority as written, without the leading "//".
func (u URI) Authority() string {
	if !u.has(hasAuthority) {
		return ""
	}
	return u.s[u.authStart():u.pathStart]
}

// HasUserinfo reports whether the authority has a userinfo (an '@'), even an empty one.
func (u URI) HasUserinfo() bool { return u.has(hasUserinfo) }

// Userinfo returns the userinfo as written.
func (u URI) Userinfo() string {
	if !u.has(hasUserinfo) {
		return ""
	}
	return u.s[u.authStart():u.userEnd()]
}

// Host returns the host as written; an IP-literal comes without its
// brackets (with its zone, if one was allowed in).
func (u URI) Host() string { return u.s[u.hostStart:u.hostEnd] }

// HostKind says what kind of host u has.
func (u URI) HostKind() HostKind { return u.kind }

// Addr returns the IP address of an IPv4 or IPv6 host; ok is false for
// other hosts. An allowed zone identifier is returned percent-decoded.
func (u URI) Addr() (addr netip.Addr, ok bool) {
	switch u.kind {
	case IPv4, IPv6:
		h := u.Host()
		if u.has(hasZone) {
			// RFC 6874 writes the '%' of the zone as "%25".
			h = unescape(h)
		}
		a, err := netip.ParseAddr(h)
		return a, err == nil
	}
	return netip.Addr{}, false
}

// HasPort reports whether a ':' after the host announces a port, even an empty one.
func (u URI) HasPort() bool { return u.has(hasPort) }

// Port returns the port's digits as written ("" when absent or empty).
func (u URI) Port() string {
	if !u.has(hasPort) {
		return ""
	}
	return u.s[u.portStart():u.pathStart]
}

// PortNumber returns the port as a number, leading zeros allowed; ok is
// false when there is no port, it is empty, or it exceeds 65535.
func (u URI) PortNumber() (port int, ok bool) {
	p := u.Port()
	if p == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

func (u URI) pathEnd() uint32 {
	switch {
	case u.has(hasQuery):
		return u.queryStart
	case u.has(hasFragment):
		return u.fragStart
	}
	return uint32(len(u.s))
}

// Path returns the path as written. It is never undefined, though it may be empty.
func (u URI) Path() string { return u.s[u.pathStart:u.pathEnd()] }

// HasQuery reports whether a '?' is present (http://a/? has an empty query, http://a/ none).
func (u URI) HasQuery() bool { return u.has(hasQuery) }

// Query returns the query as written, without the '?'.
func (u URI) Query() string {
	if !u.has(hasQuery) {
		return ""
	}
	end := uint32(len(u.s))
	if u.has(hasFragment) {
		end = u.fragStart
	}
	return u.s[u.queryStart+1 : end]
}

// HasFragment reports whether a '#' is present.
func (u URI) HasFragment() bool { return u.has(hasFragment) }

// Fragment returns the fragment as written, without the '#'.
func (u URI) Fragment() string {
	if !u.has(hasFragment) {
		return ""
	}
	return u.s[u.fragStart+1:]
}

// WithoutFragment returns u with its fragment (and the '#') removed.
func (u URI) WithoutFragment() URI {
	if !u.has(hasFragment) {
		return u
	}
	v := u
	v.s = u.s[:u.fragStart]
	v.flags &^= hasFragment
	v.fragStart = 0
	return v
}

// DecodedUserinfo returns the userinfo with its percent-encodings decoded.
func (u URI) DecodedUserinfo() string { return unescape(u.Userinfo()) }

// DecodedHost returns the host with its percent-encodings decoded.
func (u URI) DecodedHost() string { return unescape(u.Host()) }

// DecodedPath returns the path with its percent-encodings decoded; a
// decoded "%2F" is no longer told apart from a segment separator.
func (u URI) DecodedPath() string { return unescape(u.Path()) }

// DecodedQuery returns the query with its percent-encodings decoded ('+'
// stays '+': RFC 3986 gives it no meaning).
func (u URI) DecodedQuery() string { return unescape(u.Query()) }

// DecodedFragment returns the fragment with its percent-encodings decoded.
func (u URI) DecodedFragment() string { return unescape(u.Fragment()) }
