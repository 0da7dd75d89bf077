package extract

import (
	"bytes"
	"errors"
	"io"
	"math"
	"unicode"
	"unicode/utf8"
	"unsafe"

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

var cls = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= kAlpha | kScheme | kURI | kTrigger
		t[c-'a'+'A'] |= kAlpha | kScheme | kURI | kTrigger
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= kDigit | kScheme | kURI
	}
	for _, c := range "+-." {
		t[c] |= kScheme
	}
	// unreserved, gen-delims but '[' ']', sub-delims, and '%' (§2)
	for _, c := range "-._~:/?#@!$&'()*+,;=%" {
		t[c] |= kURI
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
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] |= kHex
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

	// The first '>' at or after gtFrom is at gtAt, or, when gtAt < 0, there
	// is none in [gtFrom, gtTo). It spares a text full of '<' quadratic work.
	gtFrom, gtAt, gtTo int64

	// The first byte that ends a bare URI at or after stopFrom is at
	// stopAt (stopFound), or there is none before stopAt.
	stopFrom, stopAt int64
	stopFound        bool
	// badPct is the offset of a '%' known not to start a percent-encoding.
	badPct int64

	m       Match
	scratch []byte
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
	return &Scanner{r: r, maxLen: n, look: n + slack, line: 1, gtFrom: math.MaxInt64, gtAt: -1, stopFrom: math.MaxInt64, badPct: -1}
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
	j := i + 1
	for j < wend && cls[b[j]]&kScheme != 0 {
		j++
	}
	if j >= wend || b[j] != ':' {
		// No candidate starts anywhere in this run of scheme characters:
		// each would read a scheme ending at the same non-colon byte.
		return j, false
	}
	if j-i == 3 && foldEq(b[i:j], "url") {
		// "URL:" is only ever a prefix (any case, with or without a space).
		p := j + 1
		for p < wend && p-j <= slack/2 && (b[p] == ' ' || b[p] == '\t') {
			p++
		}
		q := p
		for q < wend && cls[b[q]]&kScheme != 0 {
			q++
		}
		if p < q && cls[b[p]]&kAlpha != 0 && q < wend && b[q] == ':' && !(q-p == 3 && foldEq(b[p:q], "url")) {
			if e, ok := s.bare(p, q, URLPrefix); ok {
				return e, true
			}
		}
		return i + 1, false
	}
	if e, ok := s.bare(i, j, Bare); ok {
		return e, true
	}
	return i + 1, false
}

// bare tries the bare URI whose scheme is b[start:colon].
func (s *Scanner) bare(start, colon int, wrapper string) (int, bool) {
	b := s.buf
	wend := min(len(b), start+s.maxLen)
	slashes := colon+2 < len(b) && b[colon+1] == '/' && b[colon+2] == '/'
	if !slashes && (colon+1 >= len(b) || !registered(b[start:colon])) {
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
	if s.badPct >= s.base+int64(start) && s.badPct < s.base+int64(k) {
		return 0, false // holds a '%' known not to start a percent-encoding
	}
	e := trimEnd(b, start, colon+1, k)
	if ok, bad := check(b[start:e]); !ok {
		// A '%' without two hex digits spoils every candidate holding it.
		for p := max(start, start+bad-2); p >= 0 && p < start+bad && p < e; p++ {
			if b[p] == '%' {
				s.badPct = s.base + int64(p)
			}
		}
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
	if s.stopFrom <= af && af <= s.stopAt {
		if s.stopFound {
			if s.stopAt < at {
				return int(s.stopAt - s.base)
			}
			return to
		}
		if at <= s.stopAt {
			return to
		}
		from = int(s.stopAt - s.base) // none before stopAt
	} else {
		s.stopFrom = af
	}
	j := from
	b := s.buf
	for j < to && cls[b[j]]&kURI != 0 {
		j++
	}
	s.stopAt, s.stopFound = s.base+int64(j), j < to
	return j
}

// angle tries the <...> wrapper opening at b[i].
func (s *Scanner) angle(i int) (int, bool) {
	b := s.buf
	wend := min(len(b), i+1+s.maxLen+1)
	gt := s.findGT(i+1, wend)
	if gt < 0 {
		return i + 1, false
	}
	content := b[i+1 : gt]
	first, last, spaces := -1, -1, false
	for j, c := range content {
		if cls[c]&kSpace != 0 {
			spaces = true
			continue
		}
		if first < 0 {
			first = j
		}
		last = j
	}
	if first < 0 {
		return i + 1, false
	}
	text := content
	if spaces {
		s.scratch = s.scratch[:0]
		for _, c := range content {
			if cls[c]&kSpace == 0 {
				s.scratch = append(s.scratch, c)
			}
		}
		text = s.scratch
	}
	wrapper, skip := Angle, 0
	if len(text) >= 4 && foldEq(text[:4], "url:") {
		text, skip, wrapper = text[4:], 4, AngleURL
	}
	if !valid(text) {
		return i + 1, false
	}
	from := first
	for n := 0; n < skip; from++ {
		if cls[content[from]]&kSpace == 0 {
			n++
		}
	}
	for cls[content[from]]&kSpace != 0 {
		from++
	}
	s.setMatch(string(text), i+1+from, i+1+last+1, wrapper)
	return gt + 1, true
}

// findGT returns the index of the first '>' in b[from:to], or -1.
func (s *Scanner) findGT(from, to int) int {
	af, at := s.base+int64(from), s.base+int64(to)
	if s.gtAt >= af && s.gtFrom <= af {
		if s.gtAt < at {
			return int(s.gtAt - s.base)
		}
		return -1
	}
	start := from
	if s.gtAt < 0 && s.gtFrom <= af && s.gtTo > af {
		if at <= s.gtTo {
			return -1
		}
		start = int(s.gtTo - s.base) // none in [af, gtTo) already
	} else {
		s.gtFrom = af
	}
	if j := bytes.IndexByte(s.buf[start:to], '>'); j >= 0 {
		s.gtFrom, s.gtAt = af, s.base+int64(start+j)
		return start + j
	}
	s.gtAt, s.gtTo = -1, at
	return -1
}

// quote tries the "..." or '...' wrapper opening at b[i].
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
		for j < wend && j-i <= slack && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
	}
	cs := j
	for ; j < wend; j++ {
		c := b[j]
		if c == q {
			if j+1 < len(b) {
				if r, _ := utf8.DecodeRune(b[j+1 : min(len(b), j+1+utf8.UTFMax)]); letterOrDigit(r) {
					continue // not a closing quote
				}
			}
			break
		}
		if cls[c]&kSpace != 0 {
			return i + 1, false
		}
	}
	if j >= wend || !valid(b[cs:j]) {
		return i + 1, false
	}
	s.setMatch(string(b[cs:j]), cs, j, wrapper)
	return j + 1, true
}

func letterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return cls[r]&(kAlpha|kDigit) != 0
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// valid reports whether b is a URI that may be taken: valid RFC 3986 with
// a scheme, more than "scheme:" or "scheme://", and not of the scheme URL.
func valid(b []byte) bool {
	ok, _ := check(b)
	return ok
}

// check is valid that also returns, for a syntax error, its offset in b
// (-1 otherwise).
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
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	_, ok := registeredSchemes[string(low[:len(name)])]
	return ok
}

// foldEq compares b with the lower-case ASCII string s, ignoring case.
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
