package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/memstore"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type fedProblem struct {
	Type, Title, Detail, Field string
	Offset                     *int
}

// fedGet sends GET target to srv and returns the answer with its body
// read as a problem (zero when it is not one).
func fedGet(t *testing.T, srv *httptest.Server, target string) (*http.Response, fedProblem) {
	t.Helper()
	res, err := noRedirect.Get(srv.URL + target)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var p fedProblem
	json.Unmarshal(body, &p)
	return res, p
}

// startFederated starts a resolver over st with the real Delegator of
// resolver/federate, asking the DNS server at dnsAddr ("" for none).
func startFederated(t *testing.T, st resolver.Store, opts federate.Options, clock func() time.Time) (*resolver.Service, *httptest.Server) {
	t.Helper()
	svc := resolver.New(st, resolver.Options{AdminToken: "admin", Clock: clock})
	d, err := federate.New(svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Delegator: d}))
	t.Cleanup(srv.Close)
	return svc, srv
}

// TestRuleTargetChecks: POST /api/v1/rules refuses, with 400 and the
// byte offset of the fault in field "target", a target the redirect could
// not be built from or should not go to: no host, a port out of range,
// userinfo (trusted@evil), longer than a location may be. A rule stored
// before these checks (written to the store directly here) is never
// followed: its names get 502 delegation-failed, not a 500 and not a
// redirect to the userinfo's host.
func TestRuleTargetChecks(t *testing.T) {
	st := memstore.New()
	_, srv := startFederated(t, st, federate.Options{}, nil)
	long := "https://r.example/" + strings.Repeat("a", 70<<10)
	for i, c := range []struct {
		target string
		offset int
	}{
		{"http:///x", 7},
		{"http:foo", 5},
		{"https:", 6},
		{"http://:80/", 7},
		{"https://h.example:99999/", 18},
		{"https://h.example:0/", 18},
		{"https://[::1]:65536/", 14},
		{"http://user:pass@evil.example/", 7},
		{"http://trusted.example@evil.example/", 7},
		{"http://@evil.example/", 7},
		{long, resolver.MaxURLBytes},
		{"https://r.example/?x", 18},
		// A percent-encoded host: a browser decodes it, and goes to
		// bank.example.evil.example, which it does not read as.
		{"http://bank.example%2Eevil.example/", 19},
		{"http://%65vil.example/", 7},
	} {
		body, _ := json.Marshal(map[string]string{"prefix": fmt.Sprintf("urn:t%d:", i), "target": c.target})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/rules", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer admin")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var p fedProblem
		json.Unmarshal(b, &p)
		if res.StatusCode != http.StatusBadRequest || p.Field != "target" || p.Offset == nil || *p.Offset != c.offset {
			t.Errorf("%.60q: %d %.300s, want 400 about target at %d", c.target, res.StatusCode, b, c.offset)
		}
	}
	// Still taken: a port, an IP literal, a path, an empty port (RFC 3986
	// §3.2.3: the scheme's default).
	for i, target := range []string{"https://h.example:8443/x", "http://[::1]:8080/", "http://127.0.0.1/", "http://h.example:/"} {
		if _, err := resolver.NewRule(fmt.Sprintf("urn:ok%d:", i), target); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}

	// Rules stored before the checks.
	for _, r := range []resolver.Rule{
		{Prefix: "urn:old1:", Target: "http:///x"},
		{Prefix: "urn:old2:", Target: "http://trusted.example@evil.example/"},
		{Prefix: "urn:old3:", Target: "https://h.example:99999/"},
	} {
		r.Created = time.Now()
		if err := st.Update(context.Background(), func(tx resolver.Tx) error { return tx.InsertRule(context.Background(), &r) }); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"urn:old1:x", "urn:old2:x", "urn:old3:x"} {
		for _, target := range []string{"/" + name, "/uri-res/N2L?" + name, "/uri-res/N2C?" + name} {
			res, p := fedGet(t, srv, target)
			if res.StatusCode != http.StatusBadGateway || res.Header.Get("Location") != "" || !strings.HasSuffix(p.Type, "#delegation-failed") {
				t.Errorf("%s: %d %q %+v, want 502 delegation-failed", target, res.StatusCode, res.Header.Get("Location"), p)
			}
		}
	}
}

