package federate

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

// FuzzParseSubst: the substitution-expression parser never panics, puts
// errors inside the input, and what it accepts
//   - reassembles to the input from its parts (delimiter, ERE,
//     replacement, flags);
//   - survives the zone-file escaping a DNS library applies: packed into a
//     DNS message and read back by miekg/dns, UnescapeCharString gives the
//     same bytes;
//   - matches exactly where Go's own POSIX ERE parser (regexp.CompilePOSIX)
//     matches, for the EREs both read the same way (no backslash, bracket
//     or interval, no "i" flag);
//   - applied to any string, gives a non-empty result or ok false.
func FuzzParseSubst(f *testing.F) {
	for _, s := range []struct{ expr, in string }{
		{`!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i`, "urn:cid:199606121851.1@bar.example.com"},
		{`/^http:\/\/([^\/:]+)/\1/i`, "http://www.example.com/x"},
		{`!(A(B(C)DE)(F)G)!\1|\2|\3|\4!`, "ABCDEFG"},
		{`!(a|ab)(c|bcd)(d*)!\1,\2,\3!`, "abcd"},
		{`.a\.b.X.`, "a.b"},
		{`!^[]a-c[:digit:][.-.]]{1,3}$!y!`, "a1-"},
		{`!^a*b+c?(d|e)$!\1!`, "aabbd"},
		{`!x!\\!`, "x"},
		{`!a**!b!`, "a"},
	} {
		f.Add(s.expr, s.in)
	}
	f.Fuzz(func(t *testing.T, expr, in string) {
		x, err := ParseSubst(expr)
		if err != nil {
			var se *SubstError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(expr) || se.Input != expr {
				t.Fatalf("%q: bad error %#v", expr, err)
			}
			return
		}
		d := string(x.Delimiter())
		flags := strings.Repeat("i", len(expr)-3-len(x.ERE())-len(x.Replacement()))
		if x.String() != expr || d+x.ERE()+d+x.Replacement()+d+flags != expr || x.CaseInsensitive() != (flags != "") {
			t.Fatalf("%q: parts %q %q %q", expr, x.ERE(), x.Replacement(), flags)
		}
		if x.Subexpressions() > strings.Count(x.ERE(), "(") {
			t.Fatalf("%q: %d subexpressions", expr, x.Subexpressions())
		}
		again, err := ParseSubst(x.String())
		if err != nil || again.re.String() != x.re.String() || fmt.Sprint(again.repl) != fmt.Sprint(x.repl) {
			t.Fatalf("%q: does not parse again the same: %v", expr, err)
		}
		if out, ok, err := x.Apply(in); ok != (out != "") || len(out) > MaxOutput || err != nil && ok {
			t.Fatalf("%q on %q: %q %v %v", expr, in, out, ok, err)
		}
		if len(expr) <= 255 {
			wireRoundTrip(t, expr)
		}
		if !x.CaseInsensitive() && !strings.ContainsAny(x.ERE(), `\[{`) && !strings.Contains(in, "\n") {
			posix, err := regexp.CompilePOSIX(x.ERE())
			if err != nil {
				return // Go's POSIX parser is the narrower one here
			}
			a, b := x.re.FindStringIndex(in), posix.FindStringIndex(in)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("ERE %q on %q: matched %v, Go's POSIX parser %v (as %q)", x.ERE(), in, a, b, x.re)
			}
		}
	})
}

// wireRoundTrip sends s as a NAPTR REGEXP through a packed DNS message and
// checks that miekg/dns's presentation form unescapes back to s.
func wireRoundTrip(t *testing.T, s string) {
	t.Helper()
	var present strings.Builder // RFC 1035 §5.1 escaping, for the packer
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			present.WriteByte('\\')
			present.WriteByte(c)
		case c < ' ' || c > '~':
			fmt.Fprintf(&present, "\\%03d", c)
		default:
			present.WriteByte(c)
		}
	}
	m := new(dns.Msg)
	m.SetQuestion("k.urn.arpa.", dns.TypeNAPTR)
	m.Answer = []dns.RR{&dns.NAPTR{Hdr: dns.RR_Header{Name: "k.urn.arpa.", Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: 60}, Regexp: present.String(), Replacement: "."}}
	wire, err := m.Pack()
	if err != nil {
		t.Fatalf("pack %q: %v", s, err)
	}
	var back dns.Msg
	if err := back.Unpack(wire); err != nil {
		t.Fatalf("unpack %q: %v", s, err)
	}
	got, err := UnescapeCharString(back.Answer[0].(*dns.NAPTR).Regexp)
	if err != nil || got != s {
		t.Fatalf("%q came back as %q (%v)", s, got, err)
	}
}

