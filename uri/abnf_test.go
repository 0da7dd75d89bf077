package uri

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// abnfRefs is RFC 3986 Appendix A written out as regular expressions, an
// oracle independent of the parser: the grammar is regular, and Go's
// regexp picks among alternatives as a backtracking matcher would, so
// listing IPv4address before reg-name gives §3.2.2's first-match-wins.
// The first expression is URI, the second relative-ref (§4.1 tries them
// in that order).
var abnfRefs = func() [2]*regexp.Regexp {
	const (
		unreserved = `[A-Za-z0-9\-._~]`
		subDelims  = `[!$&'()*+,;=]`
		pct        = `%[0-9A-Fa-f]{2}`
		h16        = `[0-9A-Fa-f]{1,4}`
		decOctet   = `(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])`
	)
	pchar := `(?:` + unreserved + `|` + pct + `|` + subDelims + `|[:@])`
	ipv4 := decOctet + `\.` + decOctet + `\.` + decOctet + `\.` + decOctet
	ls32 := `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
	groups := func(n string) string { return `(?:` + h16 + `:)` + n }
	upTo := func(n string) string { return `(?:(?:` + h16 + `:)` + n + h16 + `)?` }
	ipv6 := `(?:` + strings.Join([]string{
		groups(`{6}`) + ls32,
		`::` + groups(`{5}`) + ls32,
		`(?:` + h16 + `)?::` + groups(`{4}`) + ls32,
		upTo(`{0,1}`) + `::` + groups(`{3}`) + ls32,
		upTo(`{0,2}`) + `::` + groups(`{2}`) + ls32,
		upTo(`{0,3}`) + `::` + h16 + `:` + ls32,
		upTo(`{0,4}`) + `::` + ls32,
		upTo(`{0,5}`) + `::` + h16,
		upTo(`{0,6}`) + `::`,
	}, `|`) + `)`
	ipvFuture := `[vV][0-9A-Fa-f]+\.(?:` + unreserved + `|` + subDelims + `|:)+`
	regName := `(?:` + unreserved + `|` + pct + `|` + subDelims + `)*`
	userinfo := `(?:` + unreserved + `|` + pct + `|` + subDelims + `|:)*`
	// The IPv4address alternative must be followed by what ends a host;
	// RE2 has no lookahead, so the port and path are spelled out after it.
	port := `(?::(?P<port>[0-9]*))?`
	abempty := `(?:/` + pchar + `*)*`
	tail := port + `(?P<pathA>` + abempty + `)`
	authority := `//(?:(?P<userinfo>` + userinfo + `)@)?(?:` +
		`\[(?P<ipv6>` + ipv6 + `)\]` + tail + `|` +
		`\[(?P<ipvfuture>` + ipvFuture + `)\]` + tail + `|` +
		`(?P<ipv4>` + ipv4 + `)` + tail + `|` +
		`(?P<regname>` + regName + `)` + tail + `)`
	segNZ := pchar + `+`
	segNZNC := `(?:` + unreserved + `|` + pct + `|` + subDelims + `|@)+`
	rest := `(?:/` + pchar + `*)*`
	query := `(?:\?(?P<query>(?:` + pchar + `|[/?])*))?(?:#(?P<fragment>(?:` + pchar + `|[/?])*))?`
	uri := `^(?P<scheme>[A-Za-z][A-Za-z0-9+\-.]*):(?:` + authority + `|(?P<pathB>/(?:` + segNZ + rest + `)?|` + segNZ + rest + `|))` + query + `$`
	rel := `^(?:` + authority + `|(?P<pathB>/(?:` + segNZ + rest + `)?|` + segNZNC + rest + `|))` + query + `$`
	return [2]*regexp.Regexp{regexp.MustCompile(uri), regexp.MustCompile(rel)}
}()

// abnfParse returns the components of s as the Appendix A expressions see
// them, in the order of parseFields; ok is false when s is no URI-reference.
func abnfParse(s string) (c [7]string, kind HostKind, ok bool) {
	for _, re := range abnfRefs {
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		group := func(name string) (string, bool) {
			i := re.SubexpIndex(name)
			if i < 0 { // "scheme" in relative-ref
				return "", false
			}
			// Some names occur in several alternatives: the one that took part wins.
			for ; i < len(re.SubexpNames()); i++ {
				if re.SubexpNames()[i] == name && m[2*i] >= 0 {
					return s[m[2*i]:m[2*i+1]], true
				}
			}
			return "", false
		}
		mark := func(v string, ok bool) string {
			if !ok {
				return "<none>"
			}
			return v
		}
		c[0] = mark(group("scheme"))
		c[1] = mark(group("userinfo"))
		c[2] = "<none>"
		for _, h := range []struct {
			name string
			kind HostKind
		}{{"ipv6", IPv6}, {"ipvfuture", IPvFuture}, {"ipv4", IPv4}, {"regname", RegName}} {
			if v, ok := group(h.name); ok {
				c[2], kind = v, h.kind
				break
			}
		}
		c[3] = mark(group("port"))
		if p, ok := group("pathA"); ok {
			c[4] = p
		} else {
			c[4], _ = group("pathB")
		}
		c[5] = mark(group("query"))
		c[6] = mark(group("fragment"))
		return c, kind, true
	}
	return c, NoHost, false
}

