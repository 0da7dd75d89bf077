package uri

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// recompose writes u back from its components (RFC 3986 §5.3); for every
// parsed reference it must give the input again.
func recompose(u URI) string {
	var b strings.Builder
	if u.HasScheme() {
		b.WriteString(u.Scheme())
		b.WriteByte(':')
	}
	if u.HasAuthority() {
		b.WriteString("//")
		if u.HasUserinfo() {
			b.WriteString(u.Userinfo())
			b.WriteByte('@')
		}
		switch u.HostKind() {
		case IPv6, IPvFuture:
			b.WriteString("[" + u.Host() + "]")
		default:
			b.WriteString(u.Host())
		}
		if u.HasPort() {
			b.WriteByte(':')
			b.WriteString(u.Port())
		}
	}
	b.WriteString(u.Path())
	if u.HasQuery() {
		b.WriteByte('?')
		b.WriteString(u.Query())
	}
	if u.HasFragment() {
		b.WriteByte('#')
		b.WriteString(u.Fragment())
	}
	return b.String()
}

// checkParseFuncs runs Parse, ParseReference and the AllowZoneID parser
// on s, and checks the offset of every error; it returns Parse's error.
func checkParseFuncs(t *testing.T, s string) error {
	t.Helper()
	zp := Parser{AllowZoneID: true}
	var errParse error
	for _, f := range []struct {
		name  string
		parse func(string) (URI, error)
	}{
		{"Parse", Parse},
		{"ParseReference", ParseReference},
		{"ParseAbsolute", ParseAbsolute},
		{"Parser{AllowZoneID}.ParseReference", zp.ParseReference},
	} {
		_, err := f.parse(s)
		if f.name == "Parse" {
			errParse = err
		}
		if err != nil {
			checkParseError(t, s, err)
			checkOffset(t, f.name, f.parse, s, err)
		}
	}
	return errParse
}

// checkParseError checks that err is a well-formed *Error for input s.
func checkParseError(t *testing.T, s string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is not an *Error", s, err)
	}
	if e.Input != s || e.Offset < 0 || e.Offset > len(s) || e.Reason == "" {
		t.Fatalf("%q: bad error %#v", s, e)
	}
}

// checkOffset checks the rule of Error.Offset on an input s that parse
// rejected with err: the offset is the end of the longest prefix of s that
// some text could still complete into a valid input. So the prefix before
// the offset is rejected only for ending too early, and the prefix that
// takes in the offending byte fails at the same offset.
func checkOffset(t *testing.T, name string, parse func(string) (URI, error), s string, err error) {
	t.Helper()
	off := err.(*Error).Offset
	if _, err := parse(s[:off]); err != nil && err.(*Error).Offset != off {
		t.Fatalf("%s(%q) fails at %d, but its prefix %q fails at %d: %v", name, s, off, s[:off], err.(*Error).Offset, err)
	}
	if off < len(s) {
		if _, err := parse(s[:off+1]); err == nil || err.(*Error).Offset != off {
			t.Fatalf("%s(%q) fails at %d, but its prefix %q gives %v", name, s, off, s[:off+1], err)
		}
	}
}

