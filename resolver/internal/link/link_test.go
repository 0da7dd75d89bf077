package link

import "testing"

func TestHref(t *testing.T) {
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"https://example.org/a", true},
		{"HTTP://EXAMPLE.ORG/", true},
		{"ftp://ftp.example.com:21/f", true},
		{"gopher://gopher.example.org/0a", true},
		{"mailto:someone@example.org", true},
		{"news:comp.lang.go", true},
		{"javascript:alert(1)", false},
		{"JavaScript:alert(1)", false},
		{"vbscript:msgbox", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"urn:example:a", false}, // a name: the pages link names to their own pages
		{"no-scheme", false},
		{"", false},
		{" https://example.org/", false}, // not a scheme as given
	} {
		got := Href(c.url)
		if (got != "") != c.want || (c.want && string(got) != c.url) {
			t.Errorf("Href(%q) = %q, want link %v", c.url, got, c.want)
		}
	}
}
