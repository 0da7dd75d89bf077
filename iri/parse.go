package iri

import (
	"math"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

// parse modes
const (
	needScheme uint8 = 1 << iota
	noFragment
)

// Parse parses an IRI (RFC 3987 §2.2): a scheme is required, a fragment allowed.
func Parse(s string) (IRI, error) { return parse(s, needScheme) }

// ParseReference parses an IRI-reference: an IRI or a relative reference.
func ParseReference(s string) (IRI, error) { return parse(s, 0) }

// ParseAbsolute parses an absolute-IRI: a scheme and no fragment.
func ParseAbsolute(s string) (IRI, error) { return parse(s, needScheme|noFragment) }

// MustParse is Parse that panics on error, for constants in code and tests.
func MustParse(s string) IRI {
	x, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return x
}

// parse is one pass over s following RFC 3987 §2.2, which is RFC 3986's
// grammar with ucschar added to iunreserved (everywhere but the scheme, the
// port and an IP literal) and iprivate to iquery:
//
//	IRI-reference = IRI / irelative-ref
//	IRI           = scheme ":" ihier-part [ "?" iquery ] [ "#" ifragment ]
//	irelative-ref = irelative-part [ "?" iquery ] [ "#" ifragment ]
//
// The bidi formatting characters of §4.1 are ucschar by the ABNF; §4.1's
// "MUST NOT" makes them invalid wherever they stand.
//
// The pass has the shape of package uri's parser but is not shared with it:
// every component scan here also takes the non-ASCII characters its rule
// allows (ucschar; iprivate in the query alone), where uri's scan ASCII a
// machine word at a time and stop at the first non-ASCII byte, and an error
// at a non-ASCII character says which rule of RFC 3987 it breaks (errRune).
// What is the same algorithm on both, the IP literals and IPv4 addresses
// (§2.2 takes them from RFC 3986 unchanged), is internal/rfc3986's.
func parse(s string, mode uint8) (IRI, error) {
	if len(s) >= math.MaxUint32 {
		return IRI{}, errAt(s, math.MaxUint32-1, ErrTooLong, "IRI too long")
	}
	var x IRI
	x.s = s
	if !isASCII(s) {
		x.flags |= nonASCII
	}
	i := 0

	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), ASCII only.
	// What looks like a scheme but lacks its ':' is the start of a
	// relative path.
	if len(s) > 0 && is(s[0], cAlpha) {
		j := 1
		for j < len(s) && is(s[j], cScheme) {
			j++
		}
		if j < len(s) && s[j] == ':' {
			x.flags |= hasScheme
			x.schemeEnd = uint32(j)
			i = j + 1
		} else if mode&needScheme != 0 {
			if j == len(s) {
				return IRI{}, errAt(s, j, ErrInvalidScheme, "missing ':' after scheme")
			}
			return IRI{}, errChar(s, j, "scheme", ErrInvalidScheme)
		}
	}
	if mode&needScheme != 0 && !x.has(hasScheme) {
		if len(s) == 0 {
			return IRI{}, errAt(s, 0, ErrMissingScheme, "missing scheme")
		}
		return IRI{}, errAt(s, 0, ErrMissingScheme, "missing scheme (a scheme starts with a letter)")
	}

	// ihier-part / irelative-part
	if len(s)-i >= 2 && s[i] == '/' && s[i+1] == '/' {
		x.flags |= hasAuthority
		a := i + 2
		// The common authority, an ireg-name or IPv4 host with an optional
		// port, is read in one pass; anything else (a userinfo, an
		// IP-literal, an error) goes to parseAuthority.
		h := scan(s, a, cRegName, ucsChar)
		j := h
		if j < len(s) && s[j] == ':' {
			j++
			for j < len(s) && is(s[j], cDigit) {
				j++
			}
		}
		if j == len(s) || s[j] == '/' || s[j] == '?' || s[j] == '#' {
			x.hostStart, x.hostEnd = uint32(a), uint32(h)
			x.kind = uri.RegName
			if h > a && is(s[a], cDigit) && isIPv4(s[a:h]) {
				x.kind = uri.IPv4
			}
			if h < j {
				x.flags |= hasPort
				x.portStart = uint32(h + 1)
			}
			i = j
		} else {
			e := j
			for e < len(s) && s[e] != '/' && s[e] != '?' && s[e] != '#' {
				e++
			}
			if err := parseAuthority(&x, a, e); err != nil {
				return IRI{}, err
			}
			i = e
		}
	} else {
		x.hostStart, x.hostEnd = uint32(i), uint32(i)
	}

	// ipath: ipath-abempty after an authority; otherwise ipath-absolute,
	// ipath-rootless (IRI) or ipath-noscheme (irelative-ref), or empty.
	x.pathStart = uint32(i)
	if !x.has(hasScheme) && !x.has(hasAuthority) {
		// A relative-path reference cannot have a colon in its first
		// segment, or it would read as a scheme (RFC 3986 §4.2).
		i = scan(s, i, cSegmentNC, ucsChar)
		if i < len(s) && s[i] == ':' {
			return IRI{}, errAt(s, i, ErrInvalidPath, `colon in the first segment of a relative path (write "./" before it)`)
		}
	}
	i = scan(s, i, cPath, ucsChar)
	if i < len(s) && s[i] != '?' && s[i] != '#' {
		return IRI{}, errComponent(s, i, "path", ErrInvalidPath)
	}

	// iquery = *( ipchar / iprivate / "/" / "?" )
	if i < len(s) && s[i] == '?' {
		x.flags |= hasQuery
		x.queryStart = uint32(i)
		i = scan(s, i+1, cQuery, ucsPrivate)
		if i < len(s) && s[i] != '#' {
			return IRI{}, errComponent(s, i, "query", ErrInvalidQuery)
		}
	}

	// ifragment = *( ipchar / "/" / "?" )
	if i < len(s) && s[i] == '#' {
		if mode&noFragment != 0 {
			return IRI{}, errAt(s, i, ErrNotAbsolute, "an absolute IRI cannot have a fragment")
		}
		x.flags |= hasFragment
		x.fragStart = uint32(i)
		i = scan(s, i+1, cQuery, ucsChar)
		if i < len(s) {
			return IRI{}, errComponent(s, i, "fragment", ErrInvalidFragment)
		}
	}
	return x, nil
}

