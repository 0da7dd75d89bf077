package uri

// isIPv4 reports whether s is an IPv4address of §3.2.2: four dec-octets,
// each 0-255 with no leading zero.
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

// scanIPv6 reads an IPv6address of §3.2.2 from s[a:e] up to the ']' that
// must close it, and returns the offset of that ']'. Errors point at the
// first byte that no valid address could continue with.
//
// An address is eight 16-bit pieces, or fewer with one "::" standing for
// at least one; the last two pieces may be written as an IPv4address. With
// allowZone, the RFC 6874 suffix "%25" ZoneID is accepted (zone is true).
func scanIPv6(s string, a, e int, allowZone bool) (close int, zone bool, err error) {
	const why = "invalid IPv6 address"
	pieces := 0        // pieces seen, an IPv4 tail counting two
	double := false    // "::" seen
	afterColon := true // at the start of a piece (after ':' or at the beginning)
	i := a
	if i < e && s[i] == ':' {
		if i+1 >= e || s[i+1] != ':' {
			return 0, false, errAt(ErrInvalidHost, s, i+1, why+" (a lone ':' cannot start it)")
		}
		double = true
		i += 2
	}
	full := func() bool { return pieces == 8 || double && pieces == 7 }
	for {
		if i == e {
			return 0, false, errAt(ErrInvalidHost, s, e, "unclosed IP-literal (missing ']')")
		}
		c := s[i]
		switch {
		case c == ']' || c == '%':
			// The address must be complete here.
			if pieces > 0 && afterColon && !(double && s[i-1] == ':' && s[i-2] == ':') {
				return 0, false, errAt(ErrInvalidHost, s, i, why+" (a lone ':' cannot end it)")
			}
			if !double && pieces < 8 {
				return 0, false, errAt(ErrInvalidHost, s, i, why+" (too few groups)")
			}
			if c == '%' {
				if !allowZone {
					return 0, false, errAt(ErrInvalidHost, s, i, "IPv6 zone identifiers are not allowed in URIs (RFC 9844)")
				}
				close, err := scanZone(s, i, e)
				return close, true, err
			}
			return i, false, nil
		case is(c, cHex) && afterColon:
			if full() {
				return 0, false, errAt(ErrInvalidHost, s, i, why+" (too many groups)")
			}
			start := i
			for i < e && is(s[i], cHex) {
				if i-start == 4 {
					return 0, false, errAt(ErrInvalidHost, s, i, why+" (more than four hex digits in a group)")
				}
				i++
			}
			if i < e && s[i] == '.' {
				// ls32 written as an IPv4address: it ends the address and
				// needs two pieces of room.
				if double && pieces > 5 || !double && pieces != 6 {
					return 0, false, errAt(ErrInvalidHost, s, i, why+" (no room for an embedded IPv4 address here)")
				}
				end, ok := scanIPv4(s, start, e)
				if !ok {
					// The digits before the '.' were a valid group
					// ("::01", "::256"): the '.' is the first byte that
					// no address can continue with.
					end = max(end, i)
					return 0, false, errAt(ErrInvalidHost, s, end, why+" (bad embedded IPv4 address)")
				}
				pieces += 2
				i = end
				if i < e && s[i] != ']' && s[i] != '%' {
					return 0, false, errAt(ErrInvalidHost, s, i, why)
				}
				afterColon = false
				continue
			}
			pieces++
			afterColon = false
		case c == ':' && !afterColon:
			if full() {
				return 0, false, errAt(ErrInvalidHost, s, i, why+" (too many groups)")
			}
			i++
			afterColon = true
			if i < e && s[i] == ':' {
				if double {
					return 0, false, errAt(ErrInvalidHost, s, i, why+" (more than one '::')")
				}
				double = true
				i++
			}
		default:
			return 0, false, errAt(ErrInvalidHost, s, i, why)
		}
	}
}

// scanZone reads "%25" ZoneID (RFC 6874) at s[i] == '%' and returns the
// offset of the closing ']'.
//
//	ZoneID = 1*( unreserved / pct-encoded )
func scanZone(s string, i, e int) (int, error) {
	if i+1 < e && s[i+1] != '2' {
		return 0, errAt(ErrInvalidHost, s, i+1, `invalid IPv6 zone identifier (it must start with "%25")`)
	}
	if i+2 < e && s[i+2] != '5' {
		return 0, errAt(ErrInvalidHost, s, i+2, `invalid IPv6 zone identifier (it must start with "%25")`)
	}
	j := i + 3
	if j > e {
		return 0, errAt(ErrInvalidHost, s, e, "unclosed IP-literal (missing ']')")
	}
	for start := j; ; j++ {
		if j == e {
			return 0, errAt(ErrInvalidHost, s, e, "unclosed IP-literal (missing ']')")
		}
		switch {
		case s[j] == ']' && j > start:
			return j, nil
		case is(s[j], cUnreserved):
		case s[j] == '%':
			if bad := pctEnd(s, j); bad >= 0 {
				return 0, errAt(ErrInvalidPercentEncoding, s, bad, "invalid percent-encoding in IPv6 zone identifier")
			}
			j += 2
		default:
			return 0, errAt(ErrInvalidHost, s, j, "invalid character in IPv6 zone identifier")
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
		return 0, errAt(ErrInvalidHost, s, e, "unclosed IP-literal (missing ']')")
	}
	if i == a+1 {
		return 0, errAt(ErrInvalidHost, s, i, why+" (a hex version number must follow 'v')")
	}
	if s[i] != '.' {
		return 0, errAt(ErrInvalidHost, s, i, why+" (expected '.' after the version)")
	}
	i++
	start := i
	for ; i < e; i++ {
		if s[i] == ']' && i > start {
			return i, nil
		}
		if !is(s[i], cFuture) {
			return 0, errAt(ErrInvalidHost, s, i, why)
		}
	}
	return 0, errAt(ErrInvalidHost, s, e, "unclosed IP-literal (missing ']')")
}
