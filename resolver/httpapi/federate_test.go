package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
	"github.com/urikit/urikit/resolver/federate"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/memstore"
)

// TestFederationLoop runs two resolvers on loopback with the real
// delegation rules of resolver/federate pointing at each other: a client
// that follows the redirects is handed back and forth with the hop count
// going up, and after DefaultMaxHops hand-overs gets 508 instead of
// another redirect. A third resolver that holds the name ends the chain.
func TestFederationLoop(t *testing.T) {
	ctx := context.Background()
	type node struct {
		svc *resolver.Service
		srv *httptest.Server
	}
	start := func() node {
		svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin"})
		d, err := federate.New(svc, federate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Delegator: d}))
		t.Cleanup(srv.Close)
		return node{svc, srv}
	}
	a, b, c := start(), start(), start()
	admin := resolver.Principal{Admin: true}
	rule := func(n node, prefix, target string) {
		if _, err := n.svc.AddRule(ctx, admin, prefix, target); err != nil {
			t.Fatal(err)
		}
	}
	rule(a, "urn:nbn:fi:", b.srv.URL+"/")
	rule(b, "urn:nbn:fi:", a.srv.URL+"/")
	// The more specific prefix goes on to c, which holds the name.
	rule(b, "urn:nbn:fi:held-", c.srv.URL+"/")
	auth, _, err := c.svc.CreateAuthority(ctx, admin, "FI", []string{"urn:nbn:fi:"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.svc.Put(ctx, resolver.Principal{Operator: true, AuthorityID: auth.ID}, "urn:nbn:fi:held-1",
		resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.fi/held-1"}}}); err != nil {
		t.Fatal(err)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	follow := func(url string) (hops []string, last *http.Response) {
		for range 20 {
			res, err := cl.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "http://127.0.0.1") {
				return hops, res
			}
			url = res.Header.Get("Location")
			hops = append(hops, url)
		}
		t.Fatalf("still redirected after 20 requests: %v", hops)
		return nil, nil
	}

	hops, last := follow(a.srv.URL + "/uri-res/I2L?urn:nbn:fi:loop-1")
	if last.StatusCode != http.StatusLoopDetected || len(hops) != httpapi.DefaultMaxHops {
		t.Fatalf("loop: %d after %d redirects %v", last.StatusCode, len(hops), hops)
	}
	for i, h := range hops {
		if !strings.HasSuffix(h, fmt.Sprintf("/uri-res/N2L?urn:nbn:fi:loop-1?+hops=%d", i+1)) {
			t.Fatalf("redirect %d: %s", i+1, h)
		}
	}
	// The path style and a q-component take the same route.
	hops, last = follow(a.srv.URL + "/urn:nbn:fi:loop-2?=lang=fi")
	if last.StatusCode != http.StatusLoopDetected || len(hops) != httpapi.DefaultMaxHops {
		t.Fatalf("path style loop: %d after %v", last.StatusCode, hops)
	}
	// a → b → c, which resolves the name.
	hops, last = follow(a.srv.URL + "/urn:nbn:fi:held-1")
	if last.StatusCode != http.StatusSeeOther || last.Header.Get("Location") != "https://example.fi/held-1" || len(hops) != 2 {
		t.Fatalf("held: %d %q after %v", last.StatusCode, last.Header.Get("Location"), hops)
	}
}

// TestDroppedAliasIsNotDelegated: an alias a record dropped stays reserved
// to it here, under a delegation rule for its prefix too. Every service,
// with and without as-of, answers 404 of type reserved instead of handing
// the name to the rule's resolver (which could give it to another
// resource: a name reused); the API says the same, and the client reads
// it back as ErrReserved. A name under the prefix that was never ours is
// still delegated.
func TestDroppedAliasIsNotDelegated(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin", Clock: func() time.Time {
		clock = clock.Add(time.Hour)
		return clock
	}})
	d, err := federate.New(svc, federate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Delegator: d}))
	t.Cleanup(srv.Close)
	admin := resolver.Principal{Admin: true}
	if _, err := svc.AddRule(ctx, admin, "urn:nbn:fi:", "https://elsewhere.example/"); err != nil {
		t.Fatal(err)
	}
	auth, tok, err := svc.CreateAuthority(ctx, admin, "FI", []string{"urn:nbn:fi:"})
	if err != nil {
		t.Fatal(err)
	}
	m := resolver.Principal{Operator: true, AuthorityID: auth.ID}
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.fi/1"}}, Aliases: []string{"urn:nbn:fi:old-1"}}
	first, _, err := svc.Put(ctx, m, "urn:nbn:fi:new-1", in)
	if err != nil {
		t.Fatal(err)
	}
	in.Aliases = nil
	if _, _, err := svc.Put(ctx, m, "urn:nbn:fi:new-1", in); err != nil {
		t.Fatal(err)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, header ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, res.Body); err != nil {
			t.Fatal(err)
		}
		return res, b.String()
	}
	later := clock.Add(time.Hour)
	for _, tc := range []struct {
		path   string
		header []string
	}{
		{"/uri-res/I2L?urn:nbn:fi:old-1", nil},
		{"/uri-res/N2Ls?urn:nbn:fi:old-1", nil},
		{"/uri-res/I2C?URN:NBN:FI:old-1", nil},
		{"/urn:nbn:fi:old-1", nil},
		{"/urn:nbn:fi:old-1?as-of=" + later.Format(time.RFC3339), nil},
		{"/uri-res/I2L?urn:nbn:fi:old-1", []string{"Accept-Datetime", later.Format(http.TimeFormat)}},
		{"/api/v1/names/urn:nbn:fi:old-1", nil},
	} {
		res, body := get(tc.path, tc.header...)
		if res.StatusCode != http.StatusNotFound || res.Header.Get("Location") != "" || !strings.Contains(body, "httpapi.md#reserved") {
			t.Errorf("%s %v: %d, Location %q, %s", tc.path, tc.header, res.StatusCode, res.Header.Get("Location"), body)
		}
	}
	if res, _ := get("/uri-res/I2L?urn:nbn:fi:never-1"); res.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(res.Header.Get("Location"), "https://elsewhere.example/uri-res/N2L?urn:nbn:fi:never-1") {
		t.Errorf("a name that was never ours: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// As of a time the alias was the record's, it resolves as it did then,
	// on every service.
	then := first.Updated.Add(time.Minute).Format(http.TimeFormat)
	for _, svcName := range []string{"I2L", "I2C", "I2Cs", "I2Ls"} {
		res, body := get("/uri-res/"+svcName+"?urn:nbn:fi:old-1", "Accept-Datetime", then, "Accept", "application/json")
		if res.StatusCode >= 400 || res.Header.Get("Memento-Datetime") == "" {
			t.Errorf("%s as of %s: %d %s", svcName, then, res.StatusCode, body)
		}
	}
	_, err = client.New(srv.URL, tok).Get(ctx, "urn:nbn:fi:old-1")
	if !errors.Is(err, resolver.ErrReserved) || resolver.KindOf(err) != resolver.KindNotFound {
		t.Errorf("client Get of a dropped alias: %v, want ErrReserved", err)
	}
	if _, err := client.New(srv.URL, tok).Get(ctx, "urn:nbn:fi:never-1"); errors.Is(err, resolver.ErrReserved) || resolver.KindOf(err) != resolver.KindNotFound {
		t.Errorf("client Get of an unknown name: %v", err)
	}
}

// TestDiscoveryDNSDown: when the DNS server DDDS discovery asks fails (it
// answers SERVFAIL) or is not there at all (nothing listens on its port),
// a name with no record and no rule is answered 503 with Retry-After, as
// a store that is down, but with a problem type of its own that does not
// blame the store, which is fine; the detail says what the DNS did.
func TestDiscoveryDNSDown(t *testing.T) {
	// A DNS server that answers SERVFAIL to every question.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ds := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetRcode(q, dns.RcodeServerFailure)
		w.WriteMsg(m)
	})}
	go ds.ActivateAndServe()
	t.Cleanup(func() { ds.Shutdown() })
	// A port with nothing on it: the look-up is refused.
	gone, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := gone.LocalAddr().String()
	gone.Close()

	for _, tc := range []struct{ dns, detail string }{
		{pc.LocalAddr().String(), "SERVFAIL"},
		{closed, "connection refused"},
	} {
		svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin"})
		d, err := federate.New(svc, federate.Options{DNS: tc.dns, FailureTTL: -1})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Delegator: d}))
		res, err := http.Get(srv.URL + "/uri-res/I2L?urn:nbn:fr:x-1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		var p struct{ Type, Title, Detail string }
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %v: %s", tc.detail, err, body)
		}
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
			!strings.HasSuffix(p.Type, "httpapi.md#delegation-unavailable") || strings.Contains(p.Title, "store") ||
			!strings.Contains(p.Title, "DNS") || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("DNS %s: %d, Retry-After %q, %s", tc.detail, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
	}
}

