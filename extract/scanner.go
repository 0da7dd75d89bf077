package extract

import (
	"bytes"
	"errors"
	"io"
	"math"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/iri"
	"github.com/urikit/urikit/uri"
)

// Byte classes, one table lookup per byte on the hot path.
const (
	kAlpha   uint8 = 1 << iota // ASCII letter
	kDigit                     // ASCII digit
	kScheme                    // ALPHA / DIGIT / "+" / "-" / "." (RFC 3986 §3.1)
	kURI                       // may appear in a bare URI ('[' and ']' are handled apart)
	kSpace                     // whitespace: SP, HT, LF, VT, FF, CR
	kTrigger                   // may start a candidate: a letter, '<', '"', '\''
	kTrail                     // sentence punctuation dropped from the end of a bare URI
	kHex                       // HEXDIG
)

// cls is built from the RFC 3986 classes of internal/ascii (shared with
// packages uri and urn) plus the bits only the scanner needs.
var cls = func() (t [256]uint8) {
	for c := range t {
		k := ascii.Table[c]
		if k&ascii.Alpha != 0 {
			t[c] |= kAlpha | kTrigger
		}
		if k&ascii.Digit != 0 {
			t[c] |= kDigit
		}
		if k&ascii.Scheme != 0 {
			t[c] |= kScheme
		}
		if k&ascii.Hex != 0 {
			t[c] |= kHex
		}
		// unreserved, gen-delims but '[' ']', sub-delims, and '%' (§2)
		if k&(ascii.Unreserved|ascii.GenDelims|ascii.SubDelims) != 0 && c != '[' && c != ']' || c == '%' {
			t[c] |= kURI
		}
	}
	for _, c := range " \t\n\v\f\r" {
		t[c] |= kSpace
	}
	for _, c := range "<\"'" {
		t[c] |= kTrigger
	}
	for _, c := range ".,;:!?*" {
		t[c] |= kTrail
	}
	return t
}()

const (
	slack     = 16       // lookahead beyond MaxLen: wrapper characters, "URL:" and its spaces
	readChunk = 32 << 10 // bytes read at a time, at most
	history   = 4        // bytes kept before the position under examination (one UTF-8 rune)
)

// Scanner reads text and yields the URIs in it, one per call to Scan, in
// the manner of bufio.Scanner. Its memory is bounded by Options.MaxLen
// whatever the size of the input.
type Scanner struct {
	r      io.Reader
	buf    []byte // buf[0] is the input's byte at offset base
	base   int64
	pos    int // next index of buf to examine
	eof    bool
	err    error
	maxLen int
	look   int // bytes needed past a position before it is examined
	empty  int // consecutive empty reads

	line    int   // line number of lineOff
	lineOff int64 // newlines before this offset are counted in line

	// Cached searches, so that the many candidates sharing a long run of
	// text do not each read it again (a text full of '<', quotes or
	// ".a.a.a" would otherwise cost quadratic work): the first byte that
	// ends a bare URI, the first byte that ends the content of a '...' or
	// "..." wrapper, the first byte after a run of scheme characters.
	stop, squote, dquote, run seek
	// badPct is the offset of a '%' known not to start a percent-encoding.
	badPct int64
	// failColon is the offset of the ':' of a bare candidate that was no
	// URI for a reason lying after that ':' (every candidate ending its
	// scheme there fails the same way).
	failColon int64

	m       Match
	scratch []byte
	iri     bool // Options.IRI

	// examined counts the bytes read by the searches that may run far
	// ahead (the end of a bare URI or of a quoted or bracketed wrapper, a
	// run of scheme characters) and the bytes given to uri.Parse. Tests
	// use it to check that the work stays linear in the input's size
	// whatever the text (TestHostileLinear), without timing anything.
	examined int64
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader, opts Options) *Scanner {
	n := opts.MaxLen
	if n == 0 {
		n = DefaultMaxLen
	}
	n = max(n, 64)
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	none := seek{from: math.MaxInt64}
	return &Scanner{r: r, maxLen: n, look: n + slack, line: 1, iri: opts.IRI,
		stop: none, squote: none, dquote: none, run: none, badPct: -1, failColon: -1}
}