// FuzzHops: for every URN and hop count, WithHops gives a URN that
//   - parses, is equivalent to the original (RFC 8141 §3.1) and has the
//     hop count (Hops reads back n);
//   - keeps every other r-component part in order, the q-component and
//     the f-component;
//   - does not depend on the hop count it replaced (idempotent), and
//     gives back the very input when that had exactly this count;
//
// and the redirect built from it is a URI whose query is that URN without
// its f-component, and which has no fragment. Hops never panics and puts
// its error offsets inside the input.
func FuzzHops(f *testing.F) {
	for _, s := range []string{
		"urn:example:a", "URN:NBN:de:101-x?+s=I2Ls", "urn:ex:a?+hops=3&s=I2L?=lang=en#f",
		"urn:ex:a?+a&&b&", "urn:ex:a?+hops=1&hops=x", "urn:ex:a?=q#f", "urn:ex:a?+x??=q",
		"urn:ex:%2f?+hops=007",
	} {
		f.Add(s, uint32(1))
	}
	f.Fuzz(func(t *testing.T, s string, n32 uint32) {
		u, err := urn.Parse(s)
		if err != nil {
			return
		}
		old, had, herr := Hops(u)
		if herr != nil {
			var re *resolver.Error
			if !errors.As(herr, &re) || re.Offset < 0 || re.Offset > len(s) {
				t.Fatalf("%q: bad error %#v", s, herr)
			}
		}
		n := int(n32 % (MaxHops + 1))
		v, err := WithHops(u, n)
		if err != nil {
			t.Fatalf("%q %d: %v", s, n, err)
		}
		if got, ok, err := Hops(v); got != n || !ok || err != nil {
			t.Fatalf("%q → %q: Hops %d %v %v", s, v, got, ok, err)
		}
		if !v.Equal(u) || v.AssignedName() != u.AssignedName() {
			t.Fatalf("%q → %q: another name", s, v)
		}
		uq, uqok := u.QComponent()
		vq, vqok := v.QComponent()
		uf, ufok := u.FComponent()
		vf, vfok := v.FComponent()
		if uq != vq || uqok != vqok || uf != vf || ufok != vfok {
			t.Fatalf("%q → %q: q- or f-component changed", s, v)
		}
		if others(u) != others(v) {
			t.Fatalf("%q → %q: other parts %q became %q", s, v, others(u), others(v))
		}
		w, _ := WithHops(v, 7)
		w2, _ := WithHops(u, 7)
		if w != w2 {
			t.Fatalf("%q: not idempotent: %q vs %q", s, w, w2)
		}
		if had && herr == nil {
			r, _ := u.RComponent()
			if strings.Count(r, hopsPrefix) == 1 && !strings.Contains(r, hopsPrefix+"0") {
				if back, _ := WithHops(u, old); back != u {
					t.Fatalf("%q: WithHops(its own count %d) gave %q", s, old, back)
				}
			}
		}
		red, err := RedirectURL("https://r.example/base", u, "I2Ls", n)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		ru, err := uri.Parse(red)
		if err != nil || ru.HasFragment() {
			t.Fatalf("%q: redirect %q: %v", s, red, err)
		}
		noF := v.String()
		if i := strings.IndexByte(noF, '#'); i >= 0 {
			noF = noF[:i]
		}
		if ru.Query() != noF || ru.Path() != "/base/uri-res/N2Ls" {
			t.Fatalf("%q: redirect %q, query %q, want %q", s, red, ru.Query(), noF)
		}
	})
}

// others is the r-component's parts other than hops, in order.
func others(u urn.URN) string {
	r, ok := u.RComponent()
	if !ok {
		return ""
	}
	var keep []string
	for _, p := range rParts(r) {
		if !strings.HasPrefix(p, hopsPrefix) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "&")
}
