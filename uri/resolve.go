package uri

import (
	"strings"

	"github.com/urikit/urikit/internal/rfc3986"
)

// ResolveOption selects a resolution behaviour other than strict RFC 3986.
type ResolveOption uint8

const (
	// SameSchemeIsRelative is the non-strict parser of RFC 3986 §5.2.2: a
	// reference whose scheme equals the base's (ignoring case) is read as
	// if it had none, for backward compatibility with RFC 1630 ("http:g"
	// against an http base gives "http://a/b/c/g").
	SameSchemeIsRelative ResolveOption = 1 << iota
	// RFC2396 resolves by the algorithm of RFC 2396 §5.2, which passes
	// every example of its Appendix C: the base's query never carries over
	// ("?y" gives "http://a/b/c/?y"); a relative path is merged with the
	// base's path and reduced by steps 6c-6f, ".." segments above the root
	// staying (the choice of step 6g that Appendix C shows: "../../../g"
	// gives "http://a/../g"); an absolute path is taken as it is ("/./g"
	// stays); the reference's query is appended to the reduced path (step
	// 7), so "g?y/../x" gives "http://a/b/c/g?y/../x". A reference with a
	// scheme is absolute (step 3) unless SameSchemeIsRelative is given too.
	RFC2396
	// Draft1997 resolves as draft-fielding-url-syntax-05 (May 1997), the
	// draft that became RFC 2396, did: as RFC2396, except that the
	// reference's query is merged with its relative path before dot
	// segments are removed, so "g?y/../x" gives "http://a/b/c/x". It passes
	// every example of that draft's Appendix C. Given with RFC2396, it wins.
	Draft1997
)

// Resolve resolves the reference ref against u, which must be a URI with a
// scheme, by the strict algorithm of RFC 3986 §5.2. A fragment of u is
// ignored (§5.1).
func (u URI) Resolve(ref URI) (URI, error) { return u.ResolveWith(ref, 0) }

// ResolveString parses ref as a URI-reference and resolves it against u.
func (u URI) ResolveString(ref string) (URI, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return URI{}, err
	}
	return u.Resolve(r)
}

// ResolveWith is Resolve with options.
func (u URI) ResolveWith(ref URI, opts ResolveOption) (URI, error) {
	b, err := AppendResolved(nil, u, ref, opts)
	if err != nil {
		return URI{}, err
	}
	return reparse(string(b), u.has(hasZone) || ref.has(hasZone))
}

// reparse parses a text that the package made out of parsed URIs, letting
// in an IPv6 zone identifier only when one of them had one (it could only
// have come from a Parser with AllowZoneID).
func reparse(s string, zone bool) (URI, error) {
	return Parser{AllowZoneID: zone}.ParseReference(s)
}

const reasonBaseNotAbsolute = "the base of a resolution must be an absolute URI (it has no scheme)"

// AppendResolved appends the resolution of ref against base to dst.
func AppendResolved(dst []byte, base, ref URI, opts ResolveOption) ([]byte, error) {
	if !base.HasScheme() {
		return dst, errAt(ErrNotAbsolute, base.s, 0, reasonBaseNotAbsolute)
	}
	// §5.2.2 Transform References (RFC 2396 §5.2 step 3 alike)
	hasRefScheme := ref.HasScheme()
	if hasRefScheme && opts&SameSchemeIsRelative != 0 && equalFold(ref.Scheme(), base.Scheme()) {
		hasRefScheme = false
	}
	if opts&(RFC2396|Draft1997) != 0 {
		return appendResolved2396(dst, base, ref, hasRefScheme, opts&Draft1997 != 0), nil
	}
	b, r := base.ref(), ref.ref()
	return rfc3986.AppendResolved(dst, &b, &r, hasRefScheme), nil
}

// ref is u as internal/rfc3986 reads a reference.
func (u *URI) ref() rfc3986.Ref {
	return rfc3986.Ref{
		Text: u.s, SchemeEnd: u.schemeEnd, PathStart: u.pathStart, QueryStart: u.queryStart, FragStart: u.fragStart,
		HasScheme: u.has(hasScheme), HasAuthority: u.has(hasAuthority), HasQuery: u.has(hasQuery), HasFragment: u.has(hasFragment),
	}
}

