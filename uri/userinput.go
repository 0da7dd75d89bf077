package uri

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// HostMapper turns a host name written with non-ASCII characters into the
// ASCII form a URI carries (IDNA ToASCII, RFC 5891), or says why it cannot.
// Package uri imports only the standard library, so it has no IDNA of its
// own: package extract supplies one (extract.IDNAHost).
type HostMapper func(host string) (string, error)

// UserInputOption configures ParseUserInput.
type UserInputOption func(*userInputConfig)

type userInputConfig struct {
	mapHost HostMapper
}

// WithHostMapper makes ParseUserInput map a host name that holds non-ASCII
// characters through m. Without it such a host is refused.
func WithHostMapper(m HostMapper) UserInputOption {
	return func(c *userInputConfig) { c.mapHost = m }
}

// ParseUserInput turns what a person typed or pasted into a strict URI, or
// says why it will not. It is the robustness RFC 3986 Appendix C asks of
// software that accepts user-typed URIs, and no more:
//
//   - Surrounding whitespace and delimiters are removed: <...>, "...",
//     '...', “...”, ‘...’, «...», ‹...› (nested too), then a "URL:"
//     prefix (any case, with or without spaces after it).
//   - A line break and the whitespace around it are removed (a URI broken
//     across lines); a hyphen before the break stays.
//   - In the path, query and fragment, a space becomes %20 and every other
//     character a URI cannot hold — non-ASCII text (as UTF-8), tab, " < >
//     [ ] ^ ` { | } and a second '#' — is percent-encoded. The userinfo's
//     non-ASCII text is percent-encoded too.
//   - A host with non-ASCII characters goes through the HostMapper given
//     by WithHostMapper (IDNA).
//   - The abbreviated forms of the 2003 draft's Appendix F get their
//     scheme: "www." starts an http URI, "ftp." an ftp URI
//     (www.example.com/x becomes http://www.example.com/x).
//
// It never guesses: it refuses, with an *Error saying why and where (an
// offset into s), input without a scheme that is not one of those forms
// (example.com/x: http or https?), a "name:digits" that reads both as a
// scheme and as a host and port (localhost:8080), a scheme-less "//host",
// a backslash, a '%' not followed by two hex digits (a literal '%' or a
// broken escape?), whitespace in the scheme or authority, control
// characters, invalid UTF-8, unbalanced delimiters, and a non-ASCII host
// without a HostMapper. The result is checked with Parse.
func ParseUserInput(s string, opts ...UserInputOption) (URI, error) {
	var cfg userInputConfig
	for _, o := range opts {
		o(&cfg)
	}
	if i := invalidUTF8(s); i >= 0 {
		return URI{}, errAt(ErrInvalidText, s, i, "invalid UTF-8")
	}
	t := newTracked(s)
	if err := t.unwrap(); err != nil {
		return URI{}, err
	}
	t.dropLineBreaks()
	if len(t.b) == 0 {
		return URI{}, errAt(ErrInvalidText, s, len(s), "empty input")
	}
	for i, c := range t.b {
		if c < 0x20 && !isSpaceByte(c) || c == 0x7f {
			return URI{}, t.err(ErrInvalidText, i, "control character in the input")
		}
	}

	// The scheme, or one of the abbreviated forms of Appendix F.
	var out []byte
	rest := 0 // index in t.b of what follows "scheme:"
	n := schemeLen(t.b)
	switch {
	case n > 0 && hasPrefixAt(t.b, n+1, "//"):
		out = append(out, t.b[:n+1]...)
		rest = n + 1
	case n > 0 && portLike(t.b[n+1:]):
		name := string(t.b[:n])
		if abbreviated(name) == "" {
			return URI{}, t.err(ErrAmbiguous, 0, `"`+name+":"+leadingDigits(t.b[n+1:])+`" reads both as the scheme "`+name+
				`" and as a host and port; write the scheme (e.g. http://`+name+":"+leadingDigits(t.b[n+1:])+`) if a host and port are meant`)
		}
		out = append(out, abbreviated(name)...)
	case n > 0:
		out = append(out, t.b[:n+1]...)
		rest = n + 1
	case hasPrefixAt(t.b, 0, "//"):
		return URI{}, t.err(ErrAmbiguous, 0, "a network-path reference (//host) has no scheme; write the scheme that is meant")
	default:
		host := t.b
		if k := indexAny(host, "/?#"); k >= 0 {
			host = host[:k]
		}
		sch := abbreviated(string(host))
		if sch == "" {
			return URI{}, t.err(ErrAmbiguous, 0, "no scheme, and not an abbreviated form (www.… or ftp.…, RFC 3986 draft Appendix F); write the scheme (http://, https://, …)")
		}
		out = append(out, sch...)
	}

	// The authority.
	i := rest
	if hasPrefixAt(t.b, i, "//") {
		out = append(out, "//"...)
		i += 2
		end := i
		for end < len(t.b) && t.b[end] != '/' && t.b[end] != '?' && t.b[end] != '#' {
			end++
		}
		var err error
		if out, err = t.authority(out, i, end, cfg.mapHost); err != nil {
			return URI{}, err
		}
		i = end
	} else if rest == 0 {
		// abbreviated form: the text starts with the host
		end := 0
		for end < len(t.b) && t.b[end] != '/' && t.b[end] != '?' && t.b[end] != '#' {
			end++
		}
		var err error
		if out, err = t.authority(out, 0, end, cfg.mapHost); err != nil {
			return URI{}, err
		}
		i = end
	}

	// Path, query and fragment.
	var err error
	if out, err = t.tail(out, i); err != nil {
		return URI{}, err
	}
	u, err := Parse(string(out))
	if err != nil {
		e := err.(*Error)
		return URI{}, errAt(e.Kind, s, t.orig(0), "the cleaned text "+quote(e.Input)+" is not a URI: "+e.Reason)
	}
	return u, nil
}

