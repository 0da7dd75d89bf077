package sqlite_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// TestVerifyFindsSQLEdits: edits made with SQL on the database file, as a
// person with the sqlite3 shell would make them, to records and keys
// (which leave the history intact, so the chain still verifies) are found
// by Verify, which names the record and what differs.
func TestVerifyFindsSQLEdits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		sql  string
		want []string
	}{
		// The location lives in the record's encoded body: replaced by a
		// URL of the same length, the body stays well formed.
		{"LocationInBody", `UPDATE records SET body = CAST(replace(CAST(body AS TEXT), 'https://example.org/b', 'https://evil.exa.mp/b') AS BLOB) WHERE urn = 'urn:example:b'`,
			[]string{`locations[0].url is "https://evil.exa.mp/b" in the records table but "https://example.org/b"`}},
		{"Redirect", `UPDATE records SET redirect = 301 WHERE urn = 'urn:example:b'`,
			[]string{"redirect is 301 in the records table but 303"}},
		{"Withdrawn", `UPDATE records SET status = 'withdrawn', reason = 'x' WHERE urn = 'urn:example:b'`,
			[]string{`status is "withdrawn"`}},
		{"AliasAdded", `INSERT INTO keys (key, spelling, record_id, role, version) SELECT 'urn:example:forged', 'urn:example:forged', id, 'alias', ` +
			strconv.Itoa(urn.KeyVersion) + ` FROM records WHERE urn = 'urn:example:b'`,
			[]string{`"urn:example:forged"`, "an alias of it, which the history does not"}},
		{"KeyMoved", `UPDATE keys SET record_id = (SELECT id FROM records WHERE urn = 'urn:example:a') WHERE key = 'urn:example:b-alias'`,
			[]string{"urn:example:b-alias"}},
		{"RecordDeleted", `DELETE FROM records WHERE urn = 'urn:example:b'`,
			[]string{"urn:example:b", "the records table has no row for it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, t.TempDir())
			a, _, err := f.svc.Put(ctx, f.m, "urn:example:a", input("https://example.org/a"))
			if err != nil {
				t.Fatal(err)
			}
			in := input("https://example.org/b")
			in.Aliases = []string{"urn:example:b-alias"}
			b, _, err := f.svc.Put(ctx, f.m, "urn:example:b", in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.Verify(ctx, nil); err != nil {
				t.Fatal(err)
			}
			res, err := rawDB(t, f.st).Exec(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("the edit changed %d rows", n)
			}
			if tc.name == "LocationInBody" {
				// The edit is real: the record resolves elsewhere now.
				f.svc.Invalidate()
				if r, err := f.svc.Lookup(ctx, urn.MustParse("urn:example:b")); err != nil || r.Locations[0].URL != "https://evil.exa.mp/b" {
					t.Fatalf("after the edit: %+v %v", r.Locations, err)
				}
			}
			_, err = f.svc.Verify(ctx, nil)
			var se *resolver.StateError
			if !errors.As(err, &se) {
				t.Fatalf("Verify after %s: %v", tc.sql, err)
			}
			want := b.ID
			if tc.name == "KeyMoved" {
				want = a.ID // which now holds b's alias, and comes first
			}
			if se.RecordID != want {
				t.Errorf("names record %d, want %d: %v", se.RecordID, want, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}
