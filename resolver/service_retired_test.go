package resolver_test

import (
	"context"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/urn"
)

// TestRetiredAliasCached: an alias a Put drops must stop resolving at once,
// cached lookups of it included.
func TestRetiredAliasCached(t *testing.T) {
	ctx := context.Background()
	svc := resolver.New(memstore.New(), resolver.Options{AdminToken: "a"})
	admin, _ := svc.Authenticate(ctx, "a")
	_, tok, _ := svc.CreateAuthority(ctx, admin, "A", []string{"urn:example:"})
	m, _ := svc.Authenticate(ctx, tok)
	in := resolver.RecordInput{Aliases: []string{"urn:example:alias"}, Locations: []resolver.Location{{URL: "https://e.org/"}}}
	if _, _, err := svc.Put(ctx, m, "urn:example:name", in); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lookup(ctx, urn.MustParse("urn:example:alias")); err != nil {
		t.Fatal(err)
	}
	in.Aliases = nil
	if _, _, err := svc.Put(ctx, m, "urn:example:name", in); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lookup(ctx, urn.MustParse("urn:example:alias")); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("retired alias still resolves: %v", err)
	}
}