func FuzzParseReference(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseReference(s)
		zp := Parser{AllowZoneID: true}
		uz, errZ := zp.ParseReference(s)
		if errP := checkParseFuncs(t, s); err != nil {
			checkParseError(t, s, err)
			if errP == nil {
				t.Fatalf("%q: Parse accepts what ParseReference rejects", s)
			}
			if errZ == nil && !uz.has(hasZone) {
				t.Fatalf("%q: AllowZoneID accepts without a zone what the strict parser rejects: %v", s, err)
			}
			return
		}
		if errZ != nil || uz != u {
			t.Fatalf("%q: AllowZoneID parser differs: %v", s, errZ)
		}
		if u.String() != s {
			t.Fatalf("String() = %q, want %q", u.String(), s)
		}
		if r := recompose(u); r != s {
			t.Fatalf("%q: components recompose to %q", s, r)
		}
		v, err := ParseReference(u.String())
		if err != nil || v != u {
			t.Fatalf("%q: re-parse gives %#v, %v; want %#v", s, v, err, u)
		}
		// Parse and ParseAbsolute agree with ParseReference.
		p, errP := Parse(s)
		if u.HasScheme() {
			if errP != nil || p != u {
				t.Fatalf("%q: Parse = %#v, %v; ParseReference = %#v", s, p, errP, u)
			}
		} else if errP == nil {
			t.Fatalf("%q: Parse accepts a reference without a scheme", s)
		} else {
			checkParseError(t, s, errP)
		}
		a, errA := ParseAbsolute(s)
		if u.IsAbsolute() != (errA == nil) || errA == nil && a != u {
			t.Fatalf("%q: ParseAbsolute = %#v, %v; IsAbsolute %v", s, a, errA, u.IsAbsolute())
		}
		if u.IsRelative() == u.HasScheme() {
			t.Fatalf("%q: IsRelative and HasScheme agree", s)
		}
		switch u.HostKind() {
		case IPv4, IPv6:
			if _, ok := u.Addr(); !ok {
				t.Fatalf("%q: host %q of kind %v has no Addr", s, u.Host(), u.HostKind())
			}
		default:
			if _, ok := u.Addr(); ok {
				t.Fatalf("%q: host %q of kind %v has an Addr", s, u.Host(), u.HostKind())
			}
		}
		if u.HasAuthority() != (u.HostKind() != NoHost) {
			t.Fatalf("%q: authority %v but host kind %v", s, u.HasAuthority(), u.HostKind())
		}
		if u.HostKind() == IPv4 && !isIPv4(u.Host()) {
			t.Fatalf("%q: %q is no IPv4address", s, u.Host())
		}
		for _, d := range []string{u.DecodedUserinfo(), u.DecodedHost(), u.DecodedPath(), u.DecodedQuery(), u.DecodedFragment()} {
			_ = d
		}
		if w := u.WithoutFragment(); w.HasFragment() || !strings.HasPrefix(s, w.String()) {
			t.Fatalf("%q: WithoutFragment = %q", s, w)
		} else if x, err := ParseReference(w.String()); err != nil || x != w {
			t.Fatalf("%q: WithoutFragment = %#v, parsed again %#v, %v", s, w, x, err)
		}
	})
}

func FuzzNormalize(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parser{AllowZoneID: true}.ParseReference(s)
		if err != nil {
			return
		}
		for _, level := range []Level{Syntax, SchemeBased} {
			n := u.Normalize(level) // panics if the result does not parse
			if got := string(u.AppendNormalized(nil, level)); got != n.String() {
				t.Fatalf("%q at %v: AppendNormalized %q, Normalize %q", s, level, got, n)
			}
			if n2 := n.Normalize(level); n2 != n {
				t.Fatalf("%q at %v: not idempotent: %q then %q", s, level, n, n2)
			}
			if !Equal(u, n, level) || !Equal(n, u, level) {
				t.Fatalf("%q at %v: not Equal to its normal form %q", s, level, n)
			}
			if n.HasScheme() != u.HasScheme() || n.HasAuthority() != u.HasAuthority() ||
				n.HasQuery() != u.HasQuery() || n.HasFragment() != u.HasFragment() || n.HasUserinfo() != u.HasUserinfo() {
				t.Fatalf("%q at %v: components lost or gained in %q", s, level, n)
			}
			if p := n.Path(); n.HasScheme() {
				// No dot segment is left (the "/." guard apart).
				if !n.HasAuthority() && strings.HasPrefix(p, "/.//") {
					p = p[2:]
				}
				if RemoveDotSegments(p) != p {
					t.Fatalf("%q at %v: %q keeps dot segments", s, level, n)
				}
			}
			if n.DecodedQuery() != u.DecodedQuery() || n.DecodedFragment() != u.DecodedFragment() || n.DecodedUserinfo() != u.DecodedUserinfo() {
				t.Fatalf("%q at %v: data changed in %q", s, level, n)
			}
		}
		// The levels build on each other.
		if a, b := u.Normalize(Syntax).Normalize(SchemeBased), u.Normalize(SchemeBased); a != b {
			t.Fatalf("%q: scheme-based normalization of the syntax form %q differs from %q", s, a, b)
		}
		if u.Normalize(Simple) != u || !Equal(u, u, Simple) {
			t.Fatalf("%q: simple normalization changed it", s)
		}
	})
}

