package resolver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

// TestServiceSmoke walks the main rules once over the reference store; the
// full rule suite is resolver/storetest, run against every Store.
func TestServiceSmoke(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	svc := resolver.New(st, resolver.Options{AdminToken: "admin-secret"})
	admin, err := svc.Authenticate(ctx, "admin-secret")
	if err != nil || !admin.Admin {
		t.Fatalf("admin: %v %v", admin, err)
	}
	a, tok, err := svc.CreateAuthority(ctx, admin, "Books", []string{"URN:ISBN", "urn:example:a%2f"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Prefixes[0] != "urn:isbn:" || a.Prefixes[1] != "urn:example:a%2F" {
		t.Fatalf("prefixes %q", a.Prefixes)
	}
	if _, _, err := svc.CreateAuthority(ctx, admin, "Other", []string{"urn:example:"}); resolver.KindOf(err) != resolver.KindConflict {
		t.Fatalf("overlap: %v", err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil || m.AuthorityID != a.ID {
		t.Fatalf("maintainer: %v %v", m, err)
	}
	in := resolver.RecordInput{Locations: []resolver.Location{{URL: "HTTPS://Example.org:443/book"}}}
	rec, created, err := svc.Put(ctx, m, "urn:isbn:9780395363416", in)
	if err != nil || !created {
		t.Fatalf("put: %v %v", created, err)
	}
	if _, created, err := svc.Put(ctx, m, "urn:ISBN:0-395-36341-1", in); err != nil || created {
		t.Fatalf("equivalent put: created=%v %v", created, err)
	}
	got, err := svc.Lookup(ctx, urn.MustParse("urn:ISBN:0-395-36341-1"))
	if err != nil || got.ID != rec.ID || got.URN != "urn:isbn:9780395363416" {
		t.Fatalf("lookup: %+v %v", got, err)
	}
	recs, _, err := svc.ByLocation(ctx, "https://example.org/book", true)
	if err != nil || len(recs) != 1 {
		t.Fatalf("by location: %v %v", recs, err)
	}
	if _, _, err := svc.Put(ctx, admin, "urn:isbn:9780395363416", in); resolver.KindOf(err) != resolver.KindForbidden {
		t.Fatalf("admin put: %v", err)
	}
	if _, err := svc.Withdraw(ctx, m, "urn:isbn:9780395363416", "gone", "urn:isbn:9780131103627"); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Put(ctx, m, "urn:isbn:978-0-395-36341-6", in)
	var e *resolver.Error
	if !errors.As(err, &e) || e.Kind != resolver.KindConflict || e.Record != "urn:isbn:9780395363416" {
		t.Fatalf("reuse: %v", err)
	}
	_, hist, err := svc.History(ctx, urn.MustParse("urn:isbn:9780395363416"), 0, 100)
	if err != nil || len(hist) != 2 {
		t.Fatalf("history: %d %v", len(hist), err)
	}
	old, _, err := svc.LookupAsOf(ctx, urn.MustParse("urn:isbn:9780395363416"), hist[0].Time)
	if err != nil || old.Status != resolver.Active {
		t.Fatalf("as of: %+v %v", old, err)
	}
	if _, _, err := svc.LookupAsOf(ctx, urn.MustParse("urn:isbn:9780395363416"), hist[0].Time.Add(-time.Second)); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("as of before: %v", err)
	}
	if n, err := svc.Verify(ctx, nil); err != nil || n < 4 {
		t.Fatalf("verify: %d %v", n, err)
	}
	st.Tamper(2, func(e *resolver.Entry) { e.Actor = "someone else" })
	if _, err := svc.Verify(ctx, nil); !resolver.IsChainError(err) {
		t.Fatalf("tampered history verified: %v", err)
	}
}
