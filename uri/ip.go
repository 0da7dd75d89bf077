package uri

import "github.com/urikit/urikit/internal/rfc3986"

// The IPv4address and IP-literal grammar of §3.2.2 is internal/rfc3986's,
// shared with package iri (RFC 3987 §2.2 takes it over unchanged); what is
// the URI's own here is the RFC 6874 zone identifier and the error type.

// isIPv4 reports whether s is an IPv4address of §3.2.2: four dec-octets,
// each 0-255 with no leading zero.
func isIPv4(s string) bool { return rfc3986.IsIPv4(s) }

// scanIPv6 reads an IPv6address of §3.2.2 from s[a:e] up to the ']' that
// must close it, and returns the offset of that ']'. Errors point at the
// first byte that no valid address could continue with. With allowZone,
// the RFC 6874 suffix "%25" ZoneID is accepted (zone is true).
func scanIPv6(s string, a, e int, allowZone bool) (close int, zone bool, err error) {
	end, why := rfc3986.ScanIPv6(s, a, e)
	if why != "" {
		return 0, false, errAt(ErrInvalidHost, s, end, why)
	}
	if s[end] == '%' {
		if !allowZone {
			return 0, false, errAt(ErrInvalidHost, s, end, "IPv6 zone identifiers are not allowed in URIs (RFC 9844)")
		}
		close, err := scanZone(s, end, e)
		return close, true, err
	}
	return end, false, nil
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
func scanIPvFuture(s string, a, e int) (int, error) {
	end, why := rfc3986.ScanIPvFuture(s, a, e)
	if why != "" {
		return 0, errAt(ErrInvalidHost, s, end, why)
	}
	return end, nil
}