func parseFields(u URI) (c [7]string, kind HostKind) {
	mark := func(v string, ok bool) string {
		if !ok {
			return "<none>"
		}
		return v
	}
	c[0] = mark(u.Scheme(), u.HasScheme())
	c[1] = mark(u.Userinfo(), u.HasUserinfo())
	c[2] = mark(u.Host(), u.HasAuthority())
	c[3] = mark(u.Port(), u.HasPort())
	c[4] = u.Path()
	c[5] = mark(u.Query(), u.HasQuery())
	c[6] = mark(u.Fragment(), u.HasFragment())
	return c, u.HostKind()
}

// TestParseMatchesABNF compares ParseReference with the Appendix A
// expressions on inputs made of URI fragments and stray characters, the
// same seed every run: what one accepts the other must, with the same
// components and host kind.
func TestParseMatchesABNF(t *testing.T) {
	tokens := []string{
		"a", "B", "z", "v", "V", "F", "0", "1", "2", "5", "9", "25", "255", "256", "04",
		".", "..", "/", "//", "?", "#", "@", ":", "::", "[", "]", "%", "%41", "%2e", "%2F",
		"%zz", "%4", "-", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=",
		" ", "\\", "^", "|", "<", "\x00", "\x7f", "\xc3\xa9",
		"http:", "HTTP:", "foo:", "//a", "1.2.3.4", "1.2.3", "::1", "ffff", "12345",
		"[::1]", "[v1.x]", "[::ffff:1.2.3.4]", "[1:2:3:4:5:6:7:8]", "./", "../", "/./", "/../",
	}
	ipTokens := []string{
		"1", "1", "ab", "FFFF", "0", "0", "12345", "g", "", ":", "%25x",
		"1.2.3.4", "255.0.0.1", "01.2.3.4", "1.2.3", "v1.x",
	}
	rng := rand.New(rand.NewSource(3986))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		if rng.Intn(2) == 0 {
			// An IP-literal: up to nine groups, maybe a "::" among them,
			// maybe a dotted quad at the end, now and then a stray
			// token; the nine IPv6address alternatives need such runs.
			b.WriteString("//[")
			groups := rng.Intn(10)
			double := rng.Intn(groups + 2)
			for g := 0; g < groups; g++ {
				switch {
				case g == double:
					b.WriteString("::")
				case g > 0:
					b.WriteString(":")
				}
				if rng.Intn(8) == 0 {
					b.WriteString(ipTokens[rng.Intn(len(ipTokens))])
				} else {
					b.WriteString([]string{"1", "ab", "FFFF", "0"}[rng.Intn(4)])
				}
			}
			if double == groups && rng.Intn(2) == 0 {
				b.WriteString("::")
			}
			if rng.Intn(3) == 0 {
				b.WriteString([]string{":1.2.3.4", "::255.0.0.1", ":01.2.3.4", ":1.2.3", "1.2.3.4"}[rng.Intn(5)])
			}
			b.WriteString([]string{"]", "]", "]:80/p", "", "]x"}[rng.Intn(5)])
		} else {
			for k := rng.Intn(12); k > 0; k-- {
				b.WriteString(tokens[rng.Intn(len(tokens))])
			}
		}
		s := b.String()
		want, wantKind, valid := abnfParse(s)
		u, err := ParseReference(s)
		switch {
		case !valid && err == nil:
			t.Errorf("ParseReference(%q) accepts what Appendix A rejects", s)
		case valid && err != nil:
			t.Errorf("ParseReference(%q): %v; Appendix A accepts it", s, err)
		case valid:
			if got, gotKind := parseFields(u); got != want || gotKind != wantKind {
				t.Errorf("ParseReference(%q) = %q %v, Appendix A gives %q %v", s, got, gotKind, want, wantKind)
			}
		}
	}
}
