package uri

import (
	"strconv"
	"strings"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/internal/rfc3986"
)

// Level is a rung of the comparison ladder of RFC 3986 §6.2.
type Level uint8

const (
	// Simple compares the text character for character (§6.2.1).
	Simple Level = iota
	// Syntax normalizes case, percent-encoding and dot segments (§6.2.2).
	Syntax
	// SchemeBased adds the scheme's rules: default port, empty path (§6.2.3).
	SchemeBased
)

func (l Level) String() string {
	switch l {
	case Simple:
		return "simple"
	case Syntax:
		return "syntax"
	case SchemeBased:
		return "scheme"
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// ParseLevel reads "simple", "syntax" or "scheme".
func ParseLevel(s string) (Level, bool) {
	switch s {
	case "simple":
		return Simple, true
	case "syntax":
		return Syntax, true
	case "scheme":
		return SchemeBased, true
	}
	return 0, false
}

// Normalize returns u normalized at level, with the built-in scheme facts
// (LookupScheme).
func (u URI) Normalize(level Level) URI { return Normalizer{Level: level}.Normalize(u) }

// AppendNormalized appends the text of u normalized at level to dst (see
// Normalizer.Append).
func (u URI) AppendNormalized(dst []byte, level Level) []byte {
	return Normalizer{Level: level}.Append(dst, u)
}

// A Normalizer normalizes and compares URIs at a rung of the ladder of
// §6.2. The zero Normalizer compares character for character; the
// methods of URI and the function Equal use a Normalizer with the built-in
// scheme facts. A Normalizer holds no state: it is safe for concurrent use
// as long as its Schemes are not written.
type Normalizer struct {
	Level Level
	// Schemes holds the facts scheme-based normalization uses; nil means
	// the built-in table (LookupScheme). An empty, non-nil table knows no
	// scheme.
	Schemes Schemes
}

func (n Normalizer) lookup(scheme string) (SchemeInfo, bool) {
	if n.Schemes == nil {
		return builtin.Lookup(scheme)
	}
	return n.Schemes.Lookup(scheme)
}

// Normalize returns u normalized.
func (n Normalizer) Normalize(u URI) URI {
	if n.Level == Simple {
		return u
	}
	v, err := reparse(string(n.Append(nil, u)), u.has(hasZone))
	if err != nil {
		// Normalization only decodes unreserved characters, changes case
		// and removes dot segments and defaults; its output always parses.
		panic("uri: normalization produced an invalid URI: " + err.Error())
	}
	return v
}

// Equal reports whether a and b are equivalent at n's level (§6.2).
func (n Normalizer) Equal(a, b URI) bool {
	if n.Level == Simple || a.s == b.s {
		return a.s == b.s
	}
	var bufA, bufB [512]byte
	return string(n.Append(bufA[:0], a)) == string(n.Append(bufB[:0], b))
}

// Append appends the text of u normalized to dst.
//
// Syntax (§6.2.2): the scheme and a reg-name or IP-literal host in lower
// case; the hex digits of every percent-encoding in upper case; the
// percent-encodings of unreserved characters decoded (in a reg-name first,
// so "%41" becomes "a"); dot segments removed (§5.2.4) when u has a scheme.
// IP literals are lowercased as text, never rewritten (a zone identifier,
// let in by Parser.AllowZoneID, keeps its case).
//
// SchemeBased (§6.2.3) adds, for schemes with a known default port, the
// removal of an empty or default port (compared as a number) and of the
// leading zeros of any other port; "/" for an empty path where the scheme
// says so (http, https, ws, wss, ftp); and the empty host for the
// scheme's default host when no userinfo or port comes with it (file:
// file://localhost/x is file:///x).
func (n Normalizer) Append(dst []byte, u URI) []byte {
	level := n.Level
	if level == Simple {
		return append(dst, u.s...)
	}
	var info SchemeInfo
	known := false
	if u.HasScheme() {
		dst = ascii.AppendLower(dst, u.Scheme())
		dst = append(dst, ':')
		if level >= SchemeBased {
			info, known = n.lookup(u.Scheme())
		}
	}
	if u.HasAuthority() {
		dst = append(dst, "//"...)
		if u.HasUserinfo() {
			dst = appendNormPct(dst, u.Userinfo(), false)
			dst = append(dst, '@')
		}
		switch u.kind {
		case IPv6, IPvFuture:
			dst = append(dst, '[')
			host, zone := u.Host(), ""
			if u.has(hasZone) {
				// A zone identifier names an interface, whose name may
				// depend on case ("%25eth0"): only its encodings change.
				i := strings.IndexByte(host, '%')
				host, zone = host[:i], host[i:]
			}
			dst = appendNormPct(dst, host, true)
			dst = appendNormPct(dst, zone, false)
			dst = append(dst, ']')
		default:
			hostStart := len(dst)
			dst = appendNormPct(dst, u.Host(), true)
			// §3.2.2: the scheme's default host is the empty host.
			if known && info.DefaultHost != "" && !u.HasUserinfo() && !u.HasPort() &&
				string(dst[hostStart:]) == info.DefaultHost {
				dst = dst[:hostStart]
			}
		}
		if u.HasPort() {
			dst = rfc3986.AppendPort(dst, u.Port(), known && info.DefaultPort > 0, info.DefaultPort)
		}
	}
	pathStart := len(dst)
	path := u.Path()
	switch {
	case path == "" && known && info.EmptyPathIsSlash && u.HasAuthority():
		dst = append(dst, '/')
	case u.HasScheme():
		// §6.2.2.3: percent-encoding first, so "%2E%2E" is a dot segment too.
		switch {
		case strings.IndexByte(path, '%') >= 0:
			var buf [256]byte
			clean := appendNormPct(buf[:0], path, false)
			dst = rfc3986.AppendRemoveDotSegments(dst, string(clean))
		case rfc3986.HasDotSegment(path):
			dst = rfc3986.AppendRemoveDotSegments(dst, path)
		default: // remove_dot_segments would change nothing
			dst = append(dst, path...)
		}
		dst = rfc3986.GuardPath(dst, pathStart, u.HasAuthority())
	default:
		dst = appendNormPct(dst, path, false)
	}
	if u.HasQuery() {
		dst = append(dst, '?')
		dst = appendNormPct(dst, u.Query(), false)
	}
	if u.HasFragment() {
		dst = append(dst, '#')
		dst = appendNormPct(dst, u.Fragment(), false)
	}
	return dst
}

// appendNormPct writes s with the hex digits of its percent-encodings in
// upper case and the encodings of unreserved characters decoded (§6.2.2.2);
// with lowerCase, letters (decoded ones included) are lowered (§6.2.2.1).
func appendNormPct(dst []byte, s string, lowerCase bool) []byte {
	if !lowerCase {
		// Copy the runs between percent-encodings whole.
		for {
			i := strings.IndexByte(s, '%')
			if i < 0 || i+2 >= len(s) {
				return append(dst, s...)
			}
			dst = append(dst, s[:i]...)
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if is(v, cUnreserved) {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
			}
			s = s[i+3:]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if is(v, cUnreserved) {
				if lowerCase {
					v = lower(v)
				}
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
			}
			continue
		}
		if lowerCase {
			c = lower(c)
		}
		dst = append(dst, c)
	}
	return dst
}

// Equal reports whether a and b are equivalent at level (§6.2), with the
// built-in scheme facts (LookupScheme).
func Equal(a, b URI, level Level) bool { return Normalizer{Level: level}.Equal(a, b) }

// EqualStrings parses a and b as URI-references and compares them at level.
func EqualStrings(a, b string, level Level) (bool, error) {
	ua, err := ParseReference(a)
	if err != nil {
		return false, err
	}
	ub, err := ParseReference(b)
	if err != nil {
		return false, err
	}
	return Equal(ua, ub, level), nil
}
