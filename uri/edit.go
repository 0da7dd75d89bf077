package uri

import (
	"iter"
	"strings"

	"github.com/urikit/urikit/internal/rfc3986"
)

// Editing. A URI is immutable: each With… method returns a new URI, built
// in one string and parsed again, in which one component has changed and
// every other one reads as it did. The new component is given as written
// in a URI, percent-encodings and all, as the accessors return it (Escape
// makes such text out of data); text that the component cannot hold, or
// that would change how the rest of the URI reads, is an *Error, never a
// silent change of meaning. The Without… methods cannot fail.

// parts are the components of a URI as written, for editing.
type parts struct {
	scheme, userinfo, host, port, path, query, fragment string // host: brackets of an IP-literal included

	flags uint8 // which are present: hasScheme, hasAuthority, hasUserinfo, hasPort, hasQuery, hasFragment
	zone  bool  // let a zone identifier in when parsing the result (the host has one)
}

func (u URI) parts() parts {
	p := parts{
		scheme: u.Scheme(), userinfo: u.Userinfo(), port: u.Port(),
		path: u.Path(), query: u.Query(), fragment: u.Fragment(),
		flags: u.flags &^ hasZone, zone: u.has(hasZone),
	}
	if u.HasAuthority() {
		h := u.Authority()
		if u.HasUserinfo() {
			h = h[len(p.userinfo)+1:]
		}
		if u.HasPort() {
			h = h[:len(h)-len(p.port)-1]
		}
		p.host = h
	}
	return p
}

func (p *parts) has(f uint8) bool { return p.flags&f != 0 }

