package iri

import (
	"strings"
	"testing"
)

// TestResolveRFC3986Examples runs RFC 3986 §5.4's examples with the base
// and references written with non-ASCII letters: RFC 3987 §6.5 says the
// algorithm applies unchanged, so the result is the same text with the
// same letters swapped.
func TestResolveRFC3986Examples(t *testing.T) {
	examples := [][2]string{
		{"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"}, {"g/", "http://a/b/c/g/"},
		{"/g", "http://a/g"}, {"//g", "http://g"}, {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
		{"#s", "http://a/b/c/d;p?q#s"}, {"g#s", "http://a/b/c/g#s"}, {"g?y#s", "http://a/b/c/g?y#s"},
		{";x", "http://a/b/c/;x"}, {"g;x", "http://a/b/c/g;x"}, {"g;x?y#s", "http://a/b/c/g;x?y#s"},
		{"", "http://a/b/c/d;p?q"}, {".", "http://a/b/c/"}, {"./", "http://a/b/c/"}, {"..", "http://a/b/"},
		{"../", "http://a/b/"}, {"../g", "http://a/b/g"}, {"../..", "http://a/"}, {"../../", "http://a/"},
		{"../../g", "http://a/g"}, {"../../../g", "http://a/g"}, {"../../../../g", "http://a/g"},
		{"/./g", "http://a/g"}, {"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."}, {".g", "http://a/b/c/.g"},
		{"g..", "http://a/b/c/g.."}, {"..g", "http://a/b/c/..g"}, {"./../g", "http://a/b/g"}, {"./g/.", "http://a/b/c/g/"},
		{"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"}, {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
		{"g;x=1/../y", "http://a/b/c/y"}, {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
		{"g#s/./x", "http://a/b/c/g#s/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"}, {"http:g", "http:g"},
	}
	swap := strings.NewReplacer("a", "ä", "b", "б", "c", "ç", "g", "ğ", "y", "ý", "s", "ś", "h", "ħ", "q", "ʠ", "x", "χ")
	// "http" and "p" stay ASCII: the scheme cannot hold non-ASCII.
	fix := func(s string) string {
		s = swap.Replace(s)
		s = strings.ReplaceAll(s, "ħttp", "http")
		s = strings.ReplaceAll(s, "ğ:ħ", "g:ħ") // the scheme of "g:h"
		return s
	}
	base := MustParse(fix("http://a/b/c/d;p?q"))
	for _, ex := range examples {
		ref, want := fix(ex[0]), fix(ex[1])
		got, err := base.ResolveString(ref)
		if err != nil || got.String() != want {
			t.Errorf("resolve %q against %q = %q, %v; want %q", ref, base, got, err, want)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		{"http://bücher.example/a/b", "../ö", "http://bücher.example/ö"},
		{"http://a/b", "//ü.example/x", "http://ü.example/x"},
		{"f:/a", ".//ü", "f:/.//ü"}, // PROTOCOL.md's "/." rule
		{"foo:a/b", "../ç", "foo:/ç"},
		{"http://a/ü?q#f", "", "http://a/ü?q"},
		{"http://a/b", "?\ue000", "http://a/b?\ue000"},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.base).ResolveString(tt.ref)
		if err != nil || got.String() != tt.want {
			t.Errorf("resolve %q against %q = %q, %v; want %q", tt.ref, tt.base, got, err, tt.want)
		}
	}
	if _, err := mustRef(t, "a/b").ResolveString("c"); err == nil {
		t.Error("a relative base was accepted")
	}
	if _, err := MustParse("http://a/").ResolveString("\u202e"); err == nil {
		t.Error("an invalid reference was accepted")
	}
}