// TestDiscoveryEndpoint: GET /api/v1/discovery runs the server's DDDS
// discovery for a name, rules left aside, for the admin only: the records
// taken and the redirect, 404 when there are no records, where a chain
// breaks, 508 past the hop limit, and that discovery is off without a DNS
// server.
func TestDiscoveryEndpoint(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	zone := map[string]string{
		"nbn.urn.arpa.":  `nbn.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L" "!^(urn:nbn:[^?#]*).*$!https://ddds.example/resolve?\\1!" .`,
		"isbn.urn.arpa.": `isbn.urn.arpa. 300 IN NAPTR 100 10 "" "" "!.*!next.example.!" .`,
		"aa.urn.arpa.":   `aa.urn.arpa. 300 IN NAPTR 100 10 "A" "THTTP+I2L" "" host.example.`,
		"host.example.":  `host.example. 300 IN A 127.0.0.1`,
	}
	ds := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		text, ok := zone[strings.ToLower(q.Question[0].Name)]
		var rr dns.RR
		if ok {
			var err error
			if rr, err = dns.NewRR(text); err != nil {
				panic(err)
			}
		}
		switch {
		case !ok:
			m.Rcode = dns.RcodeNameError
		case rr.Header().Rrtype == q.Question[0].Qtype:
			m.Answer = append(m.Answer, rr)
		}
		w.WriteMsg(m)
	})}
	go ds.ActivateAndServe()
	t.Cleanup(func() { ds.Shutdown() })

	start := func(dnsAddr string) (*httptest.Server, string) {
		svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "admin"})
		d, err := federate.New(svc, federate.Options{DNS: dnsAddr})
		if err != nil {
			t.Fatal(err)
		}
		_, tok, err := svc.CreateAuthority(context.Background(), resolver.Principal{Admin: true}, "X", []string{"urn:example:x-"})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Delegator: d}))
		t.Cleanup(srv.Close)
		return srv, tok
	}
	ask := func(srv *httptest.Server, token, query string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/discovery?"+query, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, v
	}
	srv, maint := start(pc.LocalAddr().String())
	code, v := ask(srv, "admin", "urn="+url.QueryEscape("urn:nbn:fi:abc-1?=lang=fi"))
	if code != 200 || v["enabled"] != true || v["status"] != 303.0 || v["url"] != "https://ddds.example/resolve?urn:nbn:fi:abc-1" ||
		len(v["path"].([]any)) != 1 || !strings.HasPrefix(v["path"].([]any)[0].(string), "nbn.urn.arpa. NAPTR 100 10 \"U\"") {
		t.Errorf("found: %d %v", code, v)
	}
	if code, v = ask(srv, "admin", "urn=urn:example:1&service=I2C"); code != 200 || v["status"] != 404.0 || v["why"] != "DDDS: example.urn.arpa. has no NAPTR records" {
		t.Errorf("no records: %d %v", code, v)
	}
	if code, v = ask(srv, "admin", "urn=urn:isbn:1"); code != 200 || v["status"] != 404.0 || !strings.Contains(v["why"].(string), "next.example. has no NAPTR records, after isbn.urn.arpa.") {
		t.Errorf("broken: %d %v", code, v)
	}
	if code, v = ask(srv, "admin", "urn="+url.QueryEscape("urn:nbn:fi:abc-1?+hops=8")); code != 200 || v["status"] != 508.0 || !strings.Contains(v["why"].(string), "handed on 8 times") {
		t.Errorf("past the hop limit: %d %v", code, v)
	}
	// The largest count a URN carries is past the limit too, not invalid,
	// where the redirect carries it (flag A) as where it does not (U).
	for _, name := range []string{"urn:nbn:fi:abc-1?+hops=999999999", "urn:aa:1?+hops=999999999"} {
		if code, v = ask(srv, "admin", "urn="+url.QueryEscape(name)); code != 200 || v["status"] != 508.0 {
			t.Errorf("%s: %d %v", name, code, v)
		}
	}
	if code, v = ask(srv, "admin", "urn=urn:aa:1"); code != 200 || v["status"] != 303.0 || v["url"] != "http://host.example/uri-res/N2L?urn:aa:1?+hops=1" {
		t.Errorf("flag A: %d %v", code, v)
	}
	if code, v = ask(srv, maint, "urn=urn:nbn:fi:abc-1"); code != 403 {
		t.Errorf("a maintainer: %d %v", code, v)
	}
	for _, q := range []string{"", "urn=nope", "urn=urn:nbn:fi:1&service=L2C", "urn=urn:aa:1&urn=urn:a:2"} {
		if code, v = ask(srv, "admin", q); code != 400 {
			t.Errorf("%q: %d %v", q, code, v)
		}
	}
	off, _ := start("")
	if code, v = ask(off, "admin", "urn=urn:nbn:fi:abc-1"); code != 200 || v["enabled"] != false || v["status"] != 404.0 || !strings.Contains(v["why"].(string), "off") {
		t.Errorf("discovery off: %d %v", code, v)
	}
}
