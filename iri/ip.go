package iri

// IP literals and IPv4 addresses are the same in an IRI as in a URI (RFC
// 3987 §2.2 takes IP-literal and IPv4address from RFC 3986 unchanged, and
// has no IPv6 zone identifiers); only ASCII may appear in them.

// isIPv4 reports whether s is an IPv4address: four dec-octets, each 0-255
// with no leading zero.
func isIPv4(s string) bool {
	end, ok := scanIPv4(s, 0, len(s))
	return ok && end == len(s)
}

// scanIPv4 reads an IPv4address from s[i:e] and returns where it stopped.
// When ok is false, end is the offset of the first byte that cannot
// continue a dec-octet address (or e when the input ran out).
//
//	dec-octet = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
func scanIPv4(s string, i, e int) (end int, ok bool) {
	for octet := 0; octet < 4; octet++ {
		if octet > 0 {
			if i == e || s[i] != '.' {
				return i, false
			}
			i++
		}
		if i == e || !is(s[i], cDigit) {
			return i, false
		}
		n := int(s[i] - '0')
		start := i
		i++
		for i < e && is(s[i], cDigit) {
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

// errIP is the error at s[i] inside an IP literal.
func errIP(s string, i int, why string) error {
	if i < len(s) && s[i] >= 0x80 {
		return errRune(s, i, "IP literal", ErrInvalidHost)
	}
	return errAt(s, i, ErrInvalidHost, why)
}

// scanIPv6 reads an IPv6address from s[a:e] up to the ']' that must close
// it, and returns the offset of that ']'. Errors point at the first byte
// that no valid address could continue with.
//
// An address is eight 16-bit pieces, or fewer with one "::" standing for
// at least one; the last two pieces may be written as an IPv4address.
func scanIPv6(s string, a, e int) (close int, err error) {
	const why = "invalid IPv6 address"
	pieces := 0        // pieces seen, an IPv4 tail counting two
	double := false    // "::" seen
	afterColon := true // at the start of a piece (after ':' or at the beginning)
	i := a
	if i < e && s[i] == ':' {
		if i+1 >= e || s[i+1] != ':' {
			return 0, errIP(s, i+1, why+" (a lone ':' cannot start it)")
		}
		double = true
		i += 2
	}
	full := func() bool { return pieces == 8 || double && pieces == 7 }
	for {
		if i == e {
			return 0, errAt(s, e, ErrInvalidHost, "unclosed IP-literal (missing ']')")
		}
		c := s[i]
		switch {
		case c == ']' || c == '%':
			// The address must be complete here.
			if pieces > 0 && afterColon && !(double && s[i-1] == ':' && s[i-2] == ':') {
				return 0, errAt(s, i, ErrInvalidHost, why+" (a lone ':' cannot end it)")
			}
			if !double && pieces < 8 {
				return 0, errAt(s, i, ErrInvalidHost, why+" (too few groups)")
			}
			if c == '%' {
				return 0, errAt(s, i, ErrInvalidHost, "IPv6 zone identifiers are not allowed in IRIs (RFC 3987 §2.2)")
			}
			return i, nil
		case is(c, cHex) && afterColon:
			if full() {
				return 0, errAt(s, i, ErrInvalidHost, why+" (too many groups)")
			}
			start := i
			for i < e && is(s[i], cHex) {
				if i-start == 4 {
					return 0, errAt(s, i, ErrInvalidHost, why+" (more than four hex digits in a group)")
				}
				i++
			}
			if i < e && s[i] == '.' {
				// ls32 written as an IPv4address: it ends the address and
				// needs two pieces of room.
				if double && pieces > 5 || !double && pieces != 6 {
					return 0, errAt(s, i, ErrInvalidHost, why+" (no room for an embedded IPv4 address here)")
				}
				end, ok := scanIPv4(s, start, e)
				if !ok {
					// The digits before the '.' were a valid group
					// ("::01", "::256"): the '.' is the first byte that
					// no address can continue with.
					end = max(end, i)
					return 0, errIP(s, end, why+" (bad embedded IPv4 address)")
				}
				pieces += 2
				i = end
				if i < e && s[i] != ']' && s[i] != '%' {
					return 0, errIP(s, i, why)
				}
				afterColon = false
				continue
			}
			pieces++
			afterColon = false
		case c == ':' && !afterColon:
			if full() {
				return 0, errAt(s, i, ErrInvalidHost, why+" (too many groups)")
			}
			i++
			afterColon = true
			if i < e && s[i] == ':' {
				if double {
					return 0, errAt(s, i, ErrInvalidHost, why+" (more than one '::')")
				}
				double = true
				i++
			}
		default:
			return 0, errIP(s, i, why)
		}
	}
}

// scanIPvFuture reads an IPvFuture from s[a:e] (s[a] is 'v' or 'V') and
// returns the offset of the closing ']'.
//
//	IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
func scanIPvFuture(s string, a, e int) (int, error) {
	const why = "invalid IPvFuture literal"
	i := a + 1
	for i < e && is(s[i], cHex) {
		i++
	}
	if i == e {
		return 0, errAt(s, e, ErrInvalidHost, "unclosed IP-literal (missing ']')")
	}
	if i == a+1 {
		return 0, errIP(s, i, why+" (a hex version number must follow 'v')")
	}
	if s[i] != '.' {
		return 0, errIP(s, i, why+" (expected '.' after the version)")
	}
	i++
	start := i
	for ; i < e; i++ {
		if s[i] == ']' && i > start {
			return i, nil
		}
		if !is(s[i], cFuture) {
			return 0, errIP(s, i, why)
		}
	}
	return 0, errAt(s, e, ErrInvalidHost, "unclosed IP-literal (missing ']')")
}
