package postgres_test

import (
	"context"
	"log"
	"os"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// An instance of urikit serve on PostgreSQL, reading from a replica: the
// Service's lookup cache follows the other instances' writes by itself
// (the Store is a resolver.Shared). A client that wrote through any
// instance reads its write from any other by presenting the write's
// version.
func Example() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("URIKIT_DB"), postgres.Options{ReadDSN: os.Getenv("URIKIT_READ_DB")})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	svc := resolver.New(st, resolver.Options{})

	// A write request: remember the version the write committed.
	wctx, commit := postgres.TrackCommits(ctx)
	p, _ := svc.Authenticate(wctx, os.Getenv("URIKIT_TOKEN"))
	if _, _, err := svc.Put(wctx, p, "urn:example:a", resolver.RecordInput{
		Locations: []resolver.Location{{URL: "https://example.org/a"}}}); err != nil {
		log.Fatal(err)
	}
	version := commit.Version() // e.g. sent back in a response header

	// A later read that presents it sees the write, wherever it goes.
	rec, err := svc.Lookup(postgres.ReadAfter(ctx, version), urn.MustParse("urn:example:a"))
	if err != nil {
		log.Fatal(err)
	}
	log.Println(rec.Locations[0].URL)
}
