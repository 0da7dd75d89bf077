package iri

import "github.com/urikit/urikit/internal/rfc3986"

// IP literals and IPv4 addresses are the same in an IRI as in a URI (RFC
// 3987 §2.2 takes IP-literal and IPv4address from RFC 3986 unchanged, and
// has no IPv6 zone identifiers); only ASCII may appear in them. The
// grammar is internal/rfc3986's, shared with package uri; what is the
// IRI's own here is the error: a non-ASCII character where the literal
// breaks is explained as such (errRune), and a zone is always refused.

// isIPv4 reports whether s is an IPv4address: four dec-octets, each 0-255
// with no leading zero.
func isIPv4(s string) bool { return rfc3986.IsIPv4(s) }

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
func scanIPv6(s string, a, e int) (close int, err error) {
	end, why := rfc3986.ScanIPv6(s, a, e)
	if why != "" {
		return 0, errIP(s, end, why)
	}
	if s[end] == '%' {
		return 0, errAt(s, end, ErrInvalidHost, "IPv6 zone identifiers are not allowed in IRIs (RFC 3987 §2.2)")
	}
	return end, nil
}

// scanIPvFuture reads an IPvFuture from s[a:e] (s[a] is 'v' or 'V') and
// returns the offset of the closing ']'.
func scanIPvFuture(s string, a, e int) (int, error) {
	end, why := rfc3986.ScanIPvFuture(s, a, e)
	if why != "" {
		return 0, errIP(s, end, why)
	}
	return end, nil
}