func FuzzResolve(f *testing.F) {
	f.Fuzz(func(t *testing.T, base, ref string) {
		zp := Parser{AllowZoneID: true}
		b, errB := zp.ParseReference(base)
		r, errR := zp.ParseReference(ref)
		if errB != nil || errR != nil {
			return
		}
		res, err := b.Resolve(r)
		if !b.HasScheme() {
			if err == nil {
				t.Fatalf("%q against %q: resolved against a base without a scheme", ref, base)
			}
			checkParseError(t, base, err)
			return
		}
		if err != nil {
			t.Fatalf("%q against %q: %v", ref, base, err)
		}
		if !res.HasScheme() {
			t.Fatalf("%q against %q gives %q, without a scheme", ref, base, res)
		}
		if res2, err := b.Resolve(r); err != nil || res2 != res {
			t.Fatalf("%q against %q: %q then %q", ref, base, res, res2)
		}
		if txt, _ := AppendResolved(nil, b, r, 0); string(txt) != res.String() {
			t.Fatalf("%q against %q: AppendResolved %q, Resolve %q", ref, base, txt, res)
		}
		if res.HasFragment() != r.HasFragment() || res.Fragment() != r.Fragment() {
			t.Fatalf("%q against %q gives %q: the fragment is the reference's (§5.2.2)", ref, base, res)
		}
		// A base's fragment plays no part (§5.1).
		if res3, err := b.WithoutFragment().Resolve(r); err != nil || res3 != res {
			t.Fatalf("%q against %q: %q; without the base's fragment %q, %v", ref, base, res, res3, err)
		}
		for _, opt := range []ResolveOption{SameSchemeIsRelative, RFC2396, RFC2396 | SameSchemeIsRelative, Draft1997, Draft1997 | SameSchemeIsRelative} {
			v, err := b.ResolveWith(r, opt)
			if err != nil || !v.HasScheme() {
				t.Fatalf("%q against %q with option %d: %q, %v", ref, base, opt, v, err)
			}
		}
	})
}

// buildFlags are the bits of FuzzBuild's flags argument.
const (
	fbAuthority = 1 << iota
	fbUserinfo
	fbQuery
	fbFragment
)

func FuzzBuild(f *testing.F) {
	f.Fuzz(func(t *testing.T, scheme, userinfo, host, port, path, query, fragment string, flags uint8) {
		p := Parts{
			Scheme: scheme, HasAuthority: flags&fbAuthority != 0,
			Userinfo: userinfo, HasUserinfo: flags&fbUserinfo != 0,
			Host: host, Port: port, Path: path,
			Query: query, HasQuery: flags&fbQuery != 0,
			Fragment: fragment, HasFragment: flags&fbFragment != 0,
		}
		u, err := Build(p)
		if err != nil {
			if !buildShouldFail(p) {
				t.Fatalf("Build(%#v): %v", p, err)
			}
			return
		}
		if txt, _ := AppendBuild(nil, p); string(txt) != u.String() {
			t.Fatalf("Build(%#v): AppendBuild %q, Build %q", p, txt, u)
		}
		checkBuilt(t, p, u)
	})
}

