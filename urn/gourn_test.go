package urn

import (
	"testing"

	gourn "github.com/leodido/go-urn"
)

// TestGoURNDisagreements pins down where github.com/leodido/go-urn v1.5.0
// (RFC 8141 mode), the peer in the benchmarks, and this package differ, so a
// change on either side is noticed. Everything else in benchInputs and the
// RFC 8141 examples they agree on.
func TestGoURNDisagreements(t *testing.T) {
	opt := gourn.WithParsingMode(gourn.RFC8141Only)
	validity := []struct {
		in          string
		ours, gourn bool
		why         string
	}{
		// RFC 3986 §2.1: "%" must be followed by two hex digits.
		{"urn:example:a%zz", false, true, "go-urn accepts a malformed percent-encoding"},
		// RFC 8141 §2: q-component = pchar *( pchar / "/" / "?" ), so "?=" may recur in it.
		{"urn:example:a?=q?=r", true, false, `go-urn rejects "?=" inside a q-component`},
	}
	for _, tt := range validity {
		_, err := Parse(tt.in)
		_, ok := gourn.Parse([]byte(tt.in), opt)
		if (err == nil) != tt.ours || ok != tt.gourn {
			t.Errorf("%q: ours %v go-urn %v, want %v %v (%s)", tt.in, err == nil, ok, tt.ours, tt.gourn, tt.why)
		}
	}
	// RFC 8141 §3.1 upper-cases the hex digits of percent-encodings; go-urn's
	// normal form lower-cases them. Equivalence still agrees.
	in := "URN:EXAMPLE:a123%2Cz456"
	g, _ := gourn.Parse([]byte(in), opt)
	if got := g.Normalize().String(); got != "urn:example:a123%2cz456" {
		t.Errorf("go-urn normal form %q", got)
	}
	if got := MustParse(in).CanonicalString(); got != "urn:example:a123%2Cz456" {
		t.Errorf("canonical form %q", got)
	}
	for _, s := range benchInputs {
		g, ok := gourn.Parse([]byte(s), opt)
		u, err := Parse(s)
		if !ok || err != nil {
			t.Errorf("%q: go-urn ok %v, ours %v", s, ok, err)
			continue
		}
		if g.ID != u.NID() || g.SS != u.NSS() || g.RComponent() != fst(u.RComponent()) || g.QComponent() != fst(u.QComponent()) || g.FComponent() != fst(u.FComponent()) {
			t.Errorf("%q: parts differ", s)
		}
	}
}

func fst(s string, _ bool) string { return s }
