package iri

import "github.com/urikit/urikit/internal/rfc3986"

// Resolve resolves the reference ref against x, which must have a scheme,
// by RFC 3987 §6.5: the strict algorithm of RFC 3986 §5.2 applied to the
// IRIs as they are, the characters that IRIs add treated as unreserved
// ones; the result is an IRI (nothing is mapped to a URI). A fragment of x
// is ignored. As in package uri, a result without an authority whose path
// would start with "//" gets a "/." before it, so that it parses back to
// the same components.
func (x IRI) Resolve(ref IRI) (IRI, error) {
	b, err := AppendResolved(nil, x, ref)
	if err != nil {
		return IRI{}, err
	}
	return ParseReference(string(b))
}

// ResolveString parses ref as an IRI reference and resolves it against x.
func (x IRI) ResolveString(ref string) (IRI, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return IRI{}, err
	}
	return x.Resolve(r)
}

// AppendResolved appends the resolution of ref against base to dst.
func AppendResolved(dst []byte, base, ref IRI) ([]byte, error) {
	if !base.HasScheme() {
		return dst, errAt(base.s, 0, ErrNotAbsolute, "the base of a resolution must be an absolute IRI (it has no scheme)")
	}
	b, r := base.ref(), ref.ref()
	return rfc3986.AppendResolved(dst, &b, &r, ref.HasScheme()), nil
}

// ref is x as internal/rfc3986 reads a reference. The algorithm of RFC
// 3986 §5.2, which package uri runs too, is applied to the IRI text as it
// is (RFC 3987 §6.5): it only looks for '/' and '.', which no byte of a
// non-ASCII character is. It takes no options: the non-strict reading and
// RFC 2396's algorithm are package uri's, for URIs only.
func (x *IRI) ref() rfc3986.Ref {
	return rfc3986.Ref{
		Text: x.s, SchemeEnd: x.schemeEnd, PathStart: x.pathStart, QueryStart: x.queryStart, FragStart: x.fragStart,
		HasScheme: x.has(hasScheme), HasAuthority: x.has(hasAuthority), HasQuery: x.has(hasQuery), HasFragment: x.has(hasFragment),
	}
}
