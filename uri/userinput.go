package uri

import (
	"bytes"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urikit/urikit/internal/ascii"
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
// a "URL:" label broken across lines (a label or a scheme?), a
// backslash, a '%' not followed by two hex digits (a literal '%' or a
// broken escape?), whitespace in the scheme or authority, control
// characters, invalid UTF-8, unbalanced delimiters, and a non-ASCII host
// without a HostMapper. The result is checked with Parse; when it fails
// there, the error's offset still points into s.
//
// Time and memory are linear in the length of s whatever it holds (a few
// times its size at most), so it is safe on text of any origin.
func ParseUserInput(s string, opts ...UserInputOption) (URI, error) {
	var c cleaner
	return c.parse(s, opts)
}

// cleaner holds one run of ParseUserInput. Every step reads each byte a
// bounded number of times and copies the text a bounded number of times;
// work counts the bytes its loops examine, so that tests can check the
// bound without timing anything.
type cleaner struct {
	s string // the caller's input
	// b is the text being cleaned: s without its wrappers and line
	// breaks. bRuns maps it back to s: from bRuns[k].at on, b[i] is
	// s[bRuns[k].from+i-bRuns[k].at], up to the next run (a new run
	// starts after each line break removed).
	b     []byte
	bRuns []run
	// out is the URI being written. Its scheme and authority map back to
	// b through outRuns (see run); the path, query and fragment, written
	// from b[tailB:] at out[tailOut:], are mapped by replaying tail, so
	// that they cost no memory beyond out itself.
	out            []byte
	outRuns        []run
	tailB, tailOut int
	work           int
}

// A run maps a stretch of one text to another from the offsets at and
// from on: byte for byte (runCopy), three bytes to one (runPct, the
// percent-encodings of consecutive bytes), or all to one (runPoint: a
// scheme supplied for an abbreviated form, a host from the HostMapper).
// Offsets fit in 32 bits: a URI is shorter than 4 GiB.
type run struct {
	at, from uint32
	kind     uint8
}

const (
	runCopy uint8 = iota
	runPct
	runPoint
)

func (c *cleaner) parse(s string, opts []UserInputOption) (URI, error) {
	var cfg userInputConfig
	for _, o := range opts {
		o(&cfg)
	}
	c.s = s
	if len(s) >= math.MaxUint32 {
		return URI{}, errAt(ErrTooLong, s, math.MaxUint32-1, "input too long")
	}
	if !utf8.ValidString(s) {
		return URI{}, errAt(ErrInvalidText, s, invalidUTF8(s), "invalid UTF-8")
	}
	from, to, err := c.unwrap()
	if err != nil {
		return URI{}, err
	}
	c.dropLineBreaks(from, to)
	if len(c.b) == 0 {
		return URI{}, errAt(ErrInvalidText, s, to, "empty input")
	}
	for i, ch := range c.b {
		if ch < 0x20 && !isSpaceByte(ch) || ch == 0x7f {
			return URI{}, c.err(ErrInvalidText, i, "control character in the input")
		}
	}
	c.work += len(c.b)
	c.out = make([]byte, 0, len(c.b)+len(c.b)/2+16)

	// The scheme, or one of the abbreviated forms of Appendix F.
	b := c.b
	rest := 0 // index in b of what follows "scheme:"
	n, scanned := schemeLen(b)
	c.work += scanned
	if n == 3 && equalFold(string(b[:3]), "url") {
		// unwrap removes "URL:" labels; one left here was broken across
		// lines ("UR\nL:"), and taking it for a scheme would give a
		// result that cleaning again turns into another URI.
		return URI{}, c.err(ErrAmbiguous, 0, `"URL:" broken across lines reads both as the label of a wrapped URI (RFC 3986 Appendix C) and as a scheme; join it, or drop it`)
	}
	switch {
	case n > 0 && hasPrefixAt(b, n+1, "//"):
		c.copy(0, n+1)
		rest = n + 1
	case n > 0 && portLike(b[n+1:]):
		name := string(b[:n])
		digits := leadingDigits(b[n+1:])
		sch := abbreviated(b[:n])
		if sch == "" {
			return URI{}, c.err(ErrAmbiguous, 0, `"`+name+":"+digits+`" reads both as the scheme "`+name+
				`" and as a host and port; write the scheme (e.g. http://`+name+":"+digits+`) if a host and port are meant`)
		}
		c.write(0, sch)
	case n > 0:
		c.copy(0, n+1)
		rest = n + 1
	case hasPrefixAt(b, 0, "//"):
		return URI{}, c.err(ErrAmbiguous, 0, "a network-path reference (//host) has no scheme; write the scheme that is meant")
	default:
		host := b[:c.authorityEnd(0)]
		sch := abbreviated(host)
		if sch == "" {
			return URI{}, c.err(ErrAmbiguous, 0, "no scheme, and not an abbreviated form (www.… or ftp.…, RFC 3986 draft Appendix F); write the scheme (http://, https://, …)")
		}
		c.write(0, sch)
	}

	// The authority.
	i := rest
	if hasPrefixAt(b, i, "//") {
		c.copy(i, i+2)
		i += 2
		end := c.authorityEnd(i)
		if err := c.authority(i, end, cfg.mapHost); err != nil {
			return URI{}, err
		}
		i = end
	} else if rest == 0 {
		// abbreviated form: the text starts with the host
		end := c.authorityEnd(0)
		if err := c.authority(0, end, cfg.mapHost); err != nil {
			return URI{}, err
		}
		i = end
	}

	// Path, query and fragment.
	if err := c.tail(i); err != nil {
		return URI{}, err
	}
	u, err := Parse(string(c.out))
	if err != nil {
		e := err.(*Error)
		return URI{}, c.err(e.Kind, c.outToB(e.Offset), e.Reason+" (in the cleaned text)")
	}
	return u, nil
}

// unwrap finds the text inside the surrounding whitespace, delimiters and
// "URL:" prefixes of s, as the bounds s[from:to]. Each round removes at
// least one byte and looks at a fixed number of them, so it is linear
// however deep the nesting.
func (c *cleaner) unwrap() (from, to int, err error) {
	s := c.s
	from, to = 0, len(s)
	for {
		for from < to {
			r, n := utf8.DecodeRuneInString(s[from:to])
			if !unicode.IsSpace(r) {
				break
			}
			from += n
			c.work += n
		}
		for to > from {
			r, n := utf8.DecodeLastRuneInString(s[from:to])
			if !unicode.IsSpace(r) {
				break
			}
			to -= n
			c.work += n
		}
		t := s[from:to]
		c.work++
		changed := false
		for _, p := range delimiterPairs {
			if len(t) >= len(p[0])+len(p[1]) && strings.HasPrefix(t, p[0]) && strings.HasSuffix(t, p[1]) {
				from, to = from+len(p[0]), to-len(p[1])
				c.work += len(p[0]) + len(p[1])
				changed = true
				break
			}
		}
		if changed {
			continue
		}
		if len(t) >= 4 && equalFold(t[:4], "url:") {
			from += 4
			c.work += 4
			continue
		}
		for _, p := range delimiterPairs {
			if strings.HasPrefix(t, p[0]) {
				return 0, 0, errAt(ErrInvalidText, s, from, "opening "+quote(p[0])+" without its closing "+quote(p[1]))
			}
			// a final apostrophe is a URI character
			if p[1] != "'" && strings.HasSuffix(t, p[1]) {
				return 0, 0, errAt(ErrInvalidText, s, to-len(p[1]), "closing "+quote(p[1])+" without its opening "+quote(p[0]))
			}
		}
		return from, to, nil
	}
}

var delimiterPairs = [][2]string{
	{"<", ">"}, {`"`, `"`}, {"'", "'"},
	{"\u201c", "\u201d"}, {"\u2018", "\u2019"}, {"\u00ab", "\u00bb"}, {"\u2039", "\u203a"},
	{"\u201e", "\u201c"}, {"\u00bb", "\u00ab"},
}

// dropLineBreaks copies s[from:to] into b without the runs of whitespace
// that hold a line break (a URI broken across lines), recording where
// each kept stretch came from.
func (c *cleaner) dropLineBreaks(from, to int) {
	s := c.s
	c.b = make([]byte, 0, to-from)
	// Count the runs first, so that the table is allocated once.
	runs := 1
	for i := from; i < to; i++ {
		if (s[i] == '\n' || s[i] == '\r') && (i == from || s[i-1] != '\n' && s[i-1] != '\r') {
			runs++
		}
	}
	c.work += to - from
	c.bRuns = make([]run, 1, runs)
	c.bRuns[0] = run{at: 0, from: uint32(from)}
	for i := from; i < to; {
		if !isSpaceByte(s[i]) {
			j := i + 1
			for j < to && !isSpaceByte(s[j]) {
				j++
			}
			c.b = append(c.b, s[i:j]...)
			c.work += j - i
			i = j
			continue
		}
		j, br := i, false
		for j < to && isSpaceByte(s[j]) {
			br = br || s[j] == '\n' || s[j] == '\r'
			j++
		}
		c.work += j - i
		if br {
			c.bRuns = append(c.bRuns, run{at: uint32(len(c.b)), from: uint32(j)})
		} else {
			c.b = append(c.b, s[i:j]...)
		}
		i = j
	}
}

// orig returns the offset in s of b[i] (of the end of the kept text for
// i == len(b)).
func (c *cleaner) orig(i int) int {
	if len(c.b) == 0 {
		return len(c.s)
	}
	if i >= len(c.b) {
		return c.orig(len(c.b)-1) + 1
	}
	r := c.bRuns[searchRuns(c.bRuns, i)]
	return int(r.from) + i - int(r.at)
}

// outToB returns the index in b that out[k] was written for.
func (c *cleaner) outToB(k int) int {
	if k >= len(c.out) {
		return len(c.b)
	}
	if k >= c.tailOut {
		// Replay tail's widths: one byte out for a byte copied, three
		// for one escaped.
		j, o, inFragment := c.tailB, c.tailOut, false
		for ; j < len(c.b); j++ {
			w := 1
			if tailEscapes(c.b, j, &inFragment) {
				w = 3
			}
			if o+w > k {
				break
			}
			o += w
		}
		return j
	}
	if len(c.outRuns) == 0 {
		return 0
	}
	r := c.outRuns[searchRuns(c.outRuns, k)]
	switch r.kind {
	case runPoint:
		return int(r.from)
	case runPct:
		return int(r.from) + (k-int(r.at))/3
	}
	return int(r.from) + k - int(r.at)
}

// searchRuns returns the index of the last run starting at or before i.
func searchRuns(runs []run, i int) int {
	lo, hi := 0, len(runs)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(runs[m].at) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

func (c *cleaner) err(kind error, i int, reason string) error {
	return errAt(kind, c.s, c.orig(i), reason)
}

// copy appends b[i:j] to out as it is.
func (c *cleaner) copy(i, j int) {
	if i == j {
		return
	}
	if n := len(c.outRuns); n == 0 || c.outRuns[n-1].kind != runCopy ||
		int(c.outRuns[n-1].from)+len(c.out)-int(c.outRuns[n-1].at) != i {
		c.outRuns = append(c.outRuns, run{at: uint32(len(c.out)), from: uint32(i), kind: runCopy})
	}
	c.out = append(c.out, c.b[i:j]...)
	c.work += j - i
}

// write appends text made for b[i] (a scheme, a mapped host).
func (c *cleaner) write(i int, text string) {
	c.outRuns = append(c.outRuns, run{at: uint32(len(c.out)), from: uint32(i), kind: runPoint})
	c.out = append(c.out, text...)
}

// escape appends the percent-encoding of b[i].
func (c *cleaner) escape(i int) {
	if n := len(c.outRuns); n == 0 || c.outRuns[n-1].kind != runPct ||
		int(c.outRuns[n-1].from)+(len(c.out)-int(c.outRuns[n-1].at))/3 != i {
		c.outRuns = append(c.outRuns, run{at: uint32(len(c.out)), from: uint32(i), kind: runPct})
	}
	c.out = ascii.AppendPct(c.out, c.b[i])
	c.work++
}

// authorityEnd returns the index of the first '/', '?' or '#' at or after
// i, or len(b).
func (c *cleaner) authorityEnd(i int) int {
	if k := bytes.IndexAny(c.b[i:], "/?#"); k >= 0 {
		c.work += k
		return i + k
	}
	c.work += len(c.b) - i
	return len(c.b)
}

// authority appends the cleaned authority b[a:e].
func (c *cleaner) authority(a, e int, mapHost HostMapper) error {
	b := c.b[:e]
	h := a
	if k := bytes.IndexByte(b[a:], '@'); k >= 0 {
		k += a
		if k2 := bytes.IndexByte(b[k+1:], '@'); k2 >= 0 {
			return c.err(ErrAmbiguous, k+1+k2, "two '@' in the authority: which one ends the userinfo?")
		}
		for j := a; j < k; j++ {
			ch := b[j]
			switch {
			case isSpaceByte(ch):
				return c.err(ErrInvalidUserinfo, j, "whitespace in the userinfo")
			case ch >= 0x80:
				c.escape(j)
			case ch == '%':
				if ascii.PctEnd(b, j) >= 0 {
					return c.err(ErrAmbiguous, j, "'%' not followed by two hex digits (write %25 for a literal '%')")
				}
				c.copy(j, j+1)
			default:
				c.copy(j, j+1)
			}
		}
		c.copy(k, k+1)
		h = k + 1
	}
	// At most five passes over the authority: the two '@' searches, the
	// ':' or ']' search, the host check and the port check.
	c.work += 5 * (e - a)
	hostEnd := e
	if h < e && b[h] == '[' {
		if k := bytes.IndexByte(b[h:], ']'); k >= 0 {
			hostEnd = h + k + 1
		}
	} else if k := bytes.LastIndexByte(b[h:e], ':'); k >= 0 {
		hostEnd = h + k
	}
	host := b[h:hostEnd]
	for j, ch := range host {
		if isSpaceByte(ch) {
			return c.err(ErrInvalidHost, h+j, "whitespace in the host")
		}
		if ch == '\\' {
			return c.err(ErrAmbiguous, h+j, "backslash in the host (a '/' was probably meant; not guessed)")
		}
	}
	if !isASCII(host) {
		if mapHost == nil {
			return c.err(ErrInvalidHost, h, "internationalized host name "+quote(string(host))+" needs IDNA (use a HostMapper such as extract.IDNAHost)")
		}
		m, err := mapHost(string(host))
		if err != nil {
			return c.err(ErrInvalidHost, h, "host "+quote(string(host))+": "+err.Error())
		}
		c.write(h, m)
	} else {
		c.copy(h, hostEnd)
	}
	for j := hostEnd; j < e; j++ {
		if isSpaceByte(b[j]) {
			return c.err(ErrInvalidPort, j, "whitespace in the port")
		}
	}
	c.copy(hostEnd, e)
	return nil
}

// tail appends the cleaned path, query and fragment b[i:]. It keeps no
// map from out back to b: outToB replays it with tailEscapes.
func (c *cleaner) tail(i int) error {
	b := c.b
	c.tailB, c.tailOut = i, len(c.out)
	inFragment := false
	for j := i; j < len(b); j++ {
		ch := b[j]
		switch {
		case ch == '%':
			if ascii.PctEnd(b, j) >= 0 {
				return c.err(ErrAmbiguous, j, "'%' not followed by two hex digits: a literal '%' (write %25) or a broken escape? not guessed")
			}
		case ch == '\\':
			return c.err(ErrAmbiguous, j, "backslash (a '/' was probably meant; not guessed)")
		}
		if tailEscapes(b, j, &inFragment) {
			c.out = ascii.AppendPct(c.out, ch)
		} else {
			c.out = append(c.out, ch)
		}
	}
	c.work += len(b) - i
	return nil
}

// tailEscapes reports whether tail percent-encodes b[j]: a space, a tab,
// non-ASCII, " < > [ ] ^ ` { | } and a second '#' — whatever no path,
// query or fragment holds. The first '#' starts the fragment.
func tailEscapes(b []byte, j int, inFragment *bool) bool {
	switch ch := b[j]; {
	case ch == '#' && !*inFragment:
		*inFragment = true
		return false
	case ch == '%', is(ch, cQuery):
		return false
	}
	return true
}

// schemeLen returns the length of the scheme when b starts with
// scheme ":", else 0; and how many bytes it read to tell.
func schemeLen(b []byte) (n, scanned int) {
	if len(b) == 0 || !is(b[0], cAlpha) {
		return 0, 1
	}
	for i := 1; i < len(b); i++ {
		if b[i] == ':' {
			return i, i + 1
		}
		if !is(b[i], cScheme) {
			return 0, i + 1
		}
	}
	return 0, len(b)
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
func abbreviated(host []byte) string {
	switch {
	case len(host) > 4 && ascii.EqualFold(host[:4], "www."):
		return "http://"
	case len(host) > 4 && ascii.EqualFold(host[:4], "ftp."):
		return "ftp://"
	}
	return ""
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return i <= len(b) && len(b)-i >= len(p) && string(b[i:i+len(p)]) == p
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
