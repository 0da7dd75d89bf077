package iri

import (
	"errors"
	"strings"
	"testing"
)

func TestDomainToASCII(t *testing.T) {
	tests := []struct{ in, want string }{
		{"résumé.example.org", "xn--rsum-bpad.example.org"}, // RFC 3987 §3.1
		{"納豆.example.org", "xn--99zt52a.example.org"},       // RFC 3987 §3.2.1
		{"Bücher.EXAMPLE", "xn--bcher-kva.example"},         // mapped to lower case, ASCII labels too
		{"faß.de", "xn--fa-hia.de"},                         // non-transitional: ß stays
		{"０x7f．１", "0x7f.1"},                                // full-width forms mapped; no IPv4 parsing (PROTOCOL.md)
		{"ü。example", "xn--tda.example"},                    // U+3002 is a label separator
		{"-ü-.example", "xn-----xka.example"},               // CheckHyphens false
		{"ab--c.ü", "ab--c.xn--tda"},                        // CheckHyphens false
		{"ü_x.com", "xn--_x-wka.com"},                       // UseSTD3ASCIIRules false
		{"ü!.com", "xn--!-dha.com"},                         // a sub-delim stays (STD3 off), and a URI host may hold it
		{".ü..", ".xn--tda.."},                              // VerifyDnsLength false: empty labels
		{"ü.", "xn--tda."},                                  // a trailing dot
		{"a.xn--tda.ü", "a.xn--tda.xn--tda"},                // an ACE label is checked and kept
		{"ab1.ذذ", "ab1.xn--vgba"},                          // a Bidi domain name whose labels all pass RFC 5893
		{"ü" + strings.Repeat("a", 70) + ".com", "xn--" + strings.Repeat("a", 70) + "-tgh.com"}, // no length limits
		{"a\u094d\u200db.com", "xn--ab-fsf014u.com"},                                            // ZWJ after a virama: CONTEXTJ allows it
		{"😀.example", "xn--e28h.example"},
	}
	for _, tt := range tests {
		got, err := DomainToASCII(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("DomainToASCII(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	failures := []struct{ in, why string }{
		{"a\u200db.com", "invalid label"}, // CheckJoiners: ZWJ with no virama before it
		{"\u0301a.com", "invalid label"},  // a label may not begin with a combining mark
		{"٠١.com", "invalid label"},       // CheckBidi: an AN label breaks RFC 5893 rule 1
		{"𐴰.example", "invalid label"},    // the same for Hanifi Rohingya digit zero (Bidi_Class AN)
		{"a.١x", "invalid label"},         // ... and an LTR label starting with a digit in a Bidi domain name
		{"\ufffd.com", "disallowed"},      // what a bad UTF-8 byte decodes to
		{"xn--a.ü", "invalid label"},      // bad Punycode (IgnoreInvalidPunycode false)
		{"xn--abc-.ü", "invalid label"},   // Punycode that decodes to ASCII only
		{"xn--ü.com", ""},                 // a non-ASCII character after "xn--"
		{"\xff.com", "not UTF-8"},         // percent-decoded bytes that are no UTF-8
	}
	for _, f := range failures {
		got, err := DomainToASCII(f.in)
		if err == nil || !strings.Contains(err.Error(), f.why) || !errors.Is(err, ErrIDNA) {
			t.Errorf("DomainToASCII(%q) = %q, %v; want an error saying %q", f.in, got, err, f.why)
		}
	}
}

// TestIDNADifferences pins each place where golang.org/x/net/idna, set to
// the URL Standard's options, answers otherwise than the standard, and
// checks that DomainToASCII corrects it. The first half of each case
// asserts x/net/idna's own answer, so that a fix upstream shows up here.
func TestIDNADifferences(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		xnetOut  string // what whatwg.ToASCII returns
		xnetFail bool   // whether it reports an error
		why      string // a part of DomainToASCII's error
	}{
		// UTS #46 §4 step 4: a Punycode label that decodes to nothing is
		// an error; x/net/idna drops the label silently.
		{"empty ACE label", "xn--.ü", ".xn--tda", false, `"xn--" decodes to nothing`},
		// UTS #46 §4.1 criterion 2 (revision 31): with CheckHyphens false,
		// a label must still not begin with "xn--" once decoded.
		{"decoded label starting with xn--", "xn--xn--a-ova.ü", "xn--xn--a-ova.xn--tda", false, `begins with "xn--"`},
		// Only ignored code points: the URL Standard fails an empty result.
		{"maps to nothing", "\u00ad", "", false, "empty string"},
		{"maps to nothing (two)", "\u200b\ufe0f", "", false, "empty string"},
		// UseSTD3ASCIIRules false lets the mapping produce ASCII that the
		// URL Standard refuses as forbidden domain code points.
		{"full-width number sign", "ü＃x.com", "xn--#x-wka.com", false, "forbidden code point '#'"},
		{"full-width solidus", "ü／x.com", "xn--/x-wka.com", false, "forbidden code point '/'"},
		{"percent-decoded percent sign", "ü%41.com", "xn--%41-goa.com", false, "forbidden code point '%'"},
		{"full-width commercial at", "ü＠x", "xn--@x-wka", false, "forbidden code point '@'"},
		// ... and ASCII that the standard allows in a host but a URI does
		// not (this package's rule, not the standard's).
		{"full-width left curly bracket", "ü｛x.com", "xn--{x-wka.com", false, "which a URI host cannot hold"},
	}
	for _, tt := range tests {
		out, err := whatwg.ToASCII(tt.in)
		if out != tt.xnetOut || (err != nil) != tt.xnetFail {
			t.Errorf("%s: x/net/idna gives %q, %v; the test expects %q (fail %v): has x/net/idna changed?", tt.name, out, err, tt.xnetOut, tt.xnetFail)
		}
		got, err := DomainToASCII(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("%s: DomainToASCII(%q) = %q, %v; want an error saying %q", tt.name, tt.in, got, err, tt.why)
		}
	}
	// x/net/idna returns a result together with its error: here an error
	// is a failure and no result.
	if out, err := whatwg.ToASCII("a\u200db.com"); err == nil || out == "" {
		t.Errorf("x/net/idna: %q, %v; expected a result and an error", out, err)
	}
	if out, err := DomainToASCII("a\u200db.com"); err == nil || out != "" {
		t.Errorf("DomainToASCII: %q, %v; want only an error", out, err)
	}
}

func TestDomainToUnicode(t *testing.T) {
	for in, want := range map[string]string{
		"xn--rsum-bpad.example.org": "résumé.example.org",
		"RÉSUMÉ.example.org":        "résumé.example.org",
		"ＢÜＣＨＥＲ．example":            "bücher.example",
		"re\u0301sume\u0301.org":    "résumé.org", // NFC, through the mapping
	} {
		if got, ok := DomainToUnicode(in); !ok || got != want {
			t.Errorf("DomainToUnicode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := DomainToUnicode("xn--.com"); ok {
		t.Error("DomainToUnicode accepted an empty ACE label")
	}
}
