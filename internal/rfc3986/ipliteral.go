package rfc3986

import "github.com/urikit/urikit/internal/ascii"

// Unclosed is the reason given when the input ends inside an IP-literal.
const Unclosed = "unclosed IP-literal (missing ']')"

func is(c byte, mask uint16) bool { return ascii.Table[c]&mask != 0 }

// IsIPv4 reports whether s is an IPv4address of §3.2.2: four dec-octets,
// each 0-255 with no leading zero.
func IsIPv4(s string) bool {
	end, ok := ScanIPv4(s, 0, len(s))
	return ok && end == len(s)
}

// ScanIPv4 reads an IPv4address from s[i:e] and returns where it stopped.
// When ok is false, end is the offset of the first byte that cannot
// continue a dec-octet address (or e when the input ran out).
//
//	dec-octet = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
func ScanIPv4(s string, i, e int) (end int, ok bool) {
	for octet := 0; octet < 4; octet++ {
		if octet > 0 {
			if i == e || s[i] != '.' {
				return i, false
			}
			i++
		}
		if i == e || !is(s[i], ascii.Digit) {
			return i, false
		}
		n := int(s[i] - '0')
		start := i
		i++
		for i < e && is(s[i], ascii.Digit) {
			if n == 0 && i == start+1 { // leading zero
				return i, false
			}
			n = n*10 + int(s[i]-'0')
			if n > 255 {
				return i, false
			}
			i++
		}
	}
	return i, true
}

// ScanIPv6 reads an IPv6address of §3.2.2 from s[a:e] up to the ']' that
// closes the IP-literal or the '%' that starts a zone identifier, and
// returns the offset of that byte: the address is complete there. The
// caller decides about a zone (RFC 6874 had one, RFC 9844 took it out of
// URIs, RFC 3987 never let one in).
//
// On failure why says what is wrong (Unclosed when s[a:e] ends first) and
// end is the offset of the first byte that no valid address could
// continue with.
//
// An address is eight 16-bit pieces, or fewer with one "::" standing for
// at least one; the last two pieces may be written as an IPv4address.
func ScanIPv6(s string, a, e int) (end int, why string) {
	const bad = "invalid IPv6 address"
	pieces := 0        // pieces seen, an IPv4 tail counting two
	double := false    // "::" seen
	afterColon := true // at the start of a piece (after ':' or at the beginning)
	i := a
	if i < e && s[i] == ':' {
		if i+1 >= e || s[i+1] != ':' {
			return i + 1, bad + " (a lone ':' cannot start it)"
		}
		double = true
		i += 2
	}
	full := func() bool { return pieces == 8 || double && pieces == 7 }
	for {
		if i == e {
			return e, Unclosed
		}
		c := s[i]
		switch {
		case c == ']' || c == '%':
			// The address must be complete here.
			if pieces > 0 && afterColon && !(double && s[i-1] == ':' && s[i-2] == ':') {
				return i, bad + " (a lone ':' cannot end it)"
			}
			if !double && pieces < 8 {
				return i, bad + " (too few groups)"
			}
			return i, ""
		case is(c, ascii.Hex) && afterColon:
			if full() {
				return i, bad + " (too many groups)"
			}
			start := i
			for i < e && is(s[i], ascii.Hex) {
				if i-start == 4 {
					return i, bad + " (more than four hex digits in a group)"
				}
				i++
			}
			if i < e && s[i] == '.' {
				// ls32 written as an IPv4address: it ends the address and
				// needs two pieces of room.
				if double && pieces > 5 || !double && pieces != 6 {
					return i, bad + " (no room for an embedded IPv4 address here)"
				}
				end, ok := ScanIPv4(s, start, e)
				if !ok {
					// The digits before the '.' were a valid group
					// ("::01", "::256"): the '.' is the first byte that
					// no address can continue with.
					return max(end, i), bad + " (bad embedded IPv4 address)"
				}
				pieces += 2
				i = end
				if i < e && s[i] != ']' && s[i] != '%' {
					return i, bad
				}
				afterColon = false
				continue
			}
			pieces++
			afterColon = false
		case c == ':' && !afterColon:
			if full() {
				return i, bad + " (too many groups)"
			}
			i++
			afterColon = true
			if i < e && s[i] == ':' {
				if double {
					return i, bad + " (more than one '::')"
				}
				double = true
				i++
			}
		default:
			return i, bad
		}
	}
}

// ScanIPvFuture reads an IPvFuture from s[a:e] (s[a] is 'v' or 'V') and
// returns the offset of the closing ']'; on failure, as ScanIPv6.
//
//	IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
func ScanIPvFuture(s string, a, e int) (end int, why string) {
	const bad = "invalid IPvFuture literal"
	i := a + 1
	for i < e && is(s[i], ascii.Hex) {
		i++
	}
	if i == e {
		return e, Unclosed
	}
	if i == a+1 {
		return i, bad + " (a hex version number must follow 'v')"
	}
	if s[i] != '.' {
		return i, bad + " (expected '.' after the version)"
	}
	i++
	start := i
	for ; i < e; i++ {
		if s[i] == ']' && i > start {
			return i, ""
		}
		// The body is the userinfo set: unreserved / sub-delims / ":".
		if !is(s[i], ascii.Userinfo) {
			return i, bad
		}
	}
	return e, Unclosed
}