// errComponent is the error for the byte at s[i] where scan stopped inside
// a component: a broken percent-encoding or a character not allowed there.
func errComponent(s string, i int, component string, kind error) error {
	if s[i] == '%' {
		return checkPct(s, i)
	}
	return errChar(s, i, component, kind)
}

// checkPct checks the pct-encoded = "%" HEXDIG HEXDIG at s[i] == '%'.
func checkPct(s string, i int) error {
	if bad := pctEnd(s, i); bad >= 0 {
		if bad == len(s) {
			return errAt(s, bad, ErrInvalidPercentEncoding, "invalid percent-encoding (the input ends before two hex digits)")
		}
		return errAt(s, bad, ErrInvalidPercentEncoding, "invalid percent-encoding ('%' must be followed by two hex digits)")
	}
	return nil
}

// pctEnd returns -1 when s[i:] starts with a valid pct-encoded, else the
// offset of the first byte that breaks it (len(s) when s ends too early).
func pctEnd(s string, i int) int { return ascii.PctEnd(s, i) }

// parseAuthority parses s[a:e]:
//
//	iauthority = [ iuserinfo "@" ] ihost [ ":" port ]
//
// An error is reported where the longest reading of the text stops: the
// authority "a:b:c" is a valid start of a userinfo ("a:b:c@host"), so
// "http://a:b:c/" fails at the '/' that comes instead of the '@', not at
// the second ':'; and "[::1@x]" fails at the '@', for a '[' can start an
// IP-literal but never a userinfo.
func parseAuthority(x *IRI, a, e int) error {
	s := x.s
	// iuserinfo cannot hold '@', so the first '@' ends it; a later one is
	// an error in the host.
	at := a
	for at < e && s[at] != '@' {
		at++
	}
	if at < e {
		if err := checkUserinfo(s, a, at, "userinfo"); err != nil {
			var v IRI
			v.s = s
			if herr := parseHostPort(&v, a, e); errOffset(herr) > errOffset(err) {
				return herr
			}
			return err
		}
		x.flags |= hasUserinfo
		x.userEnd = uint32(at)
		return parseHostPort(x, at+1, e)
	}
	err := parseHostPort(x, a, e)
	if err != nil {
		uerr := checkUserinfo(s, a, e, "authority")
		if uerr == nil {
			// All of it could be a userinfo: what is missing is its '@'.
			he := err.(*Error)
			return errAt(s, e, he.Kind, he.Reason+", and no '@' follows to make it a userinfo")
		}
		if errOffset(uerr) > errOffset(err) {
			return uerr
		}
	}
	return err
}

