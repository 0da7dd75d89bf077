package uri

import (
	"errors"
	"strings"
)

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
	Host         string // a reg-name (unescaped) or an IPv4/IPv6 address; an IPvFuture in brackets ("[v1.x]")
	Port         string // decimal digits

	Path        string // unescaped; '/' separates segments
	Query       string // unescaped
	HasQuery    bool   // marks an empty query ("?")
	Fragment    string // unescaped
	HasFragment bool   // marks an empty fragment ("#")
}

// Build assembles a URI from its parts.
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
			return dst, errors.New("uri: build: a scheme must start with a letter")
		}
		for i := 1; i < len(p.Scheme); i++ {
			if !is(p.Scheme[i], cScheme) {
				return dst, errors.New("uri: build: invalid character in scheme " + p.Scheme)
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
					return dst, errors.New("uri: build: port is not a number: " + p.Port)
				}
			}
			dst = append(dst, ':')
			dst = append(dst, p.Port...)
		}
	}
	switch {
	case auth && p.Path != "" && p.Path[0] != '/':
		// §3.3: after an authority the path is empty or starts with '/'.
		return dst, errors.New("uri: build: with an authority, the path must be empty or start with '/'")
	case !auth && strings.HasPrefix(p.Path, "//"):
		// It would read as an authority (§3.3).
		return dst, errors.New("uri: build: without an authority, the path cannot start with \"//\"")
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

// appendHost writes a host: an IPv6 address in brackets, an IPvFuture as
// given, anything else as an escaped reg-name (which keeps an IPv4 address
// as it is).
func appendHost(dst []byte, host string) ([]byte, error) {
	switch {
	case strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && len(host) > 2 && (host[1] == 'v' || host[1] == 'V'):
		// The literal must end at its last byte: "[v1.x]]" is no IPvFuture.
		if end, err := scanIPvFuture(host, 1, len(host)); err != nil || end != len(host)-1 {
			return dst, errors.New("uri: build: invalid IPvFuture host " + host)
		}
		return append(dst, host...), nil
	case strings.IndexByte(host, ':') >= 0:
		lit := "[" + host + "]"
		if end, _, err := scanIPv6(lit, 1, len(lit), false); err == nil && end == len(lit)-1 {
			return append(dst, lit...), nil
		}
	}
	return appendEscape(dst, host, cRegName), nil
}