// naptrServer is a DNS server on loopback that answers NAPTR questions
// from zone (owner → records in zone-file form) and NXDOMAIN otherwise.
func naptrServer(t *testing.T, zone map[string][]string) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ds := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		texts, ok := zone[strings.ToLower(q.Question[0].Name)]
		if !ok || q.Question[0].Qtype != dns.TypeNAPTR {
			m.Rcode = dns.RcodeNameError
		}
		for _, text := range texts {
			rr, err := dns.NewRR(text)
			if err != nil {
				panic(err)
			}
			m.Answer = append(m.Answer, rr)
		}
		w.WriteMsg(m)
	})}
	go ds.ActivateAndServe()
	t.Cleanup(func() { ds.Shutdown() })
	return pc.LocalAddr().String()
}

// TestDDDSOutputChecks: a "U" rule whose output is longer than a location
// may be (a replacement that repeats a back-reference 110 times), or that
// has a userinfo, is passed over for the next rule of the same ORDER, as
// other refused outputs are; with no other rule the name is 404. Before,
// the first gave a 303 whose Location was 110 times the name's length.
func TestDDDSOutputChecks(t *testing.T) {
	const good = `"!^urn:[a-z]+:(.*)$!https://good.example/\\1!" .`
	zone := map[string][]string{
		"big.urn.arpa.": {
			`big.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^(.*)$!http://x.example/` + strings.Repeat(`\\1`, 110) + `!" .`,
			`big.urn.arpa. 300 IN NAPTR 100 20 "U" "THTTP+I2L" ` + good,
		},
		"user.urn.arpa.": {
			`user.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^urn:[a-z]+:(.*)$!http://trusted.example@evil.example/\\1!" .`,
			`user.urn.arpa. 300 IN NAPTR 100 20 "U" "THTTP+I2L" ` + good,
		},
		"bigonly.urn.arpa.": {
			`bigonly.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^(.*)$!http://x.example/` + strings.Repeat(`\\1`, 110) + `!" .`,
			`bigonly.urn.arpa. 300 IN NAPTR 200 10 "U" "THTTP+I2L" ` + good, // another ORDER: never considered
		},
		"useronly.urn.arpa.": {
			`useronly.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^urn:[a-z]+:(.*)$!https://u:p@evil.example/\\1!" .`,
		},
		// A percent-encoded host, and ports out of range, as a rule's
		// target refuses them.
		"pct.urn.arpa.": {
			`pct.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^urn:[a-z]+:(.*)$!http://bank.example%2Eevil.example/\\1!" .`,
		},
		"port.urn.arpa.": {
			`port.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^urn:[a-z]+:(.*)$!http://x.example:0/\\1!" .`,
			`port.urn.arpa. 300 IN NAPTR 100 20 "U" "THTTP+I2L" "!^urn:[a-z]+:(.*)$!http://x.example:99999/\\1!" .`,
		},
	}
	_, srv := startFederated(t, memstore.New(), federate.Options{DNS: naptrServer(t, zone)}, nil)
	nss := strings.Repeat("n", 200)
	for _, c := range []struct{ name, loc string }{
		{"urn:big:" + nss, "https://good.example/" + nss},
		{"urn:user:abc", "https://good.example/abc"},
		{"urn:bigonly:" + nss, ""},
		{"urn:useronly:abc", ""},
		{"urn:pct:abc", ""},
		{"urn:port:abc", ""},
	} {
		res, _ := fedGet(t, srv, "/uri-res/N2L?"+c.name)
		loc := res.Header.Get("Location")
		switch {
		case c.loc != "" && (res.StatusCode != http.StatusSeeOther || loc != c.loc):
			t.Errorf("%.40s: %d %.100q (%d bytes), want 303 to %.60s", c.name, res.StatusCode, loc, len(loc), c.loc)
		case c.loc == "" && (res.StatusCode != http.StatusNotFound || loc != ""):
			t.Errorf("%.40s: %d %.100q (%d bytes), want 404", c.name, res.StatusCode, loc, len(loc))
		}
	}
}