// buildShouldFail reports whether Parts break one of the rules Build
// documents: a scheme is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), a port
// is digits, a path after an authority is empty or starts with '/', a path
// without one does not start with "//", an IPvFuture host is well-formed.
func buildShouldFail(p Parts) bool {
	if p.Scheme != "" {
		if !is(p.Scheme[0], cAlpha) {
			return true
		}
		for i := 1; i < len(p.Scheme); i++ {
			if !is(p.Scheme[i], cScheme) {
				return true
			}
		}
	}
	auth := p.HasAuthority || p.HasUserinfo || p.Userinfo != "" || p.Host != "" || p.Port != ""
	for i := 0; i < len(p.Port); i++ {
		if !is(p.Port[i], cDigit) {
			return auth
		}
	}
	if auth && p.Path != "" && p.Path[0] != '/' || !auth && strings.HasPrefix(p.Path, "//") {
		return true
	}
	h := p.Host
	switch {
	case !auth:
		return false
	case len(h) > 2 && h[0] == '[' && h[len(h)-1] == ']' && (h[1] == 'v' || h[1] == 'V'):
		u, err := ParseReference("//" + h)
		return err != nil || u.HostKind() != IPvFuture
	case len(h) > 2 && h[0] == '[' && h[len(h)-1] == ']':
		// An IPv6 address in brackets, without a zone.
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		return err != nil || !a.Is6() || a.Zone() != "" || strings.Contains(h, "%")
	case strings.ContainsAny(h, "[]"):
		return true
	case strings.Contains(h, ":"):
		a, err := netip.ParseAddr(h)
		return err != nil || !a.Is6() || a.Zone() != "" || strings.Contains(h, "%")
	}
	return false
}

// checkBuilt checks that u, built from p, gives p's parts back.
func checkBuilt(t *testing.T, p Parts, u URI) {
	t.Helper()
	auth := p.HasAuthority || p.HasUserinfo || p.Userinfo != "" || p.Host != "" || p.Port != ""
	host := u.DecodedHost()
	if u.HostKind() == IPvFuture || u.HostKind() == IPv6 && strings.HasPrefix(p.Host, "[") {
		host = "[" + host + "]"
	}
	// The host keeps its meaning: an IPv6 address given is one built.
	if a, err := netip.ParseAddr(strings.Trim(p.Host, "[]")); err == nil && a.Is6() && u.HostKind() != IPv6 {
		t.Errorf("Build(%+v): host %q became a %v", p, p.Host, u.HostKind())
	}
	switch {
	case u.Scheme() != p.Scheme,
		u.HasAuthority() != auth,
		u.HasUserinfo() != (auth && (p.HasUserinfo || p.Userinfo != "")),
		auth && u.DecodedUserinfo() != p.Userinfo,
		auth && host != p.Host,
		u.Port() != p.Port,
		u.DecodedPath() != p.Path,
		u.HasQuery() != (p.HasQuery || p.Query != ""),
		u.DecodedQuery() != p.Query,
		u.HasFragment() != (p.HasFragment || p.Fragment != ""),
		u.DecodedFragment() != p.Fragment:
		t.Fatalf("Build(%#v) = %q: parts do not come back (host %q)", p, u, host)
	}
	if strings.IndexByte(p.Host, ':') >= 0 && u.HostKind() == IPv6 {
		if _, ok := u.Addr(); !ok {
			t.Fatalf("Build(%#v) = %q: IPv6 host without an Addr", p, u)
		}
	}
}

// FuzzParseUserInput: no panic; an error is an *Error about the caller's
// input with an offset inside it and a kind; a result is a URI that Parse
// accepts, which cleaning again leaves as it is.
func FuzzParseUserInput(f *testing.F) {
	for _, s := range []string{
		"<URL: http://www.example.com/a\n   b>", "www.example.com/x y", "localhost:8080", "example.com/x",
		"\"http://x/\"", "http://éé@a:8x/ b", "http://x/%zz", "//x/y", "http://[::1/é", "<<<http://a/>>>",
		"URL:URL:http://a/", "http://a/multi-\n part", "mailto:Jörg@example.com", "http://a/#b#c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUserInput(s)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Input != s || e.Offset < 0 || e.Offset > len(s) || e.Kind == nil || e.Reason == "" {
				t.Fatalf("%q: bad error %#v", s, err)
			}
			return
		}
		if _, err := Parse(u.String()); err != nil {
			t.Fatalf("%q -> %q: %v", s, u, err)
		}
		if v, err := ParseUserInput(u.String()); err != nil || v != u {
			t.Fatalf("%q -> %q -> %q, %v", s, u, v, err)
		}
	})
}
