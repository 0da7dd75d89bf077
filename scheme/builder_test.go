package scheme

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/urikit/urikit/uri"
)

// pieces are the characters that break naive builders: every delimiter of
// the schemes here, escapes, controls, non-ASCII.
var pieces = []string{"a", "Z", "0", "9", "-", ".", "_", "~", " ", "/", "?", "#", "%", "%41", ";", "=", "&",
	",", "@", ":", "+", "!", "$", "'", "(", ")", "*", "é", "日本", "\t", "\r\n", "\x00", `"`, `\`, "[", "]",
	";type=a", "..", "<", ">", "%09"}

func randText(r *rand.Rand, max int) string {
	var b strings.Builder
	for n := r.IntN(max + 1); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randOpt(r *rand.Rand, max int) Opt {
	if r.IntN(3) == 0 {
		return Opt{}
	}
	return Some(randText(r, max))
}

func randHost(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return "2001:db8::1"
	case 1:
		return "192.0.2.1"
	case 2:
		return "ex%ample.com"
	}
	return "h" + randText(r, 3)
}

func randPort(r *rand.Rand, def int) int {
	switch r.IntN(3) {
	case 0:
		return 0
	case 1:
		return def
	}
	return r.IntN(65536)
}

func withDefault(port, def int) int {
	if port == 0 {
		return def
	}
	return port
}

// roundTrip checks a builder property: URI either fails or builds a URI
// that parses back to want.
type roundTrip struct {
	t        *testing.T
	built    int
	attempts int
}

func (rt *roundTrip) check(name string, in any, build func() (uri.URI, error), parse func(uri.URI) (any, error), want any) {
	rt.t.Helper()
	rt.attempts++
	u, err := build()
	if err != nil {
		return
	}
	rt.built++
	got, err := parse(u)
	if err != nil {
		rt.t.Errorf("%s: %+v built %s, which does not parse back: %v", name, in, u, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		rt.t.Errorf("%s: %+v built %s, which parses back as %+v", name, in, u, got)
	}
}

func TestBuildersRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rt := &roundTrip{t: t}
	for i := 0; i < 3000; i++ {
		h := HTTP{Scheme: []string{"http", "https", "ws", "wss"}[r.IntN(4)], Host: randHost(r), Port: randPort(r, 80),
			Path: "/" + randText(r, 6), Query: randOpt(r, 6)}
		wantH := h
		wantH.Port = withDefault(h.Port, DefaultPort(h.Scheme))
		rt.check("HTTP", h, h.URI, func(u uri.URI) (any, error) { return ParseHTTP(u) }, wantH)

		f := FTP{User: randOpt(r, 3), Password: randOpt(r, 3), Host: randHost(r), Port: randPort(r, 21),
			Typecode: []byte{0, 'a', 'i', 'd'}[r.IntN(4)]}
		for n := r.IntN(4); n > 0; n-- {
			f.Segments = append(f.Segments, randText(r, 3))
		}
		wantF := f
		wantF.Port = withDefault(f.Port, 21)
		if len(f.Segments) == 1 && f.Segments[0] == "" {
			wantF.Segments = nil
		}
		rt.check("FTP", f, f.URI, func(u uri.URI) (any, error) { return ParseFTP(u) }, wantF)

		g := Gopher{Host: randHost(r), Port: randPort(r, 70), Type: string("01789gIh+?"[r.IntN(10)]),
			Selector: randText(r, 5), Search: randOpt(r, 4), GopherPlus: randOpt(r, 4)}
		wantG := g
		wantG.Port = withDefault(g.Port, 70)
		rt.check("Gopher", g, g.URI, func(u uri.URI) (any, error) { return ParseGopher(u) }, wantG)

		n := News{Group: "comp." + randText(r, 3)}
		if r.IntN(2) == 0 {
			n = News{Article: randText(r, 3) + "x@" + randText(r, 3) + "y"}
		}
		if r.IntN(2) == 0 {
			n.Host, n.Port = Some(randHost(r)), randPort(r, 119)
		}
		wantN := n
		if n.Host.Set {
			wantN.Port = withDefault(n.Port, 119)
		}
		rt.check("News", n, n.URI, func(u uri.URI) (any, error) { return ParseNews(u) }, wantN)

		nn := NNTP{Host: randHost(r), Port: randPort(r, 119), Group: randText(r, 4)}
		if r.IntN(2) == 0 {
			nn.Article = "12345"
		}
		wantNN := nn
		wantNN.Port = withDefault(nn.Port, 119)
		rt.check("NNTP", nn, nn.URI, func(u uri.URI) (any, error) { return ParseNNTP(u) }, wantNN)

		tl := Telnet{Scheme: []string{"telnet", "rlogin", "tn3270"}[r.IntN(3)], User: randOpt(r, 3), Password: randOpt(r, 3),
			Host: randHost(r), Port: randPort(r, 23)}
		wantT := tl
		wantT.Port = withDefault(tl.Port, DefaultPort(tl.Scheme))
		rt.check("Telnet", tl, tl.URI, func(u uri.URI) (any, error) { return ParseTelnet(u) }, wantT)

		w := WAIS{Host: randHost(r), Port: randPort(r, 210), Database: randText(r, 4)}
		if r.IntN(2) == 0 {
			w.WType, w.WPath = Some(randText(r, 2)), Some(randText(r, 4))
		} else {
			w.Search = randOpt(r, 4)
		}
		wantW := w
		wantW.Port = withDefault(w.Port, 210)
		rt.check("WAIS", w, w.URI, func(u uri.URI) (any, error) { return ParseWAIS(u) }, wantW)

		p := Prospero{Host: randHost(r), Port: randPort(r, 1525), HSOName: randText(r, 5)}
		for k := r.IntN(3); k > 0; k-- {
			p.Params = append(p.Params, Param{"f" + randText(r, 2), randText(r, 3)})
		}
		if r.IntN(3) == 0 {
			p.Version = Some(randText(r, 2))
			if r.IntN(2) == 0 {
				p.Attributes = []string{randText(r, 2), randText(r, 2)}
			}
		}
		wantP := p
		wantP.Port = withDefault(p.Port, 1525)
		rt.check("Prospero", p, p.URI, func(u uri.URI) (any, error) { return ParseProspero(u) }, wantP)

		m := Mailto{To: []string{}, Body: randOpt(r, 6)}
		for k := r.IntN(3); k > 0; k-- {
			m.To = append(m.To, randText(r, 3)+"u@"+randText(r, 2)+"d")
		}
		for k := r.IntN(3); k > 0; k-- {
			m.Headers = append(m.Headers, Header{"x-" + strings.ToLower(randText(r, 2)), randText(r, 5)})
		}
		rt.check("Mailto", m, m.URI, func(u uri.URI) (any, error) { return ParseMailto(u) }, m)

		fl := File{Host: randOpt(r, 0), Path: "/" + randText(r, 5)}
		if r.IntN(3) == 0 {
			fl = File{Path: "c:/" + randText(r, 4)}
		}
		wantFl := fl
		if !fl.Host.Set {
			wantFl.Host = Some("")
		}
		if strings.HasPrefix(fl.Path, "c:") {
			wantFl.Path = "/" + fl.Path
		}
		rt.check("File", fl, fl.URI, func(u uri.URI) (any, error) { return ParseFile(u) }, wantFl)

		a := AFS{Cell: randHost(r), Path: randText(r, 5)}
		rt.check("AFS", a, a.URI, func(u uri.URI) (any, error) { return ParseAFS(u) }, a)
	}
	if rt.built < rt.attempts/2 {
		t.Errorf("only %d of %d builds succeeded; the generators are too hostile to test anything", rt.built, rt.attempts)
	}
	t.Logf("%d of %d builds succeeded and parsed back", rt.built, rt.attempts)
}

// TestMailtoBuilder is the example: several recipients and a
// subject with non-ASCII text.
func TestMailtoBuilder(t *testing.T) {
	m := Mailto{
		To:      []string{"alice@example.org", `"Bob, Jr."@example.net`, "c&d@example.com"},
		Headers: []Header{{"subject", "Grüße aus Köln — 1+1=2 & more?"}, {"cc", "eve@example.org"}},
		Body:    Some("line 1\r\nline 2"),
	}
	u, err := m.URI()
	if err != nil {
		t.Fatal(err)
	}
	const want = "mailto:alice@example.org,%22Bob%2C%20Jr.%22@example.net,c%26d@example.com" +
		"?subject=Gr%C3%BC%C3%9Fe%20aus%20K%C3%B6ln%20%E2%80%94%201+1%3D2%20%26%20more%3F&cc=eve@example.org&body=line%201%0D%0Aline%202"
	if u.String() != want {
		t.Errorf("built\n %s\nwant\n %s", u, want)
	}
	back, err := ParseMailto(u)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("parsed back as %+v, %v", back, err)
	}
	for _, bad := range []Mailto{
		{To: []string{"no-at-sign"}},
		{Headers: []Header{{"To", "x@y"}}},
		{Headers: []Header{{"a", "1"}, {"A", "2"}}},
		{Body: Some("\xff")},
	} {
		if u, err := bad.URI(); err == nil {
			t.Errorf("%+v built %s", bad, u)
		}
	}
}

// TestNormalizeIdempotent: scheme-based normalization of any URI the
// builders make is a fixed point.
func TestNormalizeIdempotent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		h := HTTP{Host: randHost(r), Port: randPort(r, 80), Path: "/" + randText(r, 6), Query: randOpt(r, 4)}
		u, err := h.URI()
		if err != nil {
			continue
		}
		n1 := u.Normalize(uri.SchemeBased)
		if n2 := n1.Normalize(uri.SchemeBased); n2 != n1 {
			t.Fatalf("Normalize(%s) = %s, then %s", u, n1, n2)
		}
	}
}