// TestDDDSDeadServer: a DNS server that reads every question and never
// answers gives every request 503 delegation-unavailable, however it
// waited (for a look-up slot, or for a look-up under way whose own timer
// runs a little behind the request's), never 504; and the failure is
// remembered: once the look-ups the first requests began have ended (the
// second round waits for those still under way), the same names asked
// again are answered 503 without another wait.
func TestDDDSDeadServer(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	const timeout = time.Second
	_, srv := startFederated(t, memstore.New(), federate.Options{DNS: pc.LocalAddr().String(), Timeout: timeout}, nil)
	round := func(round int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		got := map[string]int{}
		for n := range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, p := fedGet(t, srv, fmt.Sprintf("/uri-res/N2L?urn:n%d:x", n))
				mu.Lock()
				defer mu.Unlock()
				got[fmt.Sprintf("%d %s", res.StatusCode, p.Type[strings.LastIndexByte(p.Type, '#')+1:])]++
				if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") == "" {
					t.Errorf("round %d, urn:n%d:x: 503 without Retry-After", round, n)
				}
			}()
		}
		wg.Wait()
		if len(got) != 1 || got["503 delegation-unavailable"] != 60 {
			t.Errorf("round %d: %v, want 60 × 503 delegation-unavailable", round, got)
		}
	}
	round(1)
	round(2)
	start := time.Now()
	round(3)
	if d := time.Since(start); d > timeout/2 {
		t.Errorf("round 3 took %v: the failures were not remembered", d)
	}
}

// TestDelegatedAsOf: an as-of in the draft's query form
// ("/<urn>?as-of=…") goes along when the name is delegated, in the
// r-component the peer reads, as the r-component form does; the peer then
// answers the name as it was then, not as it is now.
func TestDelegatedAsOf(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	peer, peerSrv := startFederated(t, memstore.New(), federate.Options{}, func() time.Time {
		clock = clock.Add(time.Hour)
		return clock
	})
	admin := resolver.Principal{Admin: true}
	auth, _, err := peer.CreateAuthority(ctx, admin, "Loop", []string{"urn:loop:"})
	if err != nil {
		t.Fatal(err)
	}
	m := resolver.Principal{Operator: true, AuthorityID: auth.ID}
	for _, loc := range []string{"https://example.org/then", "https://example.org/now"} {
		if _, _, err := peer.Put(ctx, m, "urn:loop:x", resolver.RecordInput{Locations: []resolver.Location{{URL: loc}}}); err != nil {
			t.Fatal(err)
		}
	}
	// "then" was written at 02:00 or 03:00, "now" an hour later.
	svc, srv := startFederated(t, memstore.New(), federate.Options{}, nil)
	if _, err := svc.AddRule(ctx, admin, "urn:loop:", peerSrv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	at := clock.Add(-30 * time.Minute).Format(time.RFC3339)
	for _, c := range []struct{ target, ref string }{
		{"/urn:loop:x?as-of=" + at, "urn:loop:x?+as-of=" + at + "&hops=1"},
		{"/urn:loop:x?hops=2&as-of=" + at, "urn:loop:x?+as-of=" + at + "&hops=3"},
		{"/urn:loop:x?s=I2L&as-of=" + at, "urn:loop:x?+as-of=" + at + "&hops=1"},
		{"/urn:loop:x?+as-of=" + at, "urn:loop:x?+as-of=" + at + "&hops=1"},
		{"/urn:loop:x", "urn:loop:x?+hops=1"},
	} {
		res, _ := fedGet(t, srv, c.target)
		want := peerSrv.URL + "/uri-res/N2L?" + c.ref
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("%s: %d %q, want 303 to %s", c.target, res.StatusCode, res.Header.Get("Location"), want)
			continue
		}
		res, err := noRedirect.Get(want)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc := "https://example.org/then"
		if !strings.Contains(c.ref, "as-of") {
			loc = "https://example.org/now"
		}
		if res.Header.Get("Location") != loc {
			t.Errorf("%s: the peer answers %d %q, want %s", c.target, res.StatusCode, res.Header.Get("Location"), loc)
		}
	}
}

// TestDelegatedHopsAtMax: the largest hop count a URN carries
// (999999999) is past the limit like any other: 508, not 400.
func TestDelegatedHopsAtMax(t *testing.T) {
	svc, srv := startFederated(t, memstore.New(), federate.Options{}, nil)
	if _, err := svc.AddRule(context.Background(), resolver.Principal{Admin: true}, "urn:loop:", "https://peer.example/"); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		"/uri-res/N2L?urn:loop:x?+hops=999999999",
		"/urn:loop:x?+hops=999999999",
		"/urn:loop:x?hops=999999999",
		"/uri-res/N2L?urn:loop:x?+hops=999999998",
	} {
		res, p := fedGet(t, srv, target)
		if res.StatusCode != http.StatusLoopDetected || !strings.HasSuffix(p.Type, "#loop-detected") {
			t.Errorf("%s: %d %+v, want 508", target, res.StatusCode, p)
		}
	}
}
