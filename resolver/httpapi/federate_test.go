package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
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
