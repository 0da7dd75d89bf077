package federate

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestSubstApply(t *testing.T) {
	cases := []struct {
		expr, in, out string
		ok            bool
	}{
		// RFC 3403 §6.1 and RFC 3404 §5.2, as the client receives them.
		{`!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i`, "urn:cid:199606121851.1@bar.example.com", "example.com", true},
		{`!^cid:.+@([^\.]+\.)(.*)$!\2!i`, "CID:199606121851.1@bar.example.com", "example.com", true},
		// RFC 3404 §5.3 (with the "\" its "!1!" lost): the replacement
		// alone, not the string with the match replaced.
		{`!^http://([^/:]+)!\1!i`, "http://www.example.com/software/latest-beta.exe", "www.example.com", true},
		// The same with "/" as the delimiter, escaped where it is meant.
		{`/^http:\/\/([^\/:]+)/\1/i`, "http://www.example.com/software/latest-beta.exe", "www.example.com", true},
		// RFC 3403 §6.2 (ENUM).
		{`!^.*$!sip:information@foo.se!i`, "17705551212", "sip:information@foo.se", true},
		// RFC 3402 §3.2's backref example.
		{`!(A(B(C)DE)(F)G)!\1|\2|\3|\4!`, "xxABCDEFGyy", "ABCDEFG|BCDE|C|F", true},
		// No match, and a match with an empty result, produce nothing.
		{`!^urn:foo:!x!`, "urn:bar:1", "", false},
		{`!^urn:(x*)!\1!`, "urn:abc", "", false},
		// A subexpression outside the match gives the empty string.
		{`!((a)|b)c!<\2>!`, "bc", "<>", true},
		// Leftmost-longest (POSIX), not leftmost-first (Perl).
		{`!(a|ab)!\1!`, "ab", "ab", true},
		{`!x*![\0]!`, "yxx", `[\0]`, true}, // the empty match at 0 is leftmost
		// Case: only with "i".
		{`!^URN:FOO:(.*)$!\1!`, "urn:foo:Bar", "", false},
		{`!^URN:FOO:(.*)$!\1!i`, "urn:foo:Bar", "Bar", true},
		{`!^urn:foo:[[:upper:]]+$!y!i`, "urn:foo:abc", "y", true},
		// An escaped delimiter is the character itself, even a
		// metacharacter.
		{`.a\.b.X.`, "a.b", "X", true},
		{`.a\.b.X.`, "axb", "", false},
		{`|a\|b|X\|Y|`, "a|b", "X|Y", true},
		// "." matches every character; bracket expressions follow POSIX.
		{`!^a.c$!y!`, "a\nc", "y", true},
		{`!^[]a]+$!y!`, "]a]", "y", true},
		{`!^[^]a]+$!y!`, "bcd", "y", true},
		{`!^[a-]+$!y!`, "a-a", "y", true},
		{`!^[-a]+$!y!`, "-a", "y", true},
		{`!^[\]+$!y!`, `\\`, "y", true},  // a backslash is literal in brackets
		{`!^[\!]+$!y!`, `!!`, "y", true}, // except before the delimiter
		{`!^[\!]+$!y!`, `\`, "", false},
		{`!^[[.-.]a]+$!y!`, "-a", "y", true},
		{`!^[[=e=]]$!y!`, "e", "y", true},
		{`!^[[:digit:][:alpha:]_]+$!y!`, "a1_", "y", true},
		{`!^[a-c[.z.]]+$!y!`, "abz", "y", true},
		{`!^a{2,3}$!y!`, "aaa", "y", true},
		{`!^a{2,3}$!y!`, "aaaa", "", false},
		{`!^a{2,}$!y!`, "aaaa", "y", true},
		{`!^a{2}$!y!`, "aa", "y", true},
		{`!^\{\}\]\-$!y!`, "{}]-", "y", true},
		{`!^(é|x)(.*)$!\2!`, "éab", "ab", true},
		{`!^[é]$!y!`, "é", "y", true},
		// In the replacement a backslash not before a digit or the
		// delimiter is itself (RFC 3402's anychar).
		{`!a!x\y\\z!`, "a", `x\y\\z`, true},
		{`!(a)!\\1!`, "a", `\a`, true},
		{`!a!\!!`, "a", "!", true},
	}
	for _, c := range cases {
		x, err := ParseSubst(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		out, ok, err := x.Apply(c.in)
		if out != c.out || ok != c.ok || err != nil {
			t.Errorf("%s on %q: %q %v, want %q %v", c.expr, c.in, out, ok, c.out, c.ok)
		}
		if x.String() != c.expr {
			t.Errorf("%s: String %q", c.expr, x.String())
		}
	}
}

// TestSubstApplyBound: an output longer than MaxOutput bytes is refused
// (ErrOutputTooLong), not built; one of exactly MaxOutput is built.
func TestSubstApplyBound(t *testing.T) {
	x, err := ParseSubst(`!^(.*)$!http://x.example/` + strings.Repeat(`\1`, 110) + `!`)
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Repeat("n", 200)
	if out, ok, err := x.Apply(in); ok || out != "" || !errors.Is(err, ErrOutputTooLong) {
		t.Fatalf("110 × 200 bytes: %d bytes, %v, %v", len(out), ok, err)
	}
	if allocs := testing.AllocsPerRun(10, func() { x.Apply(in) }); allocs > 2 {
		t.Errorf("%v allocations: the output was built", allocs)
	}
	y, err := ParseSubst(`!^(.*)$!\1!`)
	if err != nil {
		t.Fatal(err)
	}
	full := strings.Repeat("a", MaxOutput)
	if out, ok, err := y.Apply(full); !ok || out != full || err != nil {
		t.Fatalf("exactly %d bytes: %d bytes, %v, %v", MaxOutput, len(out), ok, err)
	}
	if _, ok, err := y.Apply(full + "a"); ok || !errors.Is(err, ErrOutputTooLong) {
		t.Fatalf("%d bytes: %v, %v", MaxOutput+1, ok, err)
	}
}

func TestSubstErrors(t *testing.T) {
	cases := []struct {
		expr   string
		offset int
		reason string
	}{
		{``, 0, "empty"},
		{`1a1b1`, 0, "digit"},
		{`iaibi`, 0, "flag"},
		{`\a\b\`, 0, `"\"`},
		{"\xc3a\xc3b\xc3", 0, "ASCII"},
		{`!abc`, 4, "second delimiter"},
		{`!a!b`, 4, "third delimiter"},
		{`!a!b\!`, 6, "third delimiter"},
		{`!a!b!x`, 5, "unknown flag"},
		{`!!b!`, 1, "empty regular expression"},
		{`!\d!b!`, 1, "not defined"},
		{`!(a)\1!b!`, 4, "back-reference"},
		{`!a**!b!`, 3, "repeats"},
		{`!a*?!b!`, 3, "repeats"},
		{`!*a!b!`, 1, "repeats"},
		{`!(*a)!b!`, 2, "repeats"},
		{`!^*!b!`, 2, "repeats"},
		{`!a|*!b!`, 3, "repeats"},
		{`!{1}!b!`, 1, "repeats"},
		{`!a{x}!b!`, 3, "count"},
		{`!a{1!b!`, 4, `"}"`},
		{`!a{3,2}!b!`, 2, "smaller"},
		{`!a{256}!b!`, 2, "RE_DUP_MAX"},
		{`!(a!b!`, 1, `"(" without ")"`},
		{`!a)!b!`, 2, `")" without "("`},
		{`!()!b!`, 2, "empty"},
		{`!a||b!b!`, 3, "empty alternative"},
		{`!a|!b!`, 3, "empty alternative"},
		{`!|a!b!`, 1, "empty alternative"},
		{`![a!b!`, 1, `"[" without "]"`},
		{`![]!b!`, 1, `"[" without "]"`},
		{`![z-a]!b!`, 2, "out of order"},
		// "\" before the delimiter escapes it, a backslash before it or
		// not: a replacement cannot end in a backslash (no URI or domain
		// name holds one).
		{`!a!x\\!`, 7, "third delimiter"},
		{`![a-c-e]!b!`, 5, `"-"`},
		{`![[:word:]]!b!`, 2, "unknown character class"},
		{`![[:alpha]!b!`, 2, `"[:" without ":]"`},
		{`![[.ab.]]!b!`, 2, "one character"},
		{`![[=a=]-z]!b!`, 7, `"-"`},
		{`!a\!`, 4, "second delimiter"},
		{`!a\` + "\x01" + `!b!`, 2, "not defined"},
		{`!a!\2!`, 3, "no subexpression"},
		{`!(a)!\1\2!`, 7, "no subexpression"},
		{"!\xff!b!", 1, "UTF-8"},
	}
	for _, c := range cases {
		_, err := ParseSubst(c.expr)
		var se *SubstError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a SubstError", c.expr, err)
			continue
		}
		if se.Offset != c.offset || !strings.Contains(se.Reason, c.reason) {
			t.Errorf("%q: offset %d %q, want %d and %q", c.expr, se.Offset, se.Reason, c.offset, c.reason)
		}
		if !strings.Contains(se.Error(), "at byte") {
			t.Errorf("%q: %s", c.expr, se.Error())
		}
	}
}

func TestUnescapeCharString(t *testing.T) {
	cases := []struct{ in, out string }{
		{`plain`, `plain`},
		{`!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i`, `!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i`},
		{`\"quoted\"`, `"quoted"`},
		{`caf\195\169`, "café"},
		{`\000\255`, "\x00\xff"},
		{`\a\.`, `a.`},
	}
	for _, c := range cases {
		got, err := UnescapeCharString(c.in)
		if err != nil || got != c.out {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.out)
		}
	}
	for _, bad := range []string{`\`, `ab\`, `\25`, `\2x5`, `\256`, `\99`} {
		if _, err := UnescapeCharString(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestEscapingThroughTheWire: a NAPTR record written in a zone file as RFC
// 3403 §6.1 writes it, packed into a DNS message and read back by
// miekg/dns, reaches the DDDS algorithm as the RFC says it must.
func TestEscapingThroughTheWire(t *testing.T) {
	rr, err := dns.NewRR(`cid.urn.arpa. 3600 IN NAPTR 100 10 "" "" "!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i" .`)
	if err != nil {
		t.Fatal(err)
	}
	m := new(dns.Msg)
	m.SetQuestion("cid.urn.arpa.", dns.TypeNAPTR)
	m.Answer = append(m.Answer, rr)
	wire, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	var back dns.Msg
	if err := back.Unpack(wire); err != nil {
		t.Fatal(err)
	}
	n := back.Answer[0].(*dns.NAPTR)
	if n.Regexp != `!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i` {
		t.Fatalf("miekg/dns presents %q", n.Regexp)
	}
	r := newRule(n)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.subst.String(); got != `!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i` {
		t.Fatalf("applied as %q", got)
	}
	if out, ok, err := r.apply("urn:cid:199606121851.1@bar.example.com"); !ok || err != nil || out != "example.com" {
		t.Fatalf("%q %v", out, ok)
	}
}

func TestRuleRecords(t *testing.T) {
	mk := func(flags, svcs, re, repl string) rule {
		return newRule(&dns.NAPTR{Hdr: dns.RR_Header{Name: "x.urn.arpa."}, Order: 1, Preference: 1, Flags: flags, Service: svcs, Regexp: re, Replacement: repl})
	}
	i2l, _ := lookupService("I2L")
	for _, c := range []struct {
		r    rule
		kind byte
		bad  bool
	}{
		{mk("", "", "!a!b.test.!", "."), flagNone, false},
		{mk("S", "thttp+I2L", "", "t.test."), flagS, false},
		{mk("s", "thttp+I2L", "", "t.test."), flagS, false},
		{mk("U", "thttp+I2L", "!a!http://b/!", "."), flagU, false},
		{mk("Z", "thttp+I2L", "!a!b!", "."), flagUnknown, true},
		{mk("7", "thttp+I2L", "!a!b!", "."), flagUnknown, true},
		{mk("SU", "thttp+I2L", "!a!b!", "."), flagBad, true},
		{mk("S ", "thttp+I2L", "!a!b!", "."), flagBad, true},
		{mk("SS", "thttp+I2L", "", "t.test."), flagS, false},
		{mk("", "", "!a!b!", "t.test."), flagNone, true}, // both fields
		{mk("", "", "", "."), flagNone, true},            // neither
		{mk("", "thttp+", "!a!b!", "."), flagNone, true}, // services field
		{mk("", "1x+I2L", "!a!b!", "."), flagNone, true},
		{mk("", "", `!a\`, "."), flagNone, true}, // escaping
		{mk("", "", "!a!\\\\1!", "."), flagNone, true},
	} {
		if c.r.kind != c.kind || (c.r.err != nil) != c.bad {
			t.Errorf("%s: kind %q err %v", c.r, c.r.kind, c.r.err)
		}
	}
	for _, c := range []struct {
		svcs string
		kind byte
		ok   bool
	}{
		{"", flagNone, true},
		{"thttp", flagNone, true},
		{"thttp+I2C", flagNone, false},
		{"z3950", flagNone, false},
		{"thttp+I2L", flagS, true},
		{"THTTP+n2l", flagS, true},
		{"+I2L", flagS, false},
		{"http+I2L", flagS, false},
		{"I2L", flagU, false}, // a protocol named I2L, no services
		{"+I2L", flagU, true},
		{"thttp+I2Ls", flagU, false},
		{"", flagU, false},
		{"thttp+I2L", flagA, true},
	} {
		f, err := parseServices(c.svcs)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.acceptable(c.kind, i2l); got != c.ok {
			t.Errorf("services %q flag %q: %v", c.svcs, c.kind, got)
		}
	}
}

func TestChooseOrder(t *testing.T) {
	mk := func(order, pref uint16, flags, svcs, re string) rule {
		return newRule(&dns.NAPTR{Hdr: dns.RR_Header{Name: "k."}, Order: order, Preference: pref, Flags: flags, Service: svcs, Regexp: re, Replacement: "."})
	}
	i2l, _ := lookupService("I2L")
	rules := []rule{
		mk(30, 1, "U", "thttp+I2L", "!^(.*)$!https://late.test/!"),
		mk(20, 9, "U", "thttp+I2L", "!^(.*)$!https://pref9.test/!"),
		mk(20, 2, "U", "thttp+I2C", "!^(.*)$!https://i2c.test/!"),
		mk(20, 5, "U", "thttp+I2L", "!^(.*)$!https://pref5.test/!"),
		mk(10, 1, "U", "thttp+I2L", "!^nomatch$!https://no.test/!"),
		mk(5, 1, "Q", "thttp+I2L", "!^(.*)$!https://unknown-flag.test/!"),
	}
	r, out, _ := choose(rules, "urn:x:1", i2l)
	if r == nil || out != "https://pref5.test/" {
		t.Fatalf("%v %q", r, out)
	}
	// Order 20 matches but offers nothing for I2Rs: order 30 is not
	// looked at, though it would match.
	i2rs, _ := lookupService("I2Rs")
	if r, _, why := choose(rules, "urn:x:1", i2rs); r != nil || !strings.Contains(why, "services") {
		t.Fatalf("%v %q", r, why)
	}
}

// TestSubstAgainstGoPOSIX: where Go's own POSIX ERE parser reads an ERE as
// POSIX does (no backslashes, brackets or intervals, whose meaning
// differs), the translation matches the same text.
func TestSubstAgainstGoPOSIX(t *testing.T) {
	eres := []string{"a|ab", "(a|ab)(c|bcd)(d*)", "x*", "^urn:(.*):(.*)$", "(a+|b)*c", "a.c", "^$", "(^a|b$)", "((a)|b)+", "a?b?c?", "(ab|a)(bc|c)?"}
	inputs := []string{"", "ab", "abcd", "yxx", "urn:nbn:de:1", "aabac", "abc", "a", "b", "babab", "abcabc"}
	for _, ere := range eres {
		x, err := ParseSubst("!" + ere + "!x!")
		if err != nil {
			t.Fatalf("%s: %v", ere, err)
		}
		posix := regexp.MustCompilePOSIX(ere)
		for _, in := range inputs {
			if a, b := x.re.FindStringIndex(in), posix.FindStringIndex(in); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s on %q: %v, Go's POSIX %v", ere, in, a, b)
			}
		}
	}
}

func TestTTLCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newTTLCache(3, 1<<20)
	k := func(i int) qkey { return qkey{fmt.Sprintf("k%d.", i), dns.TypeNAPTR} }
	for i := range 3 {
		c.put(k(i), cacheEntry{ans: &answer{size: 100}, expires: now.Add(time.Duration(i+1) * time.Second)}, true)
	}
	if _, ok := c.get(k(0), now); !ok { // k0 is now the most recent
		t.Fatal("k0 missing")
	}
	c.put(k(3), cacheEntry{ans: &answer{size: 100}, expires: now.Add(time.Hour)}, true)
	if _, ok := c.get(k(1), now); ok || c.len() != 3 {
		t.Fatal("least recently used entry kept")
	}
	if _, ok := c.get(k(0), now.Add(time.Second)); ok {
		t.Fatal("expired entry returned")
	}
	c.put(k(3), cacheEntry{}, false) // TTL 0: drop
	if _, ok := c.get(k(3), now); ok {
		t.Fatal("TTL 0 kept")
	}
	// The byte bound: entries weigh twice their wire size.
	b := newTTLCache(100, 10_000)
	for i := range 10 {
		b.put(k(i), cacheEntry{ans: &answer{size: 2000}, expires: now.Add(time.Hour)}, true)
	}
	if b.len() != 2 || b.bytes > 10_000 {
		t.Fatalf("%d entries, %d bytes", b.len(), b.bytes)
	}
	b.put(k(99), cacheEntry{ans: &answer{size: 6000}, expires: now.Add(time.Hour)}, true)
	if _, ok := b.get(k(99), now); ok {
		t.Fatal("an entry over the whole bound was kept")
	}
}