// Scan advances to the next URI, which Match then returns. It returns false
// at the end of the input or on a read error, which Err then returns.
func (s *Scanner) Scan() bool {
	for {
		if !s.eof && len(s.buf)-s.pos <= s.look {
			s.fill()
		}
		limit := len(s.buf)
		if !s.eof {
			limit -= s.look
		}
		b := s.buf
		i := s.pos
		for i < limit {
			c := b[i]
			k := cls[c]
			if k&kTrigger == 0 {
				i++
				continue
			}
			var next int
			var ok bool
			switch {
			case k&kAlpha != 0:
				// i > 0 whenever the text does not start here: fill keeps
				// history bytes before pos.
				if i > 0 && cls[b[i-1]]&(kAlpha|kDigit) != 0 {
					i++
					continue
				}
				next, ok = s.word(i)
			case c == '<':
				next, ok = s.angle(i)
			default:
				next, ok = s.quote(i)
			}
			i = next
			if ok {
				s.pos = i
				return true
			}
		}
		s.pos = i
		if s.eof && s.pos >= len(s.buf) {
			return false
		}
	}
}

// Match returns the URI found by the last call to Scan.
func (s *Scanner) Match() Match { return s.m }

// Err returns the first read error, or nil when the input was read to its end.
func (s *Scanner) Err() error { return s.err }

// fill moves the unexamined bytes (and a little history) to the front of
// the buffer and reads until more than look bytes are buffered past pos, or
// the input ends.
func (s *Scanner) fill() {
	if keep := s.pos - history; keep > 0 {
		s.countLines(s.base + int64(keep))
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.base += int64(keep)
		s.pos -= keep
	}
	for !s.eof && len(s.buf)-s.pos <= s.look {
		if len(s.buf) == cap(s.buf) {
			nc := min(max(2*cap(s.buf), 4096), s.look+history+readChunk+1)
			if nc <= cap(s.buf) {
				nc = cap(s.buf) + readChunk // cannot happen: pos <= history here
			}
			nb := make([]byte, len(s.buf), nc)
			copy(nb, s.buf)
			s.buf = nb
		}
		room := s.buf[len(s.buf):min(cap(s.buf), len(s.buf)+readChunk)]
		n, err := s.r.Read(room)
		if n < 0 || n > len(room) {
			n, err = 0, errors.New("extract: reader returned an invalid count")
		}
		s.buf = s.buf[:len(s.buf)+n]
		switch {
		case err == io.EOF:
			s.eof = true
		case err != nil:
			s.err, s.eof = err, true
		case n == 0:
			if s.empty++; s.empty > 100 {
				s.err, s.eof = io.ErrNoProgress, true
			}
		default:
			s.empty = 0
		}
	}
}

// countLines brings line up to the absolute offset off.
func (s *Scanner) countLines(off int64) {
	if off <= s.lineOff {
		return
	}
	s.line += bytes.Count(s.buf[s.lineOff-s.base:off-s.base], []byte{'\n'})
	s.lineOff = off
}

func (s *Scanner) setMatch(text string, from, to int, wrapper string) {
	off := s.base + int64(from)
	s.countLines(off)
	s.m = Match{URI: text, Offset: off, End: s.base + int64(to), Line: s.line, Wrapper: wrapper}
}