// tracked is the input being cleaned: its bytes, and for each the offset of
// the byte in the original input, so that errors point into what was typed.
type tracked struct {
	s   string
	b   []byte
	pos []int
}

func newTracked(s string) *tracked {
	t := &tracked{s: s, b: []byte(s), pos: make([]int, len(s))}
	for i := range t.pos {
		t.pos[i] = i
	}
	return t
}

func (t *tracked) orig(i int) int {
	if i < len(t.pos) {
		return t.pos[i]
	}
	return len(t.s)
}

func (t *tracked) err(kind error, i int, reason string) error {
	return errAt(kind, t.s, t.orig(i), reason)
}

func (t *tracked) cut(from, to int) {
	t.b, t.pos = t.b[from:to], t.pos[from:to]
}

func (t *tracked) trimSpace() {
	from, to := 0, len(t.b)
	for from < to {
		r, n := utf8.DecodeRune(t.b[from:to])
		if !unicode.IsSpace(r) {
			break
		}
		from += n
	}
	for to > from {
		r, n := utf8.DecodeLastRune(t.b[from:to])
		if !unicode.IsSpace(r) {
			break
		}
		to -= n
	}
	t.cut(from, to)
}

var delimiterPairs = [][2]string{
	{"<", ">"}, {`"`, `"`}, {"'", "'"},
	{"\u201c", "\u201d"}, {"\u2018", "\u2019"}, {"\u00ab", "\u00bb"}, {"\u2039", "\u203a"},
	{"\u201e", "\u201c"}, {"\u00bb", "\u00ab"},
}

// unwrap removes surrounding whitespace, delimiters and a "URL:" prefix.
func (t *tracked) unwrap() error {
	for {
		t.trimSpace()
		b := string(t.b)
		changed := false
		for _, p := range delimiterPairs {
			if len(b) >= len(p[0])+len(p[1]) && strings.HasPrefix(b, p[0]) && strings.HasSuffix(b, p[1]) {
				t.cut(len(p[0]), len(b)-len(p[1]))
				changed = true
				break
			}
		}
		if changed {
			continue
		}
		if len(b) >= 4 && equalFold(b[:4], "url:") {
			t.cut(4, len(b))
			continue
		}
		for _, p := range delimiterPairs {
			if strings.HasPrefix(b, p[0]) {
				return t.err(ErrInvalidText, 0, "opening "+quote(p[0])+" without its closing "+quote(p[1]))
			}
			// a final apostrophe is a URI character
			if p[1] != "'" && strings.HasSuffix(b, p[1]) {
				return t.err(ErrInvalidText, len(b)-len(p[1]), "closing "+quote(p[1])+" without its opening "+quote(p[0]))
			}
		}
		return nil
	}
}

// dropLineBreaks removes every run of whitespace that holds a line break.
func (t *tracked) dropLineBreaks() {
	b, pos := t.b[:0:0], t.pos[:0:0]
	for i := 0; i < len(t.b); {
		if !isSpaceByte(t.b[i]) {
			b, pos = append(b, t.b[i]), append(pos, t.pos[i])
			i++
			continue
		}
		j, br := i, false
		for j < len(t.b) && isSpaceByte(t.b[j]) {
			br = br || t.b[j] == '\n' || t.b[j] == '\r'
			j++
		}
		if !br {
			b, pos = append(b, t.b[i:j]...), append(pos, t.pos[i:j]...)
		}
		i = j
	}
	t.b, t.pos = b, pos
}

