package uri

import "strings"

// Parts are the components of a URI in unescaped form, as a program holds
// them. Build escapes each for its place, so that parsing the result gives
// the same parts back (the Decoded* accessors return them).
type Parts struct {
	Scheme string // "" for a relative reference

	// The authority is present when HasAuthority is set or any of
	// Userinfo, Host, Port is non-empty.
	HasAuthority bool
	Userinfo     string // unescaped; HasUserinfo marks an empty one
	HasUserinfo  bool
	Host         string // a reg-name (unescaped), an IPv4 address, an IPv6 address with or without its brackets ("::1", "[::1]"), an IPvFuture in brackets ("[v1.x]")
	Port         string // decimal digits

	Path        string // unescaped; '/' separates segments
	Query       string // unescaped
	HasQuery    bool   // marks an empty query ("?")
	Fragment    string // unescaped
	HasFragment bool   // marks an empty fragment ("#")
}

// Build assembles a URI from its parts. An error is an *Error whose Input
// is the part at fault (the Scheme, Host, Port or Path given) and whose
// Offset is a byte in it.
//
// A host never changes meaning: an IPv6 address is written in brackets,
// given with them or not; a host with a ':', '[' or ']' that is not an IP
// literal is refused (it is no reg-name a program means: a host and port
// in one string, a broken literal), and so is an IPv6 zone identifier
// (RFC 9844 took them out of URIs).
func Build(p Parts) (URI, error) {
	b, err := AppendBuild(nil, p)
	if err != nil {
		return URI{}, err
	}
	return ParseReference(string(b))
}

// AppendBuild appends the text Build would produce to dst. On error it
// returns dst as it was.
func AppendBuild(dst []byte, p Parts) ([]byte, error) {
	n := len(dst)
	out, err := appendBuild(dst, p)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

func appendBuild(dst []byte, p Parts) ([]byte, error) {
	if p.Scheme != "" {
		if !is(p.Scheme[0], cAlpha) {
			return dst, errAt(ErrInvalidScheme, p.Scheme, 0, "a scheme must start with a letter")
		}
		for i := 1; i < len(p.Scheme); i++ {
			if !is(p.Scheme[i], cScheme) {
				return dst, errChar(ErrInvalidScheme, p.Scheme, i, "scheme")
			}
		}
		dst = append(dst, p.Scheme...)
		dst = append(dst, ':')
	}
	auth := p.HasAuthority || p.HasUserinfo || p.Userinfo != "" || p.Host != "" || p.Port != ""
	if auth {
		dst = append(dst, "//"...)
		if p.HasUserinfo || p.Userinfo != "" {
			dst = appendEscape(dst, p.Userinfo, cUserinfo)
			dst = append(dst, '@')
		}
		var err error
		if dst, err = appendHost(dst, p.Host); err != nil {
			return dst, err
		}
		if p.Port != "" {
			for i := 0; i < len(p.Port); i++ {
				if !is(p.Port[i], cDigit) {
					return dst, errAt(ErrInvalidPort, p.Port, i, "port is not a number")
				}
			}
			dst = append(dst, ':')
			dst = append(dst, p.Port...)
		}
	}
	switch {
	case auth && p.Path != "" && p.Path[0] != '/':
		// §3.3: after an authority the path is empty or starts with '/'.
		return dst, errAt(ErrInvalidPath, p.Path, 0, "with an authority, the path must be empty or start with '/'")
	case !auth && strings.HasPrefix(p.Path, "//"):
		// It would read as an authority (§3.3).
		return dst, errAt(ErrInvalidPath, p.Path, 0, `without an authority, the path cannot start with "//"`)
	}
	if p.Scheme == "" && !auth {
		// §4.2: a colon in the first segment would read as a scheme, so
		// it is escaped there (an escaped ':' decodes to the same data).
		first := p.Path
		if i := strings.IndexByte(first, '/'); i >= 0 {
			first = first[:i]
		}
		for i := 0; i < len(first); i++ {
			if c := first[i]; c == ':' || !is(c, cPchar) {
				dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
			} else {
				dst = append(dst, c)
			}
		}
		dst = appendEscape(dst, p.Path[len(first):], cPath)
	} else {
		dst = appendEscape(dst, p.Path, cPath)
	}
	if p.HasQuery || p.Query != "" {
		dst = append(dst, '?')
		dst = appendEscape(dst, p.Query, cQuery)
	}
	if p.HasFragment || p.Fragment != "" {
		dst = append(dst, '#')
		dst = appendEscape(dst, p.Fragment, cQuery)
	}
	return dst, nil
}

// appendHost writes a host (§3.2.2): an IP literal in brackets, an IPv6
// address given without them in brackets, anything else as an escaped
// reg-name (which keeps an IPv4 address as it is). What would read as
// another host than the one given is refused.
func appendHost(dst []byte, host string) ([]byte, error) {
	if i := strings.IndexByte(host, '%'); i >= 0 && strings.IndexByte(host, ':') >= 0 {
		// fe80::1%eth0, [fe80::1%25eth0]: not a reg-name either.
		return dst, errAt(ErrInvalidHost, host, i, "IPv6 zone identifiers are not allowed in URIs (RFC 9844)")
	}
	if strings.HasPrefix(host, "[") {
		// An IP literal, exactly: "[" ( IPv6address / IPvFuture ) "]".
		var end int
		var err error
		if len(host) > 1 && (host[1] == 'v' || host[1] == 'V') {
			end, err = scanIPvFuture(host, 1, len(host))
		} else {
			end, _, err = scanIPv6(host, 1, len(host), false)
		}
		switch {
		case err != nil:
			return dst, hostError(err, host, 0, "")
		case end != len(host)-1:
			return dst, errAt(ErrInvalidHost, host, end+1, "text after the IP literal's ']'")
		}
		return append(dst, host...), nil
	}
	if i := strings.IndexAny(host, ":[]"); i >= 0 {
		if host[i] != ':' {
			return dst, errAt(ErrInvalidHost, host, i, "'"+host[i:i+1]+"' is allowed in a host only around an IP literal")
		}
		// Only an IPv6 address holds a ':'.
		hint := ""
		if strings.Count(host, ":") == 1 {
			hint = "; a host and a port? the port goes in Parts.Port"
		}
		lit := "[" + host + "]"
		end, _, err := scanIPv6(lit, 1, len(lit), false)
		switch {
		case err != nil:
			return dst, hostError(err, host, -1, hint)
		case end != len(lit)-1:
			return dst, errAt(ErrInvalidHost, host, end-1, "not an IPv6 address"+hint)
		}
		return append(dst, lit...), nil
	}
	return appendEscape(dst, host, cRegName), nil
}

// hostError restates an error of the IP literal scanners about host, whose
// offsets were shift bytes off (a literal scanned with brackets added).
func hostError(err error, host string, shift int, hint string) error {
	e := err.(*Error)
	return errAt(ErrInvalidHost, host, min(max(e.Offset+shift, 0), len(host)), e.Reason+hint)
}