// word looks at the ASCII letter at b[i], which begins the text or follows
// a byte other than an ASCII letter or digit. It returns where scanning
// goes on and whether a URI was taken.
func (s *Scanner) word(i int) (int, bool) {
	b := s.buf
	wend := min(len(b), i+s.look)
	j := s.schemeEnd(i+1, wend)
	if j >= wend || b[j] != ':' {
		// No candidate starts anywhere in this run of scheme characters:
		// each would read a scheme ending at the same non-colon byte.
		return j, false
	}
	if j-i == 3 && foldEq(b[i:j], "url") {
		// PROTOCOL.md: "The URL: prefix (any case, with or without a
		// space) also works without brackets; it is only ever a prefix —
		// no URI is taken to start with a scheme named URL." With or
		// without a space: at most one ' ' after the colon.
		p := j + 1
		if p < wend && b[p] == ' ' {
			p++
		}
		q := s.schemeEnd(p, wend)
		if p < q && cls[b[p]]&kAlpha != 0 && q < wend && b[q] == ':' && !(q-p == 3 && foldEq(b[p:q], "url")) {
			if e, ok := s.bare(p, q, URLPrefix); ok || e > 0 {
				return e, ok
			}
		}
		return i + 1, false
	}
	if e, ok := s.bare(i, j, Bare); ok || e > 0 {
		return e, ok
	}
	return i + 1, false
}

// schemeEnd returns the index of the first byte in b[from:to] that is not
// a scheme character (ALPHA / DIGIT / "+" / "-" / "."), or to. In a run
// like ".a.a.a…a:" every 'a' starts a candidate reading up to the same ':';
// a cache keeps the reading linear.
func (s *Scanner) schemeEnd(from, to int) int {
	b := s.buf
	// a word of prose is short: read it without the cache
	j := from
	for lim := min(to, from+32); j < lim; j++ {
		if cls[b[j]]&kScheme == 0 {
			return j
		}
	}
	if j == to {
		return j
	}
	af, at := s.base+int64(from), s.base+int64(to)
	r, done := s.run.get(af, at)
	if done {
		return int(r - s.base)
	}
	j = int(r - s.base)
	for j < to && cls[b[j]]&kScheme != 0 {
		j++
	}
	s.examined += s.base + int64(j) - r
	s.run.put(s.base+int64(j), at)
	return j
}

// bare tries the bare URI whose scheme is b[start:colon]. It returns the
// end of the URI taken; or, when nothing is taken, 0 (scanning goes on at
// the next character) or the end of the candidate, where scanning goes on
// after a candidate that holds non-ASCII text without Options.IRI.
func (s *Scanner) bare(start, colon int, wrapper string) (int, bool) {
	b := s.buf
	wend := min(len(b), start+s.maxLen)
	slashes := colon+2 < len(b) && b[colon+1] == '/' && b[colon+2] == '/'
	if !slashes && (colon+1 >= len(b) || !registered(b[start:colon])) {
		return 0, false
	}
	if s.failColon == s.base+int64(colon) {
		// What follows this ':' already made a candidate fail; the end,
		// the trimming and the syntax after the ':' do not depend on
		// where the scheme starts.
		return 0, false
	}
	// Find where the URI ends: whitespace, a byte no URI holds, a '[' or
	// ']' not around an IP literal host, or the end of the text.
	k := s.nextStop(colon+1, wend)
	if slashes {
		// the authority ends at the first '/', '?' or '#' after "//"
		authEnd := colon + 3
		for authEnd < k && b[authEnd] != '/' && b[authEnd] != '?' && b[authEnd] != '#' {
			authEnd++
		}
		// an IP literal opens right after "//" or the userinfo's '@' and
		// closes at the next ']'
		if k == authEnd && k < wend && b[k] == '[' && (k == colon+3 || b[k-1] == '@') {
			if m := s.nextStop(k+1, wend); m < wend && b[m] == ']' {
				k = s.nextStop(m+1, wend)
			}
		}
	}
	if k == wend && !(s.eof && wend == len(b)) {
		return 0, false // longer than MaxLen
	}
	e := trimEnd(b, start, colon+1, k)
	if !s.iri && !asciiBytes(b[start:e]) {
		// PROTOCOL.md: "Without iri, a candidate that holds a non-ASCII
		// character is not taken at all, and scanning goes on after its
		// end: a link cut before its first non-ASCII character points
		// somewhere else".
		return k, false
	}
	if !s.checkSpan(start, e) {
		// The scheme (never "url" here) is valid; what failed lies after
		// the ':'.
		s.failColon = s.base + int64(colon)
		return 0, false
	}
	s.setMatch(string(b[start:e]), start, e, wrapper)
	return e, true
}

