package uri

import (
	"math"

	"github.com/urikit/urikit/internal/ascii"
)

// Parser holds parsing options. The zero Parser is strict RFC 3986; the
// package-level functions use it.
type Parser struct {
	// AllowZoneID accepts an IPv6 zone identifier written as RFC 6874 did
	// ("[fe80::1%25eth0]"). RFC 9844 removed that form from URI syntax, so
	// it is off by default.
	AllowZoneID bool
}

// parse modes
const (
	needScheme uint8 = 1 << iota
	noFragment
)

// Parse parses a URI (RFC 3986 §3): a scheme is required, a fragment allowed.
func Parse(s string) (URI, error) { return Parser{}.parse(s, needScheme) }

// ParseReference parses a URI-reference (§4.1): a URI or a relative reference.
func ParseReference(s string) (URI, error) { return Parser{}.parse(s, 0) }

// ParseAbsolute parses an absolute-URI (§4.3): a scheme and no fragment.
func ParseAbsolute(s string) (URI, error) { return Parser{}.parse(s, needScheme|noFragment) }

// MustParse is Parse that panics on error, for constants in code and
// tests: s must be a URI, with a scheme.
func MustParse(s string) URI {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// MustParseReference is ParseReference that panics on error: s may be a
// relative reference.
func MustParseReference(s string) URI {
	u, err := ParseReference(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Parse parses a URI (§3) under p's options.
func (p Parser) Parse(s string) (URI, error) { return p.parse(s, needScheme) }

// ParseReference parses a URI-reference (§4.1) under p's options.
func (p Parser) ParseReference(s string) (URI, error) { return p.parse(s, 0) }

// ParseAbsolute parses an absolute-URI (§4.3) under p's options.
func (p Parser) ParseAbsolute(s string) (URI, error) { return p.parse(s, needScheme|noFragment) }

// parse is one pass over s following RFC 3986 Appendix A. (Parse,
// ParseReference and ParseAbsolute call it directly, which keeps them small
// enough to be inlined: the URI it returns is then copied once, not twice.)
//
//	URI-reference = URI / relative-ref
//	URI           = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//	relative-ref  = relative-part [ "?" query ] [ "#" fragment ]
func (p Parser) parse(s string, mode uint8) (URI, error) {
	if len(s) >= math.MaxUint32 {
		return URI{}, errAt(ErrTooLong, s, math.MaxUint32-1, "URI too long")
	}
	var u URI
	u.s = s
	i := 0

	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (§3.1). What
	// looks like a scheme but lacks its ':' is the start of a relative path.
	if len(s) > 0 && is(s[0], cAlpha) {
		j := schemeRun(s)
		if j < len(s) && s[j] == ':' {
			u.flags |= hasScheme
			u.schemeEnd = uint32(j)
			i = j + 1
		} else if mode&needScheme != 0 {
			if j == len(s) {
				return URI{}, errAt(ErrInvalidScheme, s, j, "missing ':' after scheme")
			}
			return URI{}, errChar(ErrInvalidScheme, s, j, "scheme")
		}
	}
	if mode&needScheme != 0 && !u.has(hasScheme) {
		if len(s) == 0 {
			return URI{}, errAt(ErrMissingScheme, s, 0, "missing scheme")
		}
		return URI{}, errAt(ErrMissingScheme, s, 0, "missing scheme (a scheme starts with a letter)")
	}

	// hier-part / relative-part
	if len(s)-i >= 2 && s[i] == '/' && s[i+1] == '/' {
		u.flags |= hasAuthority
		a := i + 2
		// The common authority, a reg-name or IPv4 host with an optional
		// port, is read in one pass; anything else (a userinfo, an
		// IP-literal, an error) goes to parseAuthority.
		h := scanWords(s, a, &wordRegName)
		j := h
		if j < len(s) && s[j] == ':' {
			j++
			for j < len(s) && is(s[j], cDigit) {
				j++
			}
		}
		if j == len(s) || s[j] == '/' || s[j] == '?' || s[j] == '#' {
			u.hostStart, u.hostEnd = uint32(a), uint32(h)
			u.kind = RegName
			if h > a && is(s[a], cDigit) && isIPv4(s[a:h]) {
				u.kind = IPv4
			}
			if h < j {
				u.flags |= hasPort
			}
			i = j
		} else {
			e := j
			for e < len(s) && s[e] != '/' && s[e] != '?' && s[e] != '#' {
				e++
			}
			if err := p.parseAuthority(&u, a, e); err != nil {
				return URI{}, err
			}
			i = e
		}
	} else {
		u.hostStart, u.hostEnd = uint32(i), uint32(i)
	}

	// path: path-abempty after an authority; otherwise path-absolute,
	// path-rootless (URI) or path-noscheme (relative-ref), or empty.
	u.pathStart = uint32(i)
	if !u.has(hasScheme) && !u.has(hasAuthority) {
		// §4.2: a relative-path reference cannot have a colon in its
		// first segment, or it would read as a scheme.
		i = scanWords(s, i, &wordSegmentNC)
		if i < len(s) && s[i] == ':' {
			return URI{}, errAt(ErrInvalidPath, s, i, `colon in the first segment of a relative path (write "./" before it)`)
		}
	}
	i = scanWords(s, i, &wordPath)
	if i < len(s) && s[i] != '?' && s[i] != '#' {
		return URI{}, errComponent(ErrInvalidPath, s, i, "path")
	}

	// query = *( pchar / "/" / "?" ) (§3.4)
	if i < len(s) && s[i] == '?' {
		u.flags |= hasQuery
		u.queryStart = uint32(i)
		i = scanWords(s, i+1, &wordQuery)
		if i < len(s) && s[i] != '#' {
			return URI{}, errComponent(ErrInvalidQuery, s, i, "query")
		}
	}

	// fragment = *( pchar / "/" / "?" ) (§3.5)
	if i < len(s) && s[i] == '#' {
		if mode&noFragment != 0 {
			return URI{}, errAt(ErrNotAbsolute, s, i, "an absolute URI cannot have a fragment")
		}
		u.flags |= hasFragment
		u.fragStart = uint32(i)
		i = scanWords(s, i+1, &wordQuery)
		if i < len(s) {
			return URI{}, errComponent(ErrInvalidFragment, s, i, "fragment")
		}
	}
	return u, nil
}

// errComponent is the error for the byte at s[i] where scan stopped inside
// a component: a broken percent-encoding or a character not allowed there.
func errComponent(kind error, s string, i int, component string) error {
	if s[i] == '%' {
		return checkPct(s, i)
	}
	return errChar(kind, s, i, component)
}

// checkPct checks the pct-encoded = "%" HEXDIG HEXDIG at s[i] == '%' (§2.1).
func checkPct(s string, i int) error {
	if bad := pctEnd(s, i); bad >= 0 {
		if bad == len(s) {
			return errAt(ErrInvalidPercentEncoding, s, bad, "invalid percent-encoding (the input ends before two hex digits)")
		}
		return errAt(ErrInvalidPercentEncoding, s, bad, "invalid percent-encoding ('%' must be followed by two hex digits)")
	}
	return nil
}

// pctEnd returns -1 when s[i:] starts with a valid pct-encoded, else the
// offset of the first byte that breaks it (len(s) when s ends too early).
func pctEnd(s string, i int) int { return ascii.PctEnd(s, i) }

// parseAuthority parses s[a:e] (§3.2):
//
//	authority = [ userinfo "@" ] host [ ":" port ]
//
// An error is reported where the longest reading of the text stops: the
// authority "a:b:c" is a valid start of a userinfo ("a:b:c@host"), so
// "http://a:b:c/" fails at the '/' that comes instead of the '@', not at
// the second ':'; and "[::1@x]" fails at the '@', for a '[' can start an
// IP-literal but never a userinfo.
func (p Parser) parseAuthority(u *URI, a, e int) error {
	s := u.s
	// userinfo = *( unreserved / pct-encoded / sub-delims / ":" ). It cannot
	// hold '@', so the first '@' ends it; a later one is an error in the host.
	at := a
	for at < e && s[at] != '@' {
		at++
	}
	if at < e {
		if err := checkUserinfo(s, a, at, "userinfo"); err != nil {
			var v URI
			v.s = s
			if herr := p.parseHostPort(&v, a, e); errOffset(herr) > errOffset(err) {
				return herr
			}
			return err
		}
		u.flags |= hasUserinfo
		return p.parseHostPort(u, at+1, e)
	}
	err := p.parseHostPort(u, a, e)
	if err != nil {
		uerr := checkUserinfo(s, a, e, "authority")
		if uerr == nil {
			// All of it could be a userinfo: what is missing is its '@'.
			return errAt(err.(*Error).Kind, s, e, err.(*Error).Reason+", and no '@' follows to make it a userinfo")
		}
		if errOffset(uerr) > errOffset(err) {
			return uerr
		}
	}
	return err
}

// checkUserinfo checks that s[a:e] holds only userinfo characters
// (unreserved / pct-encoded / sub-delims / ":"); component names the part
// in an error.
func checkUserinfo(s string, a, e int, component string) error {
	for k := a; k < e; k++ {
		if is(s[k], cUserinfo) {
			continue
		}
		if s[k] == '%' {
			if err := checkPct(s, k); err != nil {
				return err
			}
			k += 2
			continue
		}
		return errChar(ErrInvalidUserinfo, s, k, component)
	}
	return nil
}

// errOffset is the Offset of an *Error.
func errOffset(err error) int { return err.(*Error).Offset }

// parseHostPort parses s[h:e] as host [ ":" port ] (§3.2.2, §3.2.3).
func (p Parser) parseHostPort(u *URI, h, e int) error {
	s := u.s
	var hostEnd int // end of the host text including any ']'
	if h < e && s[h] == '[' {
		// IP-literal = "[" ( IPv6address / IPvFuture ) "]" (§3.2.2)
		var close int
		var err error
		if h+1 < e && (s[h+1] == 'v' || s[h+1] == 'V') {
			close, err = scanIPvFuture(s, h+1, e)
			u.kind = IPvFuture
		} else {
			var zone bool
			close, zone, err = scanIPv6(s, h+1, e, p.AllowZoneID)
			if zone {
				u.flags |= hasZone
			}
			u.kind = IPv6
		}
		if err != nil {
			return err
		}
		u.hostStart, u.hostEnd = uint32(h+1), uint32(close)
		hostEnd = close + 1
		if hostEnd < e && s[hostEnd] != ':' {
			return errAt(ErrInvalidHost, s, hostEnd, "unexpected character after IP-literal (only ':' and a port may follow ']')")
		}
	} else {
		// IPv4address / reg-name; reg-name = *( unreserved / pct-encoded / sub-delims )
		j := h
		for ; j < e && s[j] != ':'; j++ {
			if is(s[j], cRegName) {
				continue
			}
			if s[j] == '%' {
				if err := checkPct(s, j); err != nil {
					return err
				}
				j += 2
				continue
			}
			if s[j] == '[' || s[j] == ']' {
				return errAt(ErrInvalidHost, s, j, "'"+string(s[j])+"' is allowed in a host only around an IP literal")
			}
			return errChar(ErrInvalidHost, s, j, "host")
		}
		u.hostStart, u.hostEnd = uint32(h), uint32(j)
		u.kind = RegName
		if isIPv4(s[h:j]) {
			u.kind = IPv4
		}
		hostEnd = j
	}

	// port = *DIGIT (§3.2.3)
	if hostEnd < e {
		// s[hostEnd] == ':' here
		u.flags |= hasPort
		for j := hostEnd + 1; j < e; j++ {
			if !is(s[j], cDigit) {
				return errAt(ErrInvalidPort, s, j, "port is not a number")
			}
		}
	}
	return nil
}
