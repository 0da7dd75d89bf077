package rfc3986

import "strings"

// Ref is a parsed URI or IRI reference as §5.2 reads it: its text and
// where its components start, as packages uri and iri both store them.
// The text is laid out as §3 (and RFC 3987 §2.2) has it:
//
//	scheme ":" "//" authority path "?" query "#" fragment
//	      ^SchemeEnd          ^PathStart ^QueryStart ^FragStart
//
// The Has fields say which components are defined (§5.3 tells an
// undefined component from an empty one; the path is always defined); the
// offset of an undefined one is not read. The components are sliced out
// when the algorithm needs them, not before: a resolution reads few of
// them, and cutting all ten strings out of both references first made it
// a third slower.
type Ref struct {
	Text                                           string
	SchemeEnd, PathStart, QueryStart, FragStart    uint32
	HasScheme, HasAuthority, HasQuery, HasFragment bool
}

func (r *Ref) scheme() string { return r.Text[:r.SchemeEnd] }

func (r *Ref) authority() string {
	start := uint32(2) // after "//"
	if r.HasScheme {
		start = r.SchemeEnd + 3 // after ":" "//"
	}
	return r.Text[start:r.PathStart]
}

func (r *Ref) path() string {
	end := uint32(len(r.Text))
	switch {
	case r.HasQuery:
		end = r.QueryStart
	case r.HasFragment:
		end = r.FragStart
	}
	return r.Text[r.PathStart:end]
}

func (r *Ref) query() string {
	end := uint32(len(r.Text))
	if r.HasFragment {
		end = r.FragStart
	}
	return r.Text[r.QueryStart+1 : end]
}

func (r *Ref) fragment() string { return r.Text[r.FragStart+1:] }

// AppendResolved appends to dst the target of ref against base, by the
// strict algorithm of §5.2.2 (Transform References), §5.2.3 (Merge Paths)
// and §5.3 (Component Recomposition). base must have a scheme (the caller
// checks: the error is its own); its fragment is ignored (§5.1).
// refScheme says whether the reference's scheme counts: it is
// ref.HasScheme, except for the non-strict parser of §5.2.2, which reads
// a reference with the base's scheme as if it had none.
//
// A result without an authority whose path starts with "//" gets "/."
// before its path (see GuardPath), so that it parses back to the same
// components.
func AppendResolved(dst []byte, base, ref *Ref, refScheme bool) []byte {
	var (
		scheme      = base.scheme()
		authority   string
		hasAuth     bool
		path, query string
		hasQ        bool
		mergePath   bool // path must be merged with the base path first
		removeDots  bool
	)
	switch {
	case refScheme:
		scheme = ref.scheme()
		if ref.HasAuthority {
			authority, hasAuth = ref.authority(), true
		}
		path, removeDots = ref.path(), true
		if ref.HasQuery {
			query, hasQ = ref.query(), true
		}
	case ref.HasAuthority:
		authority, hasAuth = ref.authority(), true
		path, removeDots = ref.path(), true
		if ref.HasQuery {
			query, hasQ = ref.query(), true
		}
	default:
		if base.HasAuthority {
			authority, hasAuth = base.authority(), true
		}
		switch rp := ref.path(); {
		case rp == "":
			path = base.path()
			if ref.HasQuery {
				query, hasQ = ref.query(), true
			} else if base.HasQuery {
				query, hasQ = base.query(), true
			}
		case rp[0] == '/':
			path, removeDots = rp, true
			if ref.HasQuery {
				query, hasQ = ref.query(), true
			}
		default:
			path, removeDots, mergePath = rp, true, true
			if ref.HasQuery {
				query, hasQ = ref.query(), true
			}
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
		if bp := base.path(); base.HasAuthority && bp == "" {
			merged = append(merged, '/')
		} else {
			merged = append(merged, bp[:strings.LastIndexByte(bp, '/')+1]...)
		}
		merged = append(merged, path...)
		dst = AppendRemoveDotSegments(dst, string(merged))
	case removeDots:
		dst = AppendRemoveDotSegments(dst, path)
	default:
		dst = append(dst, path...)
	}
	dst = GuardPath(dst, pathStart, hasAuth)
	if hasQ {
		dst = append(dst, '?')
		dst = append(dst, query...)
	}
	if ref.HasFragment {
		dst = append(dst, '#')
		dst = append(dst, ref.fragment()...)
	}
	return dst
}

// GuardPath keeps the path dst[pathStart:] that starts with "//" from being
// read back as an authority when there is none (hasAuth false), by writing
// "/." before it: the dot segment means nothing, and the text parses back
// to the same components. Resolution and normalization can both make such
// a path ("g:a/..//b" gives "g://b" otherwise), which §5.2.4 leaves open.
func GuardPath(dst []byte, pathStart int, hasAuth bool) []byte {
	if hasAuth || len(dst)-pathStart < 2 || dst[pathStart] != '/' || dst[pathStart+1] != '/' {
		return dst
	}
	dst = append(dst, "/."...)
	copy(dst[pathStart+2:], dst[pathStart:len(dst)-2])
	dst[pathStart], dst[pathStart+1] = '/', '.'
	return dst
}

// AppendRemoveDotSegments is §5.2.4 remove_dot_segments, literally: the
// output buffer is dst[start:], and "removing the last segment" truncates
// it to its last '/'.
func AppendRemoveDotSegments(dst []byte, in string) []byte {
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

// HasDotSegment reports whether path has a "." or ".." segment, the only
// thing remove_dot_segments (§5.2.4) changes: without one, it returns the
// path as it is.
func HasDotSegment(path string) bool {
	for i := 0; i < len(path); i++ {
		if path[i] != '.' || i > 0 && path[i-1] != '/' {
			continue
		}
		j := i + 1
		if j < len(path) && path[j] == '.' {
			j++
		}
		if j == len(path) || path[j] == '/' {
			return true
		}
	}
	return false
}