// trimEnd drops from the end of the bare URI b[start:k] the trailing
// sentence punctuation and the closing brackets whose opening partner is
// not inside the URI; it never goes below min. It reads the URI once.
func trimEnd(b []byte, start, min, k int) int {
	// The tail that may be dropped: punctuation and closing brackets.
	t := k
	for t > min && (cls[b[t-1]]&kTrail != 0 || b[t-1] == ')' || b[t-1] == ']') {
		t--
	}
	if t == k {
		return k
	}
	e := k
	closers := false
	for j := t; j < k; j++ {
		closers = closers || b[j] == ')' || b[j] == ']'
	}
	if !closers {
		return t
	}
	// Whether a closing bracket has its partner depends only on what
	// comes before it: count open brackets (never below zero) up to the
	// tail, then through it, noting which closers are matched.
	var paren, square int
	step := func(c byte) bool {
		switch c {
		case '(':
			paren++
		case '[':
			square++
		case ')':
			if paren > 0 {
				paren--
				return true
			}
		case ']':
			if square > 0 {
				square--
				return true
			}
		}
		return false
	}
	for _, c := range b[start:t] {
		step(c)
	}
	// matched closers in the tail, as a bit set of tail positions (the
	// tail is short in any real text; beyond 64 bytes a rescan is used)
	var matched uint64
	long := k-t > 64
	for j := t; j < k; j++ {
		if step(b[j]) && !long {
			matched |= 1 << uint(j-t)
		}
	}
	for e > min {
		c := b[e-1]
		if cls[c]&kTrail != 0 {
			e--
			continue
		}
		if c == ')' || c == ']' {
			var ok bool
			if long {
				ok = closerMatched(b[start:e-1], c)
			} else {
				ok = matched&(1<<uint(e-1-t)) != 0
			}
			if !ok {
				e--
				continue
			}
		}
		break
	}
	return e
}

// closerMatched reports whether the closing bracket c that follows b has
// its opening partner in b.
func closerMatched(b []byte, c byte) bool {
	open := byte('(')
	if c == ']' {
		open = '['
	}
	depth := 0
	for _, x := range b {
		switch x {
		case open:
			depth++
		case c:
			if depth > 0 {
				depth--
			}
		}
	}
	return depth > 0
}

// nextStop returns the index of the first byte in b[from:to] that cannot
// continue a bare URI ('[' and ']' included), or to. A cache makes the
// search linear over a long run that many candidates share.
func (s *Scanner) nextStop(from, to int) int {
	af, at := s.base+int64(from), s.base+int64(to)
	r, done := s.stop.get(af, at)
	if done {
		return int(r - s.base)
	}
	b := s.buf
	j := int(r - s.base)
	for j < to {
		if cls[b[j]]&kURI != 0 {
			j++
			continue
		}
		if b[j] < utf8.RuneSelf {
			break
		}
		n := continuesBare(b, j)
		if n == 0 {
			break
		}
		j += n // may pass to by a few bytes: the cache keeps rune boundaries
	}
	s.examined += s.base + int64(j) - r
	s.stop.put(s.base+int64(j), at)
	return min(j, to)
}

