package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestLookupAllPredecessors: lookup shows the first
// resolver.MaxPredecessors names a record replaces and says how to see
// the rest; --all-predecessors lists every one, in a data directory and
// through a server alike, in text and in --json.
func TestLookupAllPredecessors(t *testing.T) {
	hermetic(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	st, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := resolver.New(st, resolver.Options{})
	a, tok, err := svc.CreateAuthority(ctx, resolver.Principal{Admin: true}, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m := resolver.Principal{AuthorityID: a.ID}
	in := func(u string) resolver.RecordInput {
		return resolver.RecordInput{Locations: []resolver.Location{{URL: u}}}
	}
	if _, _, err := svc.Put(ctx, m, "urn:example:hub", in("https://example.org/hub")); err != nil {
		t.Fatal(err)
	}
	n := resolver.MaxPredecessors + 3
	for i := range n {
		name := fmt.Sprintf("urn:example:spoke-%03d", i)
		if _, _, err := svc.Put(ctx, m, name, in("https://example.org/"+name)); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Withdraw(ctx, m, name, "replaced", "urn:example:hub"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(target ...string) {
		t.Helper()
		with := func(args ...string) []string { return append(args, target...) }
		out, _ := cli(t, exitOK, with("lookup", "urn:example:hub")...)
		if got := strings.Count(out, "\n  replaces"); got != resolver.MaxPredecessors+1 ||
			!strings.Contains(out, "… and more (the first 100 are shown; --all-predecessors lists them all)") {
			t.Fatalf("lookup: %d replaces lines:\n%s", got, out)
		}
		out, _ = cli(t, exitOK, with("lookup", "--all-predecessors", "urn:example:hub")...)
		if got := strings.Count(out, "\n  replaces"); got != n || strings.Contains(out, "and more") ||
			!strings.Contains(out, fmt.Sprintf("replaces   urn:example:spoke-%03d\n", n-1)) {
			t.Fatalf("lookup --all-predecessors: %d replaces lines, want %d:\n%s", got, n, out)
		}
		out, _ = cli(t, exitOK, with("lookup", "--all-predecessors", "--json", "urn:example:hub")...)
		if got := strings.Count(out, `"urn:example:spoke-`); got != n || strings.Contains(out, "more_predecessors") {
			t.Fatalf("lookup --all-predecessors --json: %d predecessors, want %d:\n%s", got, n, out)
		}
	}
	check("--data", dir)

	st, err = sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(httpapi.New(resolver.New(st, resolver.Options{}), httpapi.Options{})) // on 127.0.0.1
	t.Cleanup(srv.Close)
	check("--server", srv.URL, "--token", tok)
}
