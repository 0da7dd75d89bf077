package iri

import "strings"

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
	// RFC 3986 §5.2.2 Transform References
	var (
		scheme      = base.Scheme()
		authority   string
		hasAuth     bool
		path, query string
		hasQ        bool
		mergePath   bool
		removeDots  bool
	)
	switch {
	case ref.HasScheme():
		scheme = ref.Scheme()
		authority, hasAuth = ref.Authority(), ref.HasAuthority()
		path, removeDots = ref.Path(), true
		query, hasQ = ref.Query(), ref.HasQuery()
	case ref.HasAuthority():
		authority, hasAuth = ref.Authority(), true
		path, removeDots = ref.Path(), true
		query, hasQ = ref.Query(), ref.HasQuery()
	default:
		authority, hasAuth = base.Authority(), base.HasAuthority()
		switch rp := ref.Path(); {
		case rp == "":
			path = base.Path()
			if ref.HasQuery() {
				query, hasQ = ref.Query(), true
			} else {
				query, hasQ = base.Query(), base.HasQuery()
			}
		case rp[0] == '/':
			path, removeDots = rp, true
			query, hasQ = ref.Query(), ref.HasQuery()
		default:
			path, removeDots, mergePath = rp, true, true
			query, hasQ = ref.Query(), ref.HasQuery()
		}
	}

	// RFC 3986 §5.3 Component Recomposition
	dst = append(dst, scheme...)
	dst = append(dst, ':')
	if hasAuth {
		dst = append(dst, "//"...)
		dst = append(dst, authority...)
	}
	pathStart := len(dst)
	switch {
	case mergePath:
		// §5.2.3 Merge Paths, then §5.2.4 on the result.
		var merged []byte
		if base.HasAuthority() && base.Path() == "" {
			merged = append(merged, '/')
		} else {
			bp := base.Path()
			merged = append(merged, bp[:strings.LastIndexByte(bp, '/')+1]...)
		}
		merged = append(merged, path...)
		dst = appendRemoveDotSegments(dst, string(merged))
	case removeDots:
		dst = appendRemoveDotSegments(dst, path)
	default:
		dst = append(dst, path...)
	}
	dst = guardPath(dst, pathStart, hasAuth)
	if hasQ {
		dst = append(dst, '?')
		dst = append(dst, query...)
	}
	if ref.HasFragment() {
		dst = append(dst, '#')
		dst = append(dst, ref.Fragment()...)
	}
	return dst, nil
}

// guardPath keeps a path that starts with "//" from being read back as an
// authority when there is none, by writing "/." before it.
func guardPath(dst []byte, pathStart int, hasAuth bool) []byte {
	if hasAuth || len(dst)-pathStart < 2 || dst[pathStart] != '/' || dst[pathStart+1] != '/' {
		return dst
	}
	dst = append(dst, "/."...)
	copy(dst[pathStart+2:], dst[pathStart:len(dst)-2])
	dst[pathStart], dst[pathStart+1] = '/', '.'
	return dst
}

// appendRemoveDotSegments is RFC 3986 §5.2.4 remove_dot_segments,
// literally: the output buffer is dst[start:], and "removing the last
// segment" truncates it to its last '/'. Non-ASCII characters are never
// '.' or '/', so it works on IRI text unchanged (§6.5).
func appendRemoveDotSegments(dst []byte, in string) []byte {
	start := len(dst)
	pop := func() {
		for j := len(dst) - 1; j >= start; j-- {
			if dst[j] == '/' {
				dst = dst[:j]
				return
			}
		}
		dst = dst[:start]
	}
	for len(in) > 0 {
		switch {
		case strings.HasPrefix(in, "../"): // A
			in = in[3:]
		case strings.HasPrefix(in, "./"): // A
			in = in[2:]
		case strings.HasPrefix(in, "/./"): // B
			in = in[2:]
		case in == "/.": // B
			in = "/"
		case strings.HasPrefix(in, "/../"): // C
			in = in[3:]
			pop()
		case in == "/..": // C
			in = "/"
			pop()
		case in == "." || in == "..": // D
			in = ""
		default: // E: move the first segment, with its leading '/'
			j := 0
			if in[0] == '/' {
				j = 1
			}
			for j < len(in) && in[j] != '/' {
				j++
			}
			dst = append(dst, in[:j]...)
			in = in[j:]
		}
	}
	return dst
}
