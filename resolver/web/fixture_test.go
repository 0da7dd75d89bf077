package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/storetest"
)

const adminToken = "admin-secret-for-tests"

// fixture is a directory with a few records, over the in-memory store.
type fixture struct {
	svc   *resolver.Service
	token string // maintainer of urn:isbn: and urn:example:
	other string // maintainer of urn:nbn:de: (another authority)
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, memstore.New())
}

func newFixtureOn(t testing.TB, st resolver.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	svc := resolver.New(st, resolver.Options{AdminToken: adminToken, Clock: func() time.Time {
		clock = clock.Add(90 * time.Second)
		return clock
	}})
	admin, err := svc.Authenticate(ctx, adminToken)
	if err != nil {
		t.Fatal(err)
	}
	auth, tok, err := svc.CreateAuthority(ctx, admin, "Example Library", []string{"urn:isbn:", "urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := svc.CreateAuthority(ctx, admin, "Another Library", []string{"urn:nbn:de:"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddRule(ctx, admin, "urn:nbn:ch:", "https://nbn.example.ch/resolve/"); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string, in resolver.RecordInput) {
		t.Helper()
		if _, _, err := svc.Put(ctx, m, name, in); err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
	}
	put("urn:isbn:9780395363416", resolver.RecordInput{
		Aliases: []string{"urn:example:lotr"},
		Locations: []resolver.Location{
			{URL: "https://books.example.org/lotr", Type: "text/html", Label: "Catalogue entry"},
			{URL: "https://mirror.example.net/books/9780395363416.pdf", Type: "application/pdf", Label: "Full text (PDF)"},
		},
		Metadata: json.RawMessage(`{"title":"The Lord of the Rings","author":"J. R. R. Tolkien","year":1987}`),
	})
	// A second change, so the history has two name entries.
	put("urn:isbn:9780395363416", resolver.RecordInput{
		Aliases: []string{"urn:example:lotr"},
		Locations: []resolver.Location{
			{URL: "https://books.example.org/lotr", Type: "text/html", Label: "Catalogue entry"},
			{URL: "https://mirror.example.net/books/9780395363416.pdf", Type: "application/pdf", Label: "Full text (PDF)"},
			{URL: "ftp://ftp.example.net/pub/lotr.epub", Type: "application/epub+zip"},
		},
		Metadata: json.RawMessage(`{"title":"The Lord of the Rings","author":"J. R. R. Tolkien","year":1987}`),
		Redirect: 302,
	})
	put("urn:example:old-report", resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://reports.example.org/2019/annual.html"}},
	})
	if _, err := svc.Withdraw(ctx, m, "urn:example:old-report", "superseded by the revised edition", "urn:isbn:9780395363416"); err != nil {
		t.Fatal(err)
	}
	// Names whose bytes path cleaning or decoding would change.
	put("urn:example:a//b/../c", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/dots"}}})
	put("urn:example:x%2Fy", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/encoded-slash"}}})
	put("urn:example:x/y", resolver.RecordInput{Locations: []resolver.Location{{URL: "https://example.org/raw-slash"}}})
	// Hostile text, which the page must show as text. A javascript:
	// location is refused on writes, but a record stored before that rule
	// may hold one and still resolves: this one is written as such a
	// record was, straight into the store with its history entry.
	storetest.InsertLegacy(t, st, resolver.Record{
		URN: "urn:example:hostile", AuthorityID: auth.ID,
		Locations: []resolver.Location{
			{URL: "javascript:alert(1)", Label: `<script>alert("label")</script>`},
			{URL: "https://example.org/?q='onmouseover=alert(2)"},
		},
		Metadata: json.RawMessage(`{"note":"</code></pre><script>alert(3)</script>"}`),
	})
	// Metadata a write refuses today (nested past MaxMetadataDepth, a
	// name given twice), stored before those rules: its page is bounded.
	storetest.InsertLegacy(t, st, resolver.Record{
		URN: "urn:example:old-metadata", AuthorityID: auth.ID,
		Locations: []resolver.Location{{URL: "https://example.org/old-metadata"}},
		Metadata:  json.RawMessage(`{"a":1,"a":2,"deep":` + strings.Repeat("[", 8185) + strings.Repeat("]", 8185) + `}`),
	})
	return &fixture{svc: svc, token: tok, other: other}
}