// authority appends the cleaned authority t.b[a:e].
func (t *tracked) authority(out []byte, a, e int, mapHost HostMapper) ([]byte, error) {
	h := a
	if k := indexByteFrom(t.b[:e], '@', a); k >= 0 {
		if indexByteFrom(t.b[:e], '@', k+1) >= 0 {
			return nil, t.err(ErrAmbiguous, indexByteFrom(t.b[:e], '@', k+1), "two '@' in the authority: which one ends the userinfo?")
		}
		for j := a; j < k; j++ {
			c := t.b[j]
			switch {
			case isSpaceByte(c):
				return nil, t.err(ErrInvalidUserinfo, j, "whitespace in the userinfo")
			case c >= 0x80:
				out = append(out, '%', upperHex[c>>4], upperHex[c&15])
			case c == '%':
				if pctEnd(string(t.b[:e]), j) >= 0 {
					return nil, t.err(ErrAmbiguous, j, "'%' not followed by two hex digits (write %25 for a literal '%')")
				}
				out = append(out, c)
			default:
				out = append(out, c)
			}
		}
		out = append(out, '@')
		h = k + 1
	}
	hostEnd := e
	if h < e && t.b[h] == '[' {
		if k := indexByteFrom(t.b[:e], ']', h); k >= 0 {
			hostEnd = k + 1
		}
	} else if k := lastIndexByte(t.b[h:e], ':'); k >= 0 {
		hostEnd = h + k
	}
	host := t.b[h:hostEnd]
	for j, c := range host {
		if isSpaceByte(c) {
			return nil, t.err(ErrInvalidHost, h+j, "whitespace in the host")
		}
		if c == '\\' {
			return nil, t.err(ErrAmbiguous, h+j, "backslash in the host (a '/' was probably meant; not guessed)")
		}
	}
	if !isASCII(host) {
		if mapHost == nil {
			return nil, t.err(ErrInvalidHost, h, "internationalized host name "+quote(string(host))+" needs IDNA (use a HostMapper such as extract.IDNAHost)")
		}
		m, err := mapHost(string(host))
		if err != nil {
			return nil, t.err(ErrInvalidHost, h, "host "+quote(string(host))+": "+err.Error())
		}
		out = append(out, m...)
	} else {
		out = append(out, host...)
	}
	for j := hostEnd; j < e; j++ {
		if isSpaceByte(t.b[j]) {
			return nil, t.err(ErrInvalidPort, j, "whitespace in the port")
		}
	}
	return append(out, t.b[hostEnd:e]...), nil
}

// tail appends the cleaned path, query and fragment t.b[i:].
func (t *tracked) tail(out []byte, i int) ([]byte, error) {
	inFragment := false
	for j := i; j < len(t.b); j++ {
		c := t.b[j]
		switch {
		case c == '#' && !inFragment:
			inFragment = true
			out = append(out, c)
		case c == '%':
			if pctEnd(string(t.b), j) >= 0 {
				return nil, t.err(ErrAmbiguous, j, "'%' not followed by two hex digits: a literal '%' (write %25) or a broken escape? not guessed")
			}
			out = append(out, c)
		case c == '\\':
			return nil, t.err(ErrAmbiguous, j, "backslash (a '/' was probably meant; not guessed)")
		case is(c, cQuery):
			out = append(out, c)
		default: // space, tab, non-ASCII, " < > [ ] ^ ` { | }, a second '#'
			out = append(out, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return out, nil
}

// schemeLen returns the length of the scheme when b starts with
// scheme ":", else 0.
func schemeLen(b []byte) int {
	if len(b) == 0 || !is(b[0], cAlpha) {
		return 0
	}
	for i := 1; i < len(b); i++ {
		if b[i] == ':' {
			return i
		}
		if !is(b[i], cScheme) {
			return 0
		}
	}
	return 0
}

// portLike reports whether b is digits followed by the end, '/', '?' or '#'.
func portLike(b []byte) bool {
	d := leadingDigits(b)
	return d != "" && (len(d) == len(b) || b[len(d)] == '/' || b[len(d)] == '?' || b[len(d)] == '#')
}

func leadingDigits(b []byte) string {
	i := 0
	for i < len(b) && is(b[i], cDigit) {
		i++
	}
	return string(b[:i])
}

// abbreviated returns the scheme and "//" that the abbreviated form host
// stands for (Appendix F of the 2003 draft), or "".
func abbreviated(host string) string {
	switch {
	case len(host) > 4 && equalFold(host[:4], "www."):
		return "http://"
	case len(host) > 4 && equalFold(host[:4], "ftp."):
		return "ftp://"
	}
	return ""
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return i <= len(b) && strings.HasPrefix(string(b[i:]), p)
}

func indexAny(b []byte, chars string) int { return strings.IndexAny(string(b), chars) }

func indexByteFrom(b []byte, c byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func invalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

func quote(s string) string { return `"` + s + `"` }
