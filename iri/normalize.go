package iri

import (
	"strings"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/internal/rfc3986"
	"github.com/urikit/urikit/uri"
)

// Normalize returns x normalized at level, a rung of the comparison ladder
// of RFC 3987 §5.3 (the same rungs as RFC 3986 §6.2, uri.Level).
//
// uri.Syntax is §5.3.2: case normalization (§5.3.2.1: the scheme in lower
// case, the ASCII letters of the host in lower case, upper-case hex in
// every percent-encoding that stays), percent-encoding normalization
// (§5.3.2.3: the encodings of unreserved characters are decoded, and so are
// those of well-formed UTF-8 characters that may stand unencoded at their
// place, exactly the ones that FromURI decodes: a ucschar, an iprivate in
// the query, never a bidi formatting character), and path segment
// normalization (§5.3.2.4: dot segments removed when x has a scheme).
//
// Character normalization (§5.3.2.2) is not applied at this rung: the RFC
// says that equivalence "MUST rely on the assumption that IRIs are
// appropriately pre-character-normalized rather than apply character
// normalization when comparing two IRIs", so "résumé" written with a
// combining accent stays different from "résumé" with U+00E9. The RFC asks
// for NFC (canonical composition, not NFKC, which would also fold
// compatibility characters such as full-width letters and so change the
// identifier) only where an IRI is made from a non-digital form or
// transcoded from a non-Unicode encoding (§3.1 step 1 a and b): that is
// ParseNFC.
//
// uri.SchemeBased adds §5.3.3 for the schemes that uri.LookupScheme knows:
// an empty or default port is removed and leading zeros dropped, an empty
// path becomes "/" where the scheme says so (http, https, ws, wss, ftp),
// and a host that is an internationalized domain name (non-ASCII, or with
// an "xn--" label) is character-normalized by the UTS #46 mapping (case
// folding and NFC, the successor of the Nameprep that §5.3.3 names) and
// written in Unicode, not in ACE, "for legibility purposes" (§5.3.3): so
// http://résumé.example.org and http://xn--rsum-bpad.example.org are equal
// at this rung. A host that is no valid IDN keeps its syntax-based form.
func (x IRI) Normalize(level uri.Level) IRI {
	if level == uri.Simple {
		return x
	}
	v, err := ParseReference(string(x.AppendNormalized(nil, level)))
	if err != nil {
		// Normalization decodes only what may stand unencoded, changes
		// ASCII case and removes dot segments: its output parses.
		panic("iri: normalization produced an invalid IRI: " + err.Error())
	}
	return v
}

// AppendNormalized appends the text of x normalized at level to dst.
func (x IRI) AppendNormalized(dst []byte, level uri.Level) []byte {
	if level == uri.Simple {
		return append(dst, x.s...)
	}
	start := len(dst)
	out := x.appendNormalized(dst, level, true)
	if level >= uri.SchemeBased && x.kind == uri.RegName && x.HasAuthority() {
		// The IDN mapping is the one step whose output is not checked by
		// construction: make sure the result parses, else keep the host
		// of the syntax rung.
		if _, err := ParseReference(string(out[start:])); err != nil {
			out = x.appendNormalized(out[:start], level, false)
		}
	}
	return out
}

// appendNormalized follows the steps of uri.Normalizer.Append, but is not
// shared with it: what it decodes differs (§5.3.2.3 decodes well-formed
// UTF-8 sequences of the characters an IRI may hold, package uri only the
// unreserved ASCII ones), and so does the host (an IDN is mapped by UTS #46
// here). The steps that are the same algorithm, remove_dot_segments and
// the port rule, are internal/rfc3986's.
func (x IRI) appendNormalized(dst []byte, level uri.Level, idn bool) []byte {
	var info uri.SchemeInfo
	known := false
	if x.HasScheme() {
		dst = ascii.AppendLower(dst, x.Scheme())
		dst = append(dst, ':')
		if level >= uri.SchemeBased {
			info, known = uri.LookupScheme(x.Scheme())
		}
	}
	if x.HasAuthority() {
		dst = append(dst, "//"...)
		if x.HasUserinfo() {
			dst = appendDecoded(dst, x.Userinfo(), ucsChar, true)
			dst = append(dst, '@')
		}
		switch x.kind {
		case uri.IPv6, uri.IPvFuture:
			dst = append(dst, '[')
			for _, c := range []byte(x.Host()) {
				dst = append(dst, lower(c))
			}
			dst = append(dst, ']')
		default:
			hs := len(dst)
			dst = appendDecoded(dst, x.Host(), ucsChar, true)
			for i := hs; i < len(dst); i++ {
				dst[i] = lower(dst[i])
			}
			if known && idn && x.kind == uri.RegName {
				if host := string(dst[hs:]); isIDN(host) {
					if u, ok := DomainToUnicode(host); ok {
						dst = append(dst[:hs], u...)
					}
				}
			}
		}
		if x.HasPort() {
			dst = rfc3986.AppendPort(dst, x.Port(), known && info.DefaultPort > 0, info.DefaultPort)
		}
	}
	pathStart := len(dst)
	path := x.Path()
	switch {
	case path == "" && known && info.EmptyPathIsSlash && x.HasAuthority():
		dst = append(dst, '/')
	case x.HasScheme():
		// §5.3.2.4 after §5.3.2.3, so that "%2E%2E" is a dot segment too.
		if strings.IndexByte(path, '%') >= 0 {
			var buf [256]byte
			clean := appendDecoded(buf[:0], path, ucsChar, true)
			dst = rfc3986.AppendRemoveDotSegments(dst, string(clean))
		} else {
			dst = rfc3986.AppendRemoveDotSegments(dst, path)
		}
		dst = rfc3986.GuardPath(dst, pathStart, x.HasAuthority())
	default:
		dst = appendDecoded(dst, path, ucsChar, true)
	}
	if x.HasQuery() {
		dst = append(dst, '?')
		dst = appendDecoded(dst, x.Query(), ucsPrivate, true)
	}
	if x.HasFragment() {
		dst = append(dst, '#')
		dst = appendDecoded(dst, x.Fragment(), ucsChar, true)
	}
	return dst
}

// isIDN reports whether the lower-cased host is an internationalized
// domain name: non-ASCII, or with a label in ACE form.
func isIDN(host string) bool {
	return !isASCII(host) || strings.HasPrefix(host, "xn--") || strings.Contains(host, ".xn--")
}

// Equal reports whether a and b are equivalent at level (RFC 3987 §5.3).
// At uri.Simple it is the character-for-character comparison of §5.3.1,
// which never maps IRIs to URIs.
func Equal(a, b IRI, level uri.Level) bool {
	if level == uri.Simple || a.s == b.s {
		return a.s == b.s
	}
	var bufA, bufB [512]byte
	return string(a.AppendNormalized(bufA[:0], level)) == string(b.AppendNormalized(bufB[:0], level))
}

// Equal reports whether x and y are equivalent at level; see the function Equal.
func (x IRI) Equal(y IRI, level uri.Level) bool { return Equal(x, y, level) }

// EqualStrings parses a and b as IRI references and compares them at level.
func EqualStrings(a, b string, level uri.Level) (bool, error) {
	x, err := ParseReference(a)
	if err != nil {
		return false, err
	}
	y, err := ParseReference(b)
	if err != nil {
		return false, err
	}
	return Equal(x, y, level), nil
}
