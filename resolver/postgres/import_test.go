package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
)

// importBatch is n records under urn:example:imp-, numbered from first.
func importBatch(first, n int) []resolver.NamedInput {
	b := make([]resolver.NamedInput, n)
	for i := range b {
		id := first + i
		b[i] = resolver.NamedInput{URN: fmt.Sprintf("urn:example:imp-%08d", id), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: fmt.Sprintf("https://repo.example.org/items/%d", id), Type: "text/html"}},
			Metadata:  []byte(fmt.Sprintf(`{"title":"Item %d"}`, id)),
		}}
	}
	return b
}

// TestImportRate imports records with PutMany in batches of 1,000 and
// reports the rate. URIKIT_PG_IMPORT sets how many (default 20,000).
func TestImportRate(t *testing.T) {
	total := 20000
	if v, err := strconv.Atoi(os.Getenv("URIKIT_PG_IMPORT")); err == nil && v > 0 {
		total = v
	}
	if testing.Short() {
		total = 2000
	}
	ctx := context.Background()
	st := open(t, cluster.NewDB(t), postgres.Options{Timeout: time.Minute})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	const batch = 1000
	start := time.Now()
	for first := 0; first < total; first += batch {
		res, err := svc.PutMany(ctx, resolver.Operator, importBatch(first, min(batch, total-first)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil || !r.Created {
				t.Fatalf("%s: created=%v %v", r.Record.URN, r.Created, r.Err)
			}
		}
	}
	el := time.Since(start)
	t.Logf("PutMany: %d records in %v: %.0f records/s", total, el.Round(time.Millisecond), float64(total)/el.Seconds())
	if n, err := svc.Verify(ctx, nil); err != nil || n != int64(total)+2 {
		t.Fatalf("verify after import: %d %v", n, err)
	}
}
