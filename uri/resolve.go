package uri

import "strings"

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
	var (
		scheme       = base.Scheme()
		authority    string
		hasAuth      bool
		path, query  string
		hasQ         bool
		mergePath    bool // path must be merged with the base path first
		removeDots   bool
		absoluteBase = base
	)
	switch {
	case hasRefScheme:
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

	// §5.3 Component Recomposition
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
		if absoluteBase.HasAuthority() && absoluteBase.Path() == "" {
			merged = append(merged, '/')
		} else {
			bp := absoluteBase.Path()
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
// authority when there is none, by writing "/." before it: the dot segment
// means nothing, and the URI parses back to the same components.
func guardPath(dst []byte, pathStart int, hasAuth bool) []byte {
	if hasAuth || len(dst)-pathStart < 2 || dst[pathStart] != '/' || dst[pathStart+1] != '/' {
		return dst
	}
	dst = append(dst, "/."...)
	copy(dst[pathStart+2:], dst[pathStart:len(dst)-2])
	dst[pathStart], dst[pathStart+1] = '/', '.'
	return dst
}

// RemoveDotSegments applies RFC 3986 §5.2.4 to a path.
func RemoveDotSegments(path string) string {
	return string(appendRemoveDotSegments(nil, path))
}

// appendRemoveDotSegments is §5.2.4 remove_dot_segments, literally: the
// output buffer is dst[start:], and "removing the last segment" truncates
// it to its last '/'.
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
		dst = guardPath(dst, pathStart, base.HasAuthority())
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
		dst = guardPath(dst, pathStart, base.HasAuthority())
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
