package uri

import "math/bits"

// The runs of a URI — scheme, host name, path, query, fragment — are
// checked sixteen bytes at a time, as two 64-bit words whose bytes are all
// tested at once against a few byte ranges with carry-free additions
// ("SIMD within a register"). The ranges cover the characters most
// components are made of; a byte outside them is not necessarily wrong, it
// is only looked up in the class table of chars.go as scan does, so that
// table stays the one statement of what each component allows (RFC 3986
// Appendix A). A 16-byte window ends most host names and many paths in one
// step, with one branch, which matters as much as the bytes per step: a
// loop over a short run costs most in its mispredicted exit.
//
// Words are loaded one byte at a time and combined with shifts, which the
// compiler turns into one 8-byte load on the usual 64-bit targets: no
// unsafe, no assembly. A window never reads past the end of the string:
// near the end it is the string's last sixteen bytes, with the bytes
// before the scan's start replaced by one that passes.

const (
	lsb = 0x0101010101010101 // 0x01 in every byte
	msb = 0x8080808080808080 // 0x80 in every byte

	// letters: for a byte b < 0x80, b + (0x80-'a') has its high bit set
	// exactly when b >= 'a', and b + (0x7F-'z') exactly when b > 'z'.
	lettersGE = lsb * (0x80 - 'a')
	lettersGT = lsb * (0x7F - 'z')
)

// byteRange holds the two addends that test every byte of a word against
// the range [lo, hi] at once: for a byte b < 0x80, b + (0x80-lo) sets the
// byte's high bit exactly when b >= lo, and b + (0x7F-hi) exactly when
// b > hi; neither sum exceeds 0xFF, so no carry leaves the byte.
type byteRange struct{ ge, gt uint64 }

func rangeOf(lo, hi byte) byteRange {
	return byteRange{ge: lsb * uint64(0x80-lo), gt: lsb * uint64(0x7F-hi)}
}

// in returns the high bit of each byte of x that lies in r (the low seven
// bits of each byte are noise).
func (r byteRange) in(x uint64) uint64 { return (x + r.ge) &^ (x + r.gt) }

// wordClass is a part of a character class that a word can be tested
// against: the letters (ALPHA) and two ranges of bytes.
type wordClass struct {
	mask   uint16 // the class of chars.go that all of it belongs to
	pct    bool   // whether the class takes pct-encoded (§2.1) as well
	r1, r2 byteRange
}

var (
	// scheme (§3.1): the letters, the digits and "-."; '+' goes to the table.
	wordScheme = wordClass{cScheme, false, rangeOf('0', '9'), rangeOf('-', '.')}
	// reg-name (§3.2.2): the letters, the digits and "-."; the '/' or ':'
	// that ends a host is outside.
	wordRegName = wordClass{cRegName, true, rangeOf('0', '9'), rangeOf('-', '.')}
	// segment-nz-nc (§3.3), the first segment of a relative path: as reg-name.
	wordSegmentNC = wordClass{cSegmentNC, true, rangeOf('0', '9'), rangeOf('-', '.')}
	// path (§3.3): the letters, "&'()*+,-./0123456789:;" and "_".
	wordPath = wordClass{cPath, true, rangeOf('&', ';'), rangeOf('_', '_')}
	// query and fragment (§3.4, §3.5): as path, with "=" (which separates
	// names and values) in place of "_".
	wordQuery = wordClass{cQuery, true, rangeOf('&', ';'), rangeOf('=', '=')}
)

// wordBad returns, for the eight bytes of x (the first in the low byte),
// the high bit of each byte outside the letters and the ranges r1, r2. Any
// byte >= 0x80 is outside; the sums may carry out of such a byte into the
// next one, so only the lowest set bit of the result is exact, which is
// all a scan uses.
func wordBad(x uint64, r1, r2 byteRange) uint64 {
	// Setting bit 0x20 maps 'A'-'Z' onto 'a'-'z' and no other byte into it.
	y := x | lsb*0x20
	good := (y+lettersGE)&^(y+lettersGT) | r1.in(x) | r2.in(x)
	return (^good | x) & msb
}

