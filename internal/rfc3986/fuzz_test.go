package rfc3986

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzScanIPv6 holds the IPv6 scanner to net/netip, an independent reading
// of the same grammar (RFC 4291 §2.2, which RFC 3986 §3.2.2 writes as
// ABNF): a text without '%' or ']' is a complete address exactly when
// netip parses it as an IPv6 address.
func FuzzScanIPv6(f *testing.F) {
	for _, s := range []string{"::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1::", "1:2", ":1", "::01.2.3.4", "12345::", "a:b::c:d:1.2.3.4", "::1.2.3.4:5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "%]") {
			return
		}
		lit := s + "]"
		end, why := ScanIPv6(lit, 0, len(lit))
		if why == "" && end != len(s) {
			t.Fatalf("ScanIPv6(%q) stopped at %d without a reason", lit, end)
		}
		if why != "" && (end < 0 || end > len(s)) {
			t.Fatalf("ScanIPv6(%q) = %d, %q: the offset is outside the address", lit, end, why)
		}
		a, err := netip.ParseAddr(s)
		netipOK := err == nil && a.Is6()
		if (why == "") != netipOK {
			t.Fatalf("ScanIPv6(%q) = %d, %q but netip.ParseAddr says %v, %v", lit, end, why, a, err)
		}
	})
}
