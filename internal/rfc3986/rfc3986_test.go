package rfc3986

import (
	"testing"
)

// The functions are tested through packages uri and iri, against the
// examples of RFC 3986 §5.4 and the conformance vectors; these tests pin
// the contracts that those packages rely on and that their tests cannot
// see directly.

func TestScanIPv6StopsAtZone(t *testing.T) {
	for _, tc := range []struct {
		s   string
		end int
		why string
	}{
		{"::1]", 3, ""},
		{"fe80::1%25eth0]", 7, ""},
		{"1:2:3:4:5:6:7:8]", 15, ""},
		{"::ffff:1.2.3.4]", 14, ""},
		{"1:2]", 3, "invalid IPv6 address (too few groups)"},
		{"::1", 3, Unclosed},
		{":1]", 1, "invalid IPv6 address (a lone ':' cannot start it)"},
		{"::01.2.3.4]", 4, "invalid IPv6 address (bad embedded IPv4 address)"},
		{"12345::]", 4, "invalid IPv6 address (more than four hex digits in a group)"},
	} {
		end, why := ScanIPv6(tc.s, 0, len(tc.s))
		if end != tc.end || why != tc.why {
			t.Errorf("ScanIPv6(%q) = %d, %q; want %d, %q", tc.s, end, why, tc.end, tc.why)
		}
	}
}

func TestScanIPvFuture(t *testing.T) {
	for _, tc := range []struct {
		s   string
		end int
		why string
	}{
		{"v1.x]", 4, ""},
		{"vF.a:b]", 6, ""},
		{"v.x]", 1, "invalid IPvFuture literal (a hex version number must follow 'v')"},
		{"v1x]", 2, "invalid IPvFuture literal (expected '.' after the version)"},
		{"v1.]", 3, "invalid IPvFuture literal"},
		{"v1.x", 4, Unclosed},
	} {
		end, why := ScanIPvFuture(tc.s, 0, len(tc.s))
		if end != tc.end || why != tc.why {
			t.Errorf("ScanIPvFuture(%q) = %d, %q; want %d, %q", tc.s, end, why, tc.end, tc.why)
		}
	}
}

func TestIsIPv4(t *testing.T) {
	for s, want := range map[string]bool{
		"0.0.0.0": true, "255.255.255.255": true, "1.2.3.04": false,
		"256.1.1.1": false, "1.2.3": false, "1.2.3.4.": false, "": false,
	} {
		if got := IsIPv4(s); got != want {
			t.Errorf("IsIPv4(%q) = %v", s, got)
		}
	}
}

// TestHasDotSegment holds HasDotSegment to its promise: without a dot
// segment, remove_dot_segments returns the path unchanged (normalization
// skips it then).
func TestHasDotSegment(t *testing.T) {
	for _, p := range []string{
		"", "/", "a", "/a/b", ".a", "/a./b", "/..a/", "a/b.", "/./", "/../", ".", "..",
		"a/.", "a/..", "./a", "../a", "/a/./b", "/a/../b", "//", "/.../", "/é/./x",
	} {
		// On these paths it is exact: a dot segment always changes the path.
		if changed := string(AppendRemoveDotSegments(nil, p)) != p; HasDotSegment(p) != changed {
			t.Errorf("HasDotSegment(%q) = %v, but remove_dot_segments gives %q", p, HasDotSegment(p), AppendRemoveDotSegments(nil, p))
		}
	}
}

func TestAppendRemoveDotSegmentsKeepsPrefix(t *testing.T) {
	// "Removing the last segment" never reaches into what dst held before.
	got := string(AppendRemoveDotSegments([]byte("http://a/b"), "/../../g"))
	if got != "http://a/b/g" {
		t.Errorf("got %q", got)
	}
}

func TestGuardPath(t *testing.T) {
	for _, tc := range []struct {
		in      string
		start   int
		hasAuth bool
		want    string
	}{
		{"g://b", 2, false, "g:/.//b"},
		{"g://b", 2, true, "g://b"},
		{"g:/b", 2, false, "g:/b"},
		{"//", 0, false, "/.//"},
	} {
		if got := string(GuardPath([]byte(tc.in), tc.start, tc.hasAuth)); got != tc.want {
			t.Errorf("GuardPath(%q, %d, %v) = %q; want %q", tc.in, tc.start, tc.hasAuth, got, tc.want)
		}
	}
}

func TestAppendPort(t *testing.T) {
	for _, tc := range []struct {
		port  string
		rules bool
		def   int
		want  string
	}{
		{"080", false, 80, ":080"},
		{"080", true, 80, ""},
		{"", true, 80, ""},
		{"0", true, 80, ":0"},
		{"0008080", true, 80, ":8080"},
		{"", false, 80, ":"},
	} {
		if got := string(AppendPort(nil, tc.port, tc.rules, tc.def)); got != tc.want {
			t.Errorf("AppendPort(%q, %v, %d) = %q; want %q", tc.port, tc.rules, tc.def, got, tc.want)
		}
	}
}