// load64 returns the first eight bytes of s as a little-endian word.
func load64(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// pass replaces the bytes of x selected by m with 'a', a letter that
// every wordClass takes and that carries nothing into the next byte.
func pass(x, m uint64) uint64 { return x&^m | lsb*'a'&m }

// schemeRun returns scanWords(s, 1, &wordScheme), with one word for the
// common case of a scheme of up to seven characters followed by its ':'
// (s[0] is a letter).
func schemeRun(s string) int {
	if len(s) >= 8 {
		if bad := wordBad(load64(s), wordScheme.r1, wordScheme.r2); bad != 0 {
			if j := bits.TrailingZeros64(bad) >> 3; s[j] == ':' {
				return j
			}
		}
	}
	return scanWords(s, 1, &wordScheme)
}

// first2 returns the index of the lowest set bit of the 128-bit value
// b2:b1 (which is not 0), with no branch on which word holds it.
func first2(b1, b2 uint64) int {
	k := bits.TrailingZeros64(b1)
	if b1 == 0 {
		k = 64 + bits.TrailingZeros64(b2)
	}
	return k
}

// scanWords returns what scan(s, i, w.mask) returns (without pct-encoded
// when w.pct is false): the index of the first byte at or after i that is
// neither in the class nor the start of a valid pct-encoded.
func scanWords(s string, i int, w *wordClass) int {
	mask, pct, r1, r2 := w.mask, w.pct, w.r1, w.r2 // kept in registers
	for i < len(s) {
		// The first byte outside the words' part of the class is at
		// base+k/8.
		var base, k int
		switch n := len(s) - i; {
		case n >= 32:
			t := s[i : i+16]
			b1, b2 := wordBad(load64(t), r1, r2), wordBad(load64(t[8:]), r1, r2)
			if b1|b2 == 0 {
				i += 16
				continue
			}
			base, k = i, first2(b1, b2)
		case n >= 16:
			// The rest in two windows that meet or overlap: s[i:i+16] and
			// the last sixteen bytes.
			t, e := s[i:i+16], s[len(s)-16:]
			b1, b2 := wordBad(load64(t), r1, r2), wordBad(load64(t[8:]), r1, r2)
			b3, b4 := wordBad(load64(e), r1, r2), wordBad(load64(e[8:]), r1, r2)
			if b1|b2|b3|b4 == 0 {
				return len(s)
			}
			base, k = i, first2(b1, b2)
			if b1|b2 == 0 {
				base, k = len(s)-16, first2(b3, b4)
			}
		case len(s) >= 16:
			// The last sixteen bytes; the bits of the bytes before i do
			// not count.
			base = len(s) - 16
			t := s[base:]
			b := uint(i-base) * 8               // 8 to 120
			m1 := uint64(1)<<b - 1              // all ones from b = 64 on
			m2 := uint64(1)<<(b-min(b, 64)) - 1 // 0 up to b = 64
			b1, b2 := wordBad(pass(load64(t), m1), r1, r2), wordBad(pass(load64(t[8:]), m2), r1, r2)
			if b1|b2 == 0 {
				return len(s)
			}
			k = first2(b1, b2)
		case len(s) >= 8:
			// A string shorter than a window: a word, then its last eight bytes.
			if n >= 8 {
				b1 := wordBad(load64(s[i:]), r1, r2)
				if b1 == 0 {
					i += 8
					continue
				}
				base, k = i, bits.TrailingZeros64(b1)
			} else {
				base = len(s) - 8
				b1 := wordBad(pass(load64(s[base:]), uint64(1)<<(uint(i-base)*8)-1), r1, r2)
				if b1 == 0 {
					return len(s)
				}
				k = bits.TrailingZeros64(b1)
			}
		default:
			base = i // s[i] goes to the table
		}
		i = base + k>>3
		c := s[i]
		if class[c]&mask != 0 {
			i++
			continue
		}
		if pct && c == '%' && i+2 < len(s) && class[s[i+1]]&class[s[i+2]]&cHex != 0 {
			i += 3
			continue
		}
		break
	}
	return i
}
