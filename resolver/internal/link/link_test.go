package link

import (
	"strings"
	"testing"
)

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

func TestField(t *testing.T) {
	if got := Field(nil, "predecessor-version"); got != "" {
		t.Errorf("no targets: %q", got)
	}
	got := Field([]string{"urn:example:a", "urn:example:<b>", "urn:example:c"}, "predecessor-version")
	if want := `<urn:example:a>; rel="predecessor-version", <urn:example:c>; rel="predecessor-version"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A thousand names: the field stops at MaxField, on a whole link.
	var many []string
	for i := range 1000 {
		many = append(many, "urn:example:name-"+strings.Repeat("x", i%50))
	}
	got = Field(many, "predecessor-version")
	if len(got) > MaxField || len(got) < MaxField-100 || !strings.HasSuffix(got, `>; rel="predecessor-version"`) {
		t.Errorf("%d bytes, ending %q", len(got), got[max(0, len(got)-40):])
	}
	// One target longer than the field may be is left out.
	if got := Field([]string{"urn:example:" + strings.Repeat("y", MaxField)}, "r"); got != "" {
		t.Errorf("an over-long target: %d bytes", len(got))
	}
}