// RemoveDotSegments applies RFC 3986 §5.2.4 to a path.
func RemoveDotSegments(path string) string {
	return string(rfc3986.AppendRemoveDotSegments(nil, path))
}

// appendResolved2396 is the resolution of RFC 2396 §5.2, step by step;
// with draft, that of draft-fielding-url-syntax-05 §5.2, which differs in
// step 6 only: the reference's query joins the buffer before it is reduced.
// refScheme says whether the reference's scheme counts (step 3).
func appendResolved2396(dst []byte, base, ref URI, refScheme, draft bool) []byte {
	// 2) an empty reference (a fragment at most) is the current document
	if ref.Path() == "" && !refScheme && !ref.HasAuthority() && !ref.HasQuery() {
		dst = append(dst, base.WithoutFragment().s...)
		if ref.HasFragment() {
			dst = append(dst, '#')
			dst = append(dst, ref.Fragment()...)
		}
		return dst
	}
	// 3) a scheme makes it absolute
	if refScheme {
		return append(dst, ref.s...)
	}
	dst = append(dst, base.Scheme()...)
	dst = append(dst, ':')
	query, hasQuery := ref.Query(), ref.HasQuery()
	switch {
	case ref.HasAuthority():
		// 4) network-path: taken as written
		dst = append(dst, "//"...)
		dst = append(dst, ref.Authority()...)
		dst = append(dst, ref.Path()...)
	case strings.HasPrefix(ref.Path(), "/"):
		// 5) absolute-path: taken as written, after the base's authority
		if base.HasAuthority() {
			dst = append(dst, "//"...)
			dst = append(dst, base.Authority()...)
		}
		pathStart := len(dst)
		dst = append(dst, ref.Path()...)
		dst = rfc3986.GuardPath(dst, pathStart, base.HasAuthority())
	default:
		// 6) relative path: merged in a buffer, then reduced.
		if base.HasAuthority() {
			dst = append(dst, "//"...)
			dst = append(dst, base.Authority()...)
		}
		bp := base.Path()
		if base.HasAuthority() && bp == "" {
			// Step 6a would glue the reference to the authority
			// ("http://a" with "g" giving "http://ag"); an empty path
			// after an authority is "/" (as RFC 3986 §5.2.3 says).
			bp = "/"
		}
		buf := bp[:strings.LastIndexByte(bp, '/')+1] + ref.Path()
		if draft && hasQuery {
			buf += "?" + query
			hasQuery = false
		}
		pathStart := len(dst)
		dst = append(dst, reduce2396(buf)...)
		dst = rfc3986.GuardPath(dst, pathStart, base.HasAuthority())
	}
	// 7) recomposition
	if hasQuery {
		dst = append(dst, '?')
		dst = append(dst, query...)
	}
	if ref.HasFragment() {
		dst = append(dst, '#')
		dst = append(dst, ref.Fragment()...)
	}
	return dst
}

// reduce2396 is steps 6c-6g of RFC 2396 §5.2 on the merged buffer: remove
// "./" and a final "." segment, then "<segment>/../" and a final
// "<segment>/.." where <segment> is a complete segment other than "..".
func reduce2396(buf string) string {
	root := strings.HasPrefix(buf, "/")
	if root {
		buf = buf[1:]
	}
	segs := strings.Split(buf, "/")
	// d) and e): "." segments go; a final one leaves its '/'.
	out := segs[:0]
	for i, s := range segs {
		if s == "." {
			if i == len(segs)-1 {
				out = append(out, "")
			}
			continue
		}
		out = append(out, s)
	}
	segs = out
	// f) and g): leftmost "<segment>/.." first, again until none is left.
	for changed := true; changed; {
		changed = false
		for i := 0; i+1 < len(segs); i++ {
			if segs[i] != ".." && segs[i+1] == ".." {
				if i+2 == len(segs) { // g) final "<segment>/.." leaves a '/'
					segs = append(segs[:i], "")
				} else {
					segs = append(segs[:i], segs[i+2:]...)
				}
				changed = true
				break
			}
		}
	}
	res := strings.Join(segs, "/")
	if root {
		res = "/" + res
	}
	return res
}