// continuesBare returns the length of the non-ASCII character at b[j] when
// it continues a bare candidate, else 0. PROTOCOL.md: "Non-ASCII text
// continues a bare candidate when it is a letter, mark, digit or symbol
// (Unicode general categories L, M, N, S, which RFC 3987 allows in an IRI)
// that NFKC leaves unchanged, or one of the joiners U+200C and U+200D —
// except where an ASCII letter or digit is directly followed by a
// character whose Unicode Script property (not Script_Extensions) is one
// written without spaces between words (Han, Hiragana, Katakana, Thai,
// Lao, Khmer, Myanmar)". Punctuation, separators, controls, other format
// characters and the compatibility characters of RFC 3987 §6.1 (full-width
// forms, ligatures, superscripts: what NFKC changes) end it. The rule
// depends on the byte before j, which lies in the text whatever the
// candidate (a bare URI's search starts after its ':').
func continuesBare(b []byte, j int) int {
	r, n := utf8.DecodeRune(b[j:])
	if r == utf8.RuneError && n <= 1 {
		return 0
	}
	if r == 0x200C || r == 0x200D {
		return n
	}
	if !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsNumber(r) && !unicode.IsSymbol(r) {
		return 0
	}
	if !norm.NFKC.IsNormal(b[j : j+n]) {
		return 0
	}
	if j > 0 && cls[b[j-1]]&(kAlpha|kDigit) != 0 && unicode.In(r, noSpaceScripts...) {
		return 0
	}
	return n
}

// noSpaceScripts are the scripts written without spaces between words
// that PROTOCOL.md names.
var noSpaceScripts = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// asciiBytes reports whether b holds only ASCII.
func asciiBytes(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// seek caches a forward search for the first byte of some kind: for any
// start in [from, at] the answer is at when found, and otherwise lies at
// or after at.
type seek struct {
	from, at int64
	found    bool
}

// get looks the search of [af, at) up. With done, res is the answer (at
// when there is none); otherwise the search must go on from res, and put
// must be called with its result.
func (c *seek) get(af, at int64) (res int64, done bool) {
	if c.from <= af && af <= c.at {
		if c.found {
			return min(c.at, at), true
		}
		if at <= c.at {
			return at, true
		}
		return c.at, false
	}
	c.from = af
	return af, false
}

// put records the answer j of a search that ended at to.
func (c *seek) put(j, to int64) { c.at, c.found = j, j < to }

// uriBytes holds the bytes that may appear in a URI, '[' and ']' included.
var uriBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = cls[c]&kURI != 0 || c == '[' || c == ']'
	}
	return t
}()

// uriByte reports whether c may appear in a URI ('[' and ']' included).
func uriByte(c byte) bool { return uriBytes[c] }

