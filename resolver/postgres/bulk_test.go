package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestBulkRowsMatchOneByOne: the records PutMany writes with binary COPY
// rows encoded by hand are stored exactly as Put stores them through
// pgx's parameters, row for row in every table — odd text, aliases,
// repeated and empty location fields, metadata, and times on both sides
// of PostgreSQL's epoch (2000-01-01) — and the history verifies.
func TestBulkRowsMatchOneByOne(t *testing.T) {
	ctx := context.Background()
	odd := "Zoë «quoted» \"q\" \\ \t\x01 𝄞 {a,b} NULL"
	batch := []resolver.NamedInput{
		{URN: "urn:example:plain", RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: "https://example.org/plain"}}}},
		{URN: "urn:example:Odd-%C3%A9", RecordInput: resolver.RecordInput{
			Aliases: []string{"urn:example:alias-1", "urn:example:ALIAS-2"},
			Locations: []resolver.Location{
				{URL: "https://example.org/a", Type: `text/plain; charset="utf-8"`, Label: odd},
				{URL: "HTTPS://Example.org:443/a", Label: ""}, // the same location key as the first
				{URL: "https://example.org/b#f", Type: "text/html", Label: "{}"},
			},
			Metadata: []byte(`{"t":"` + "\\u0000 é" + `","n":[1,2,{}]}`),
			Redirect: 307,
		}},
		{URN: "urn:example:empty-meta", RecordInput: resolver.RecordInput{
			Aliases:   []string{"urn:other:x"},
			Locations: []resolver.Location{{URL: "urn:isbn:0451450523", Label: strings.Repeat("l", 300)}},
			Metadata:  []byte(`{}`),
		}},
	}
	for i := range 40 { // more than one chunk of COPY data
		batch = append(batch, resolver.NamedInput{URN: fmt.Sprintf("urn:example:n-%04d", i), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/%d/%s", i, strings.Repeat("p", 2000))}}}})
	}
	for _, at := range []time.Time{
		time.Date(2026, 11, 24, 6, 0, 0, 123456789, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC), // before the epoch: negative microseconds
		time.Date(1970, 1, 1, 0, 0, 0, 1000, time.UTC),
	} {
		t.Run(at.Format(time.RFC3339Nano), func(t *testing.T) {
			dump := func(bulk bool) string {
				dsn := cluster.NewDB(t)
				st := open(t, dsn, postgres.Options{})
				svc := resolver.New(st, resolver.Options{AdminToken: "admin", Clock: func() time.Time { return at }})
				admin, _ := svc.Authenticate(ctx, "admin")
				if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:", "urn:other:"}); err != nil {
					t.Fatal(err)
				}
				before, err := svc.Verify(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if bulk {
					res, err := svc.PutMany(ctx, resolver.Operator, batch)
					if err != nil {
						t.Fatal(err)
					}
					for i, r := range res {
						if r.Err != nil || !r.Created {
							t.Fatalf("%s: created %v, %v", batch[i].URN, r.Created, r.Err)
						}
					}
				} else {
					for _, in := range batch {
						if _, _, err := svc.Put(ctx, resolver.Operator, in.URN, in.RecordInput); err != nil {
							t.Fatalf("%s: %v", in.URN, err)
						}
					}
				}
				if n, err := svc.Verify(ctx, nil); err != nil || n != before+int64(len(batch)) {
					t.Fatalf("verify: %d entries, %v", n, err)
				}
				conn := connect(t, dsn)
				if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, q := range []string{
					`SELECT row_to_json(r)::text FROM records r ORDER BY id`,
					`SELECT row_to_json(k)::text FROM keys k ORDER BY key`,
					`SELECT row_to_json(l)::text FROM locations l ORDER BY key, record_id`,
					// The token entry holds a fingerprint of a random token,
					// and the chain's hashes follow from it: both runs'
					// chains verify above; the rest must match.
					`SELECT json_build_array(seq, time, action, subject, record_id, authority_id, actor,
						CASE WHEN action LIKE 'token.%' THEN NULL ELSE data END)::text FROM log ORDER BY seq`,
					`SELECT json_build_array(seq)::text FROM head`, // (version counts transactions)
				} {
					rows, err := conn.Query(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					for rows.Next() {
						var s string
						if err := rows.Scan(&s); err != nil {
							t.Fatal(err)
						}
						b.WriteString(s + "\n")
					}
					if rows.Err() != nil {
						t.Fatal(rows.Err())
					}
				}
				return b.String()
			}
			one, bulk := dump(false), dump(true)
			if one != bulk {
				a, b := strings.Split(one, "\n"), strings.Split(bulk, "\n")
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("row %d differs:\none by one: %s\nbulk:       %s", i, a[i], b[i])
					}
				}
				t.Fatalf("%d rows one by one, %d in bulk", len(a), len(b))
			}
			if !strings.Contains(one, at.Format("2006-01-02T15:04:05.999999")) {
				t.Errorf("the clock's time %v is not in the rows:\n%.500s", at, one)
			}
		})
	}
}

// TestTakenKeys: both ways TakenKeys finds stored keys — the range between
// the least and greatest key asked, when it holds few stored keys, and a
// look-up per key when it holds many — give exactly the stored keys among
// those asked, in the byte order of the keys' collation ("Y" < "Z" < "a").
func TestTakenKeys(t *testing.T) {
	ctx := context.Background()
	st := open(t, cluster.NewDB(t), postgres.Options{})
	svc := resolver.New(st, resolver.Options{AdminToken: "admin"})
	admin, _ := svc.Authenticate(ctx, "admin")
	if _, _, err := svc.CreateAuthority(ctx, admin, "Example", []string{"urn:example:"}); err != nil {
		t.Fatal(err)
	}
	batch := importBatch(0, 1000)
	for _, n := range []string{"urn:example:Z", "urn:example:a", "urn:example:%C3%A9"} {
		batch = append(batch, resolver.NamedInput{URN: n, RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{{URL: "https://example.org/" + n}}}})
	}
	if _, err := svc.PutMany(ctx, resolver.Operator, batch); err != nil {
		t.Fatal(err)
	}
	key := func(n string) string { return urn.MustParse(n).Key() }
	stored := key("urn:example:imp-00000500")
	for name, c := range map[string]struct{ ask, want []string }{
		"sparse": {ask: []string{key("urn:example:imp-00000999"), key("urn:example:imp-00000999x"), key("urn:example:imp-00001000")},
			want: []string{key("urn:example:imp-00000999")}},
		"dense": {ask: []string{key("urn:example:imp-00000000"), stored + "x", stored, key("urn:example:imp-00000999"), "urn:example:imp-"},
			want: []string{key("urn:example:imp-00000000"), stored, key("urn:example:imp-00000999")}},
		"collation": {ask: []string{key("urn:example:Y"), key("urn:example:Z"), key("urn:example:a")}, // a range only in byte order
			want: []string{key("urn:example:Z"), key("urn:example:a")}},
		"percent": {ask: []string{key("urn:example:%C3%A9"), key("urn:example:%C3%A8")},
			want: []string{key("urn:example:%C3%A9")}},
		"none": {ask: []string{"urn:other:x"}},
	} {
		err := st.Update(ctx, func(tx resolver.Tx) error {
			taken, err := tx.(resolver.BulkTx).TakenKeys(ctx, c.ask)
			if err != nil {
				return err
			}
			if len(taken) != len(c.want) {
				t.Errorf("%s: %d taken (%v), want %v", name, len(taken), taken, c.want)
			}
			for _, k := range c.want {
				if !taken[k] {
					t.Errorf("%s: %s not taken; got %v", name, k, taken)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