// uri writes the parts (RFC 3986 §5.3) and parses the text.
func (p *parts) uri() (URI, error) {
	var b strings.Builder
	b.Grow(len(p.scheme) + len(p.userinfo) + len(p.host) + len(p.port) + len(p.path) + len(p.query) + len(p.fragment) + 7)
	if p.has(hasScheme) {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.has(hasAuthority) {
		b.WriteString("//")
		if p.has(hasUserinfo) {
			b.WriteString(p.userinfo)
			b.WriteByte('@')
		}
		b.WriteString(p.host)
		if p.has(hasPort) {
			b.WriteByte(':')
			b.WriteString(p.port)
		}
	}
	b.WriteString(p.path)
	if p.has(hasQuery) {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.has(hasFragment) {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return Parser{AllowZoneID: p.zone}.ParseReference(b.String())
}

// mustURI is uri for the edits that cannot fail (removing a component).
func (p *parts) mustURI() URI {
	u, err := p.uri()
	if err != nil {
		panic("uri: removing a component gave an invalid URI: " + err.Error())
	}
	return u
}

// checkPath checks the rules of §3.3 and §4.2 that tie the path to the
// components before it; path is checked for its characters already.
func (p *parts) checkPath(path string) error {
	switch {
	case p.has(hasAuthority) && path != "" && path[0] != '/':
		return errAt(ErrInvalidPath, path, 0, "after an authority, a path must be empty or start with '/'")
	case !p.has(hasAuthority) && strings.HasPrefix(path, "//"):
		return errAt(ErrInvalidPath, path, 0, `without an authority, a path cannot start with "//" (it would read as one)`)
	case !p.has(hasScheme) && !p.has(hasAuthority):
		// §4.2: a colon in the first segment would read as a scheme.
		seg := path
		if i := strings.IndexByte(seg, '/'); i >= 0 {
			seg = seg[:i]
		}
		if i := strings.IndexByte(seg, ':'); i >= 0 {
			return errAt(ErrInvalidPath, path, i, `without a scheme, a colon in the first path segment would read as one (write "./" before it)`)
		}
	}
	return nil
}

// componentKind is the error kind of a syntax error in the named component.
func componentKind(component string) error {
	switch component {
	case "scheme":
		return ErrInvalidScheme
	case "userinfo":
		return ErrInvalidUserinfo
	case "host":
		return ErrInvalidHost
	case "port":
		return ErrInvalidPort
	case "query":
		return ErrInvalidQuery
	case "fragment":
		return ErrInvalidFragment
	}
	return ErrInvalidPath
}

// checkText checks that s holds only characters of class mask and valid
// percent-encodings.
func checkText(s string, mask uint16, component string) error {
	if i := scan(s, 0, mask); i < len(s) {
		return errComponent(componentKind(component), s, i, component)
	}
	return nil
}

// WithScheme returns u with the scheme scheme, or without a scheme (as a
// relative reference) when scheme is "".
func (u URI) WithScheme(scheme string) (URI, error) {
	p := u.parts()
	if scheme == "" {
		p.flags &^= hasScheme
		if err := p.checkPath(p.path); err != nil {
			e := err.(*Error)
			return URI{}, errAt(e.Kind, u.s, int(u.pathStart)+e.Offset, e.Reason)
		}
	} else {
		if err := checkScheme(scheme); err != nil {
			return URI{}, err
		}
		p.flags |= hasScheme
	}
	p.scheme = scheme
	return p.uri()
}

// checkScheme checks scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (§3.1).
func checkScheme(s string) error {
	if !is(s[0], cAlpha) {
		return errAt(ErrInvalidScheme, s, 0, "a scheme must start with a letter")
	}
	for i := 1; i < len(s); i++ {
		if !is(s[i], cScheme) {
			return errChar(ErrInvalidScheme, s, i, "scheme")
		}
	}
	return nil
}

// needAuthority is the error of an edit of a part of the authority of a
// URI that has none.
func (u URI) needAuthority(component string) error {
	at := 0
	if u.HasScheme() {
		at = len(u.Scheme()) + 1
	}
	return errAt(ErrInvalidHost, u.s, at, "there is no authority to hold a "+component+" (WithHost adds one)")
}

// WithUserinfo returns u with the userinfo userinfo (§3.2.1), which may be
// empty ("//@host"). u must have an authority.
func (u URI) WithUserinfo(userinfo string) (URI, error) {
	if !u.HasAuthority() {
		return URI{}, u.needAuthority("userinfo")
	}
	if err := checkText(userinfo, cUserinfo, "userinfo"); err != nil {
		return URI{}, err
	}
	p := u.parts()
	p.userinfo = userinfo
	p.flags |= hasUserinfo
	return p.uri()
}

// WithoutUserinfo returns u without a userinfo (and its '@').
func (u URI) WithoutUserinfo() URI {
	if !u.HasUserinfo() {
		return u
	}
	p := u.parts()
	p.userinfo = ""
	p.flags &^= hasUserinfo
	return p.mustURI()
}

// WithHost returns u with the host host (§3.2.2): a reg-name
// (percent-encodings allowed, possibly empty), an IPv4 address, or an
// IP-literal in brackets ("[2001:db8::1]", "[v1.x]"). An IPv6 address may
// come without its brackets, as Host returns it: a reg-name cannot hold a
// ':', so the text cannot mean anything else. (An IPvFuture cannot: "v1.x"
// is a reg-name.) A zone identifier is refused (RFC 9844). A URI without an
// authority gets one, if its path allows it (empty or starting with '/').
func (u URI) WithHost(host string) (URI, error) {
	host, err := checkHost(host)
	if err != nil {
		return URI{}, err
	}
	if !u.HasAuthority() && u.Path() != "" && u.Path()[0] != '/' {
		return URI{}, errAt(ErrInvalidPath, u.s, int(u.pathStart), "the path does not start with '/', so it cannot follow an authority")
	}
	p := u.parts()
	p.host = host
	p.flags |= hasAuthority
	p.zone = false // checkHost refuses zones
	return p.uri()
}

// checkHost checks a host and returns it as written in a URI (an IPv6
// address in brackets).
func checkHost(host string) (string, error) {
	switch {
	case strings.HasPrefix(host, "["):
		// IP-literal = "[" ( IPv6address / IPvFuture ) "]" (§3.2.2)
		var end int
		var err error
		if len(host) > 1 && (host[1] == 'v' || host[1] == 'V') {
			end, err = scanIPvFuture(host, 1, len(host))
		} else {
			end, _, err = scanIPv6(host, 1, len(host), false)
		}
		if err != nil {
			return "", err
		}
		if end+1 != len(host) {
			return "", errAt(ErrInvalidHost, host, end+1, "the host goes on after the ']' that ends its IP-literal")
		}
		return host, nil
	case strings.IndexByte(host, ':') >= 0:
		lit := "[" + host + "]"
		end, _, err := scanIPv6(lit, 1, len(lit), false)
		if err != nil || end != len(lit)-1 {
			at := strings.IndexByte(host, ':')
			if e, ok := err.(*Error); ok && e.Offset-1 > at {
				at = e.Offset - 1
			}
			if at > len(host) {
				at = len(host)
			}
			return "", errAt(ErrInvalidHost, host, at, "a host with a ':' must be an IPv6 address (a reg-name cannot hold one; WithPort sets a port)")
		}
		return lit, nil
	}
	if err := checkText(host, cRegName, "host"); err != nil {
		return "", err
	}
	return host, nil
}

// WithPort returns u with the port port, digits only (§3.2.3); an empty
// port keeps its ':' ("//host:"). u must have an authority.
func (u URI) WithPort(port string) (URI, error) {
	if !u.HasAuthority() {
		return URI{}, u.needAuthority("port")
	}
	for i := 0; i < len(port); i++ {
		if !is(port[i], cDigit) {
			return URI{}, errAt(ErrInvalidPort, port, i, "port is not a number")
		}
	}
	p := u.parts()
	p.port = port
	p.flags |= hasPort
	return p.uri()
}

// WithoutPort returns u without a port (and its ':').
func (u URI) WithoutPort() URI {
	if !u.HasPort() {
		return u
	}
	p := u.parts()
	p.port = ""
	p.flags &^= hasPort
	return p.mustURI()
}

// WithPath returns u with the path path, as written (§3.3): after an
// authority it is empty or starts with '/'; without one it cannot start
// with "//"; in a relative reference its first segment cannot hold a ':'.
func (u URI) WithPath(path string) (URI, error) {
	if err := checkText(path, cPath, "path"); err != nil {
		return URI{}, err
	}
	p := u.parts()
	if err := p.checkPath(path); err != nil {
		return URI{}, err
	}
	p.path = path
	return p.uri()
}

// PathSegments yields the segments of u's path (§3.3), each decoded on its
// own: a "%2F" in a segment is a '/' of that segment, not a separator.
// The '/' that starts an absolute path starts its first segment: "/a/b"
// and "a/b" both give "a", "b"; "/" gives one empty segment, and "" none.
// It allocates only to decode a segment that holds a percent-encoding.
func (u URI) PathSegments() iter.Seq[string] {
	path := u.Path()
	return func(yield func(string) bool) {
		if path == "" {
			return
		}
		p := strings.TrimPrefix(path, "/")
		for {
			seg, rest, more := strings.Cut(p, "/")
			if !yield(unescape(seg)) || !more {
				return
			}
			p = rest
		}
	}
}

// WithPathSegments returns u with a path made of the segments segs, which
// are data: each is percent-encoded as Escape(seg, ComponentPathSegment)
// does, so that a '/' in a segment becomes "%2F" (and, in the first
// segment of a relative reference, a ':' becomes "%3A"). The path is
// absolute ("/" before the first segment) when u has an authority or its
// path is absolute, as PathSegments reads it: giving back what
// PathSegments yields keeps every segment's data, though not necessarily
// its spelling ("%7E" comes back as "~", "%3B" as ";"). The segments "."
// and ".." are written as they are, and mean what they mean (§5.2.4).
func (u URI) WithPathSegments(segs ...string) (URI, error) {
	p := u.parts()
	abs := p.has(hasAuthority) || strings.HasPrefix(p.path, "/")
	if !abs && len(segs) > 0 && segs[0] == "" {
		// path-rootless = segment-nz *( "/" segment ): "" alone is the
		// empty path (no segment), and "" before more would read as the root.
		return URI{}, errAt(ErrInvalidPath, u.s, int(u.pathStart), "a path without a root cannot start with an empty segment")
	}
	var b []byte
	for i, seg := range segs {
		if i > 0 || abs {
			b = append(b, '/')
		}
		if i == 0 && !abs && !p.has(hasScheme) {
			// §4.2: escaping the ':' keeps the data and the reading.
			for k := 0; k < len(seg); k++ {
				if c := seg[k]; c == ':' || !is(c, cPchar) {
					b = append(b, '%', upperHex[c>>4], upperHex[c&15])
				} else {
					b = append(b, c)
				}
			}
			continue
		}
		b = appendEscape(b, seg, cPchar)
	}
	path := string(b)
	if err := p.checkPath(path); err != nil {
		return URI{}, err
	}
	p.path = path
	return p.uri()
}

// JoinPath returns u with the elements elem appended to its path, as
// net/url's URL.JoinPath does, within the rules of RFC 3986. Each element
// is path text as written: a '/' in it separates segments, a "%2F" is data.
// Empty elements are skipped; one '/' joins each element to what comes
// before it (a '/' that ends the path or starts the element is not
// doubled). A path that is absolute, or any path of a URI with a scheme,
// then has its dot segments removed (§5.2.4), as resolving it would; the
// path of a relative-path reference keeps them, as they still mean
// something against a base. After an authority, the path starts with '/'.
func (u URI) JoinPath(elem ...string) (URI, error) {
	p := u.parts()
	path := p.path
	for _, e := range elem {
		if err := checkText(e, cPath, "path"); err != nil {
			return URI{}, err
		}
		switch {
		case e == "":
		case path == "":
			path = e
		case strings.HasSuffix(path, "/") && strings.HasPrefix(e, "/"):
			path += e[1:]
		case strings.HasSuffix(path, "/") || strings.HasPrefix(e, "/"):
			path += e
		default:
			path += "/" + e
		}
	}
	if p.has(hasAuthority) && path != "" && path[0] != '/' {
		path = "/" + path
	}
	if p.has(hasScheme) || strings.HasPrefix(path, "/") {
		b := rfc3986.AppendRemoveDotSegments(nil, path)
		// A path reduced to "//x" without an authority gets "/." before it.
		path = string(rfc3986.GuardPath(b, 0, p.has(hasAuthority)))
	}
	if err := p.checkPath(path); err != nil {
		return URI{}, err
	}
	p.path = path
	return p.uri()
}

// WithQuery returns u with the query query, as written (§3.4), after a
// '?' that is added if there was none; query may be empty ("?"). For
// name=value pairs, Params.Encode writes the text.
func (u URI) WithQuery(query string) (URI, error) {
	if err := checkText(query, cQuery, "query"); err != nil {
		return URI{}, err
	}
	p := u.parts()
	p.query = query
	p.flags |= hasQuery
	return p.uri()
}

// WithoutQuery returns u without a query (and its '?').
func (u URI) WithoutQuery() URI {
	if !u.HasQuery() {
		return u
	}
	p := u.parts()
	p.query = ""
	p.flags &^= hasQuery
	return p.mustURI()
}

// WithFragment returns u with the fragment fragment, as written (§3.5),
// after a '#' that is added if there was none; it may be empty ("#").
func (u URI) WithFragment(fragment string) (URI, error) {
	if err := checkText(fragment, cQuery, "fragment"); err != nil {
		return URI{}, err
	}
	p := u.parts()
	p.fragment = fragment
	p.flags |= hasFragment
	return p.uri()
}

// Redacted returns the text of u with the password of its userinfo, the
// part after the first ':' (a form RFC 3986 §3.2.1 deprecates), replaced by
// "xxxxx", as net/url's URL.Redacted does; for logs. A URI without a
// password comes back as it is.
func (u URI) Redacted() string {
	ui := u.Userinfo()
	i := strings.IndexByte(ui, ':')
	if i < 0 {
		return u.s
	}
	start := int(u.authStart())
	return u.s[:start+i+1] + "xxxxx" + u.s[start+len(ui):]
}

// Compare returns an integer comparing a and b by the byte order of their
// text, for slices.SortFunc(us, uri.Compare). It is 0 exactly when a == b,
// for a text always parses into the same value. URIs that are equivalent
// but spelled differently (Equal at Syntax or SchemeBased) can sort apart:
// sort by their normal forms to bring them together.
func Compare(a, b URI) int { return strings.Compare(a.s, b.s) }

// AppendText implements encoding.TextAppender: it appends the text of u.
func (u URI) AppendText(b []byte) ([]byte, error) { return append(b, u.s...), nil }