// spaceAt returns the length of the whitespace character (Unicode
// White_Space, which holds the ASCII ones and the line breaks) at b[j],
// or 0.
func spaceAt(b []byte, j int) int {
	c := b[j]
	if c < utf8.RuneSelf {
		if cls[c]&kSpace != 0 {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRune(b[j:])
	if r != utf8.RuneError && unicode.IsSpace(r) {
		return n
	}
	return 0
}

// angle tries the <...> wrapper opening at b[i].
//
// PROTOCOL.md: "inside <...> (also <URL:...>), any valid absolute URI
// counts; whitespace and line breaks inside <...> are dropped (after a
// hyphen at a line break the hyphen stays)". The wrapper closes at the
// first '>'. Whitespace is every White_Space character, U+00A0 and the
// line separators U+0085, U+2028 and U+2029 included. Any other byte that
// no URI holds — a second '<' among them — makes the content no URI, so the
// reading stops there: each '<' reads at most up to the next one.
func (s *Scanner) angle(i int) (int, bool) {
	b := s.buf
	wend := min(len(b), i+1+s.maxLen+1)
	first, last, spaces := -1, -1, false
	j := i + 1
	for ; j < wend; j++ {
		c := b[j]
		if uriByte(c) {
			if first < 0 {
				first = j - (i + 1)
			}
			last = j - (i + 1)
			continue
		}
		if c == '>' {
			break
		}
		n := spaceAt(b[:wend], j)
		if n == 0 && s.iri && c >= utf8.RuneSelf {
			// With Options.IRI, non-ASCII text is content; the IRI
			// grammar decides whether it may stand there.
			_, w := utf8.DecodeRune(b[j:wend])
			if first < 0 {
				first = j - (i + 1)
			}
			last = j + w - 1 - (i + 1)
			j += w - 1
			continue
		}
		if n == 0 {
			s.examined += int64(j - i)
			return i + 1, false // what the brackets hold is no URI
		}
		spaces = true
		j += n - 1
	}
	s.examined += int64(j - i)
	if j >= wend || first < 0 {
		return i + 1, false
	}
	content := b[i+1 : j]
	text := content
	if spaces {
		s.scratch = s.scratch[:0]
		for p := 0; p < len(content); p++ {
			if n := spaceAt(content, p); n > 0 {
				p += n - 1
				continue
			}
			s.scratch = append(s.scratch, content[p])
		}
		text = s.scratch
	}
	wrapper, skip := Angle, 0
	if len(text) >= 4 && foldEq(text[:4], "url:") {
		text, skip, wrapper = text[4:], 4, AngleURL
	}
	ok, bad := s.check(text)
	s.examined += parsed(ok, bad, len(text))
	if !ok {
		return i + 1, false
	}
	// the offset of the URI's first byte: skip the prefix's four bytes
	// and the whitespace around them
	from := first
	for n := 0; n < skip; {
		if w := spaceAt(content, from); w > 0 {
			from += w
			continue
		}
		n++
		from++
	}
	for {
		n := spaceAt(content, from)
		if n == 0 {
			break
		}
		from += n
	}
	s.setMatch(string(text), i+1+from, i+1+last+1, wrapper)
	return j + 1, true
}

// quote tries the "..." or '...' wrapper opening at b[i].
//
// PROTOCOL.md: "Inside quotes, "..." or '...' (also with a URL: prefix),
// any valid absolute URI without whitespace counts; an opening quote is
// one not preceded by a letter or digit, a closing quote one not followed
// by a letter or digit". The URL: prefix is "any case, with or without a
// space": one ' ' at most; any other whitespace makes the content no URI.
func (s *Scanner) quote(i int) (int, bool) {
	b := s.buf
	q := b[i]
	if i > 0 {
		if r, _ := utf8.DecodeLastRune(b[max(0, i-utf8.UTFMax):i]); letterOrDigit(r) {
			return i + 1, false // an apostrophe or a closing quote, not an opening one
		}
	}
	wend := min(len(b), i+1+s.maxLen+1)
	wrapper := DoubleQuote
	if q == '\'' {
		wrapper = SingleQuote
	}
	j := i + 1
	if j+4 <= wend && foldEq(b[j:j+4], "url:") {
		j += 4
		wrapper = DoubleQuoteURL
		if q == '\'' {
			wrapper = SingleQuoteURL
		}
		if j < wend && b[j] == ' ' {
			j++
		}
	}
	cs := j
	j = s.quoteEnd(q, cs, wend)
	if j >= wend || b[j] != q || !s.closes(j) {
		// no closing quote before a byte that no URI holds (whitespace,
		// or a '"' that does not close): the content is no URI
		return i + 1, false
	}
	if !s.checkSpan(cs, j) {
		return i + 1, false
	}
	s.setMatch(string(b[cs:j]), cs, j, wrapper)
	return j + 1, true
}

// closes reports whether the quote at b[j] may close a wrapper: no letter
// or digit follows it.
func (s *Scanner) closes(j int) bool {
	b := s.buf
	if j+1 >= len(b) {
		return true
	}
	r, _ := utf8.DecodeRune(b[j+1 : min(len(b), j+1+utf8.UTFMax)])
	return !letterOrDigit(r)
}

// quoteEnd returns the index of the first byte in b[from:to] that ends the
// content of a wrapper quoted with q: a closing q, or a byte that no URI
// holds (whitespace, '"', non-ASCII text, ...), or to. An apostrophe (a
// quote followed by a letter or digit) is part of the content. A cache
// keeps the reading linear when many quotes open before one far end (a
// text like "-'a-'a-'a").
func (s *Scanner) quoteEnd(q byte, from, to int) int {
	c := &s.dquote
	if q == '\'' {
		c = &s.squote
	}
	af, at := s.base+int64(from), s.base+int64(to)
	r, done := c.get(af, at)
	if done {
		return int(r - s.base)
	}
	b := s.buf
	j := int(r - s.base)
	for ; j < to; j++ {
		x := b[j]
		if x == q && s.closes(j) {
			break
		}
		if !uriByte(x) && !(s.iri && x >= utf8.RuneSelf && spaceAt(b[:to], j) == 0) {
			break
		}
	}
	s.examined += s.base + int64(j) - r
	c.put(s.base+int64(j), at)
	return j
}

// checkSpan reports whether b[from:to], a run of bytes of the text, is a
// URI that may be taken (valid). A '%' without two hex digits spoils every
// candidate holding it: it is remembered, and later candidates holding it
// are refused without parsing.
func (s *Scanner) checkSpan(from, to int) bool {
	if s.badPct >= s.base+int64(from) && s.badPct < s.base+int64(to) {
		return false
	}
	b := s.buf
	ok, bad := s.check(b[from:to])
	s.examined += parsed(ok, bad, to-from)
	if !ok {
		for p := max(from, from+bad-2); p >= 0 && p < from+bad && p < to; p++ {
			if b[p] == '%' {
				s.badPct = s.base + int64(p)
			}
		}
	}
	return ok
}

// letterOrDigit reports whether r is an ASCII letter or digit: PROTOCOL.md's
// quote rule ("an opening quote is one not preceded by an ASCII letter or
// digit, a closing quote one not followed by an ASCII letter or digit").
func letterOrDigit(r rune) bool {
	return r < utf8.RuneSelf && cls[r]&(kAlpha|kDigit) != 0
}

// parsed is how many bytes of an n-byte span check read: uri.Parse stops
// at the first byte that no valid input continues from.
func parsed(ok bool, bad, n int) int64 {
	if !ok && bad >= 0 {
		return int64(min(bad+1, n))
	}
	return int64(n)
}

// check is checkURI, or checkIRI with Options.IRI.
func (s *Scanner) check(b []byte) (ok bool, bad int) {
	if s.iri {
		return checkIRI(b)
	}
	return check(b)
}

// checkIRI is check for IRIs (RFC 3987 §2.2), with Options.IRI.
func checkIRI(b []byte) (ok bool, bad int) {
	if len(b) == 0 {
		return false, -1
	}
	x, err := iri.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
	if err != nil {
		if e, isErr := err.(*iri.Error); isErr {
			return false, e.Offset
		}
		return false, -1
	}
	sch := x.Scheme()
	rest := len(b) - len(sch) - 1
	if rest == 0 || rest == 2 && x.HasAuthority() {
		return false, -1 // a mention of a scheme, not an IRI
	}
	return !(len(sch) == 3 && foldEq(b[:3], "url")), -1
}

// check reports whether b is a URI that may be taken: valid RFC 3986 with
// a scheme, more than "scheme:" or "scheme://", and not of the scheme URL.
// For a syntax error it also returns its offset in b (-1 otherwise).
func check(b []byte) (ok bool, bad int) {
	if len(b) == 0 {
		return false, -1
	}
	u, err := uri.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
	if err != nil {
		if e, isErr := err.(*uri.Error); isErr {
			return false, e.Offset
		}
		return false, -1
	}
	sch := u.Scheme()
	rest := len(b) - len(sch) - 1
	if rest == 0 || rest == 2 && u.HasAuthority() {
		return false, -1 // a mention of a scheme, not a URI
	}
	return !(len(sch) == 3 && foldEq(b[:3], "url")), -1
}

// registered reports whether name is in IANA's URI scheme registry.
func registered(name []byte) bool {
	if len(name) > maxRegisteredScheme {
		return false
	}
	var low [maxRegisteredScheme]byte
	for i, c := range name {
		low[i] = ascii.ToLower(c)
	}
	_, ok := registeredSchemes[string(low[:len(name)])]
	return ok
}

// foldEq compares b with the lower-case ASCII string s, ignoring case.
func foldEq(b []byte, s string) bool { return ascii.EqualFold(b, s) }