// checkUserinfo checks that s[a:e] is an iuserinfo:
//
//	iuserinfo = *( iunreserved / pct-encoded / sub-delims / ":" )
func checkUserinfo(s string, a, e int, component string) error {
	k := scan(s[:e], a, cUserinfo, ucsChar)
	if k < e {
		return errComponent(s, k, component, ErrInvalidUserinfo)
	}
	return nil
}

// errOffset is the Offset of an *Error.
func errOffset(err error) int { return err.(*Error).Offset }

// parseHostPort parses s[h:e] as ihost [ ":" port ].
func parseHostPort(x *IRI, h, e int) error {
	s := x.s
	var hostEnd int // end of the host text including any ']'
	if h < e && s[h] == '[' {
		// IP-literal = "[" ( IPv6address / IPvFuture ) "]", ASCII only.
		var close int
		var err error
		if h+1 < e && (s[h+1] == 'v' || s[h+1] == 'V') {
			close, err = scanIPvFuture(s, h+1, e)
			x.kind = uri.IPvFuture
		} else {
			close, err = scanIPv6(s, h+1, e)
			x.kind = uri.IPv6
		}
		if err != nil {
			return err
		}
		x.hostStart, x.hostEnd = uint32(h+1), uint32(close)
		hostEnd = close + 1
		if hostEnd < e && s[hostEnd] != ':' {
			return errAt(s, hostEnd, ErrInvalidHost, "unexpected character after IP-literal (only ':' and a port may follow ']')")
		}
	} else {
		// IPv4address / ireg-name; ireg-name = *( iunreserved / pct-encoded / sub-delims )
		j := scan(s[:e], h, cRegName, ucsChar)
		if j < e && s[j] != ':' {
			if s[j] == '[' || s[j] == ']' {
				return errAt(s, j, ErrInvalidHost, "'"+string(s[j])+"' is allowed in a host only around an IP literal")
			}
			return errComponent(s, j, "host", ErrInvalidHost)
		}
		x.hostStart, x.hostEnd = uint32(h), uint32(j)
		x.kind = uri.RegName
		if isIPv4(s[h:j]) {
			x.kind = uri.IPv4
		}
		hostEnd = j
	}

	// port = *DIGIT
	if hostEnd < e {
		// s[hostEnd] == ':' here
		x.flags |= hasPort
		x.portStart = uint32(hostEnd + 1)
		for j := hostEnd + 1; j < e; j++ {
			if !is(s[j], cDigit) {
				if s[j] >= 0x80 {
					return errRune(s, j, "port", ErrInvalidPort)
				}
				return errAt(s, j, ErrInvalidPort, "port is not a number")
			}
		}
	}
	return nil
}
