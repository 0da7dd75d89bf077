package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestVerifyFindsSQLEdits: edits made with SQL on the database (psql's
// view of it) to records and keys, which leave the history intact, are
// found by Verify, which names the record and what differs; an edit of the
// history itself is still a broken chain.
func TestVerifyFindsSQLEdits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		sql  string
		want []string
	}{
		{"Location", `UPDATE records SET loc_urls[1] = 'https://evil.example/b', loc_keys[1] = 'https://evil.example/b' WHERE urn = 'urn:example:b'`,
			[]string{`locations[0].url is "https://evil.example/b" in the records table but "https://example.org/b"`}},
		{"LocationDropped", `UPDATE records SET loc_urls = '{}', loc_types = '{}', loc_labels = '{}', loc_keys = '{}' WHERE urn = 'urn:example:b'`,
			[]string{"the number of locations is 0 in the records table but 1"}},
		{"Metadata", `UPDATE records SET metadata = '{"title":"forged"}'::bytea WHERE urn = 'urn:example:b'`,
			[]string{`metadata is "{\"title\":\"forged\"}"`}},
		{"Successor", `UPDATE records SET successor = 'https://elsewhere.example/' WHERE urn = 'urn:example:b'`,
			[]string{`successor is "https://elsewhere.example/" in the records table but ""`}},
		{"AliasAdded", fmt.Sprintf(`INSERT INTO keys (key, spelling, record_id, role, version)
			SELECT 'urn:example:forged', 'urn:example:forged', id, 'alias', %d FROM records WHERE urn = 'urn:example:b'`, urn.KeyVersion),
			[]string{`"urn:example:forged"`, "an alias of it, which the history does not"}},
		{"AliasRetiredBehindItsBack", `UPDATE keys SET role = 'retired' WHERE key = 'urn:example:b-alias'`,
			[]string{`holds "urn:example:b-alias" (key "urn:example:b-alias") as retired`}},
		{"RecordKey", `UPDATE records SET key = 'urn:example:zz' WHERE urn = 'urn:example:b'`,
			[]string{`the records table gives it the key "urn:example:zz", but its name's key is "urn:example:b"`}},
		{"RecordDeleted", `DELETE FROM records WHERE urn = 'urn:example:b'`,
			[]string{"urn:example:b", "the records table has no row for it"}},
		{"RecordInserted", `INSERT INTO records (urn, key, aliases, loc_urls, loc_types, loc_labels, loc_keys, metadata, status,
			redirect, successor, reason, authority_id, created, updated)
			SELECT 'urn:example:c', 'urn:example:c', '{}', loc_urls, loc_types, loc_labels, loc_keys, metadata, status,
			redirect, successor, reason, authority_id, created, updated FROM records WHERE urn = 'urn:example:b'`,
			[]string{"urn:example:c", "no history entry is about this record"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := cluster.NewDB(t)
			st := open(t, dsn, postgres.Options{})
			svc, m := service(t, st)
			if _, _, err := svc.Put(ctx, m, "urn:example:a", recordInput("https://example.org/a")); err != nil {
				t.Fatal(err)
			}
			in := recordInput("https://example.org/b")
			in.Aliases = []string{"urn:example:b-alias"}
			b, _, err := svc.Put(ctx, m, "urn:example:b", in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Verify(ctx, nil); err != nil {
				t.Fatal(err)
			}
			editWithSQL(t, dsn, tc.sql)
			_, err = svc.Verify(ctx, nil)
			var se *resolver.StateError
			if !errors.As(err, &se) || resolver.IsChainError(err) {
				t.Fatalf("Verify after %s: %v", tc.sql, err)
			}
			if tc.name != "RecordInserted" && se.RecordID != b.ID {
				t.Errorf("names record %d, want %d: %v", se.RecordID, b.ID, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
	// The history's own entries are still guarded by the chain, first.
	t.Run("HistoryEdited", func(t *testing.T) {
		dsn := cluster.NewDB(t)
		st := open(t, dsn, postgres.Options{})
		svc, m := service(t, st)
		if _, _, err := svc.Put(ctx, m, "urn:example:a", recordInput("https://example.org/a")); err != nil {
			t.Fatal(err)
		}
		editWithSQL(t, dsn, `UPDATE log SET data = convert_to(replace(convert_from(data, 'UTF8'), 'example.org', 'evil.ex.org'), 'UTF8') WHERE action = 'name.create'`)
		_, err := svc.Verify(ctx, nil)
		var ce *resolver.ChainError
		if !errors.As(err, &ce) || resolver.IsStateError(err) {
			t.Fatalf("Verify after a history edit: %v", err)
		}
	})
}

// editWithSQL changes the database at dsn with one statement, as a person
// with psql would, behind the Service's back; the statement must change
// exactly one row, so that a test never passes on an edit that missed.
func editWithSQL(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 1 {
		t.Fatalf("the edit changed %d rows: %s", tag.RowsAffected(), sql)
	}
}

// service is a Service over st with one authority owning urn:example:,
// and that authority's maintainer.
func service(t *testing.T, st resolver.Store) (*resolver.Service, resolver.Principal) {
	t.Helper()
	ctx := context.Background()
	svc := resolver.New(st, resolver.Options{AdminToken: "admin-token-for-tests"})
	admin, err := svc.Authenticate(ctx, "admin-token-for-tests")
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := svc.CreateAuthority(ctx, admin, "Tests", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	return svc, m
}

func recordInput(urls ...string) resolver.RecordInput {
	in := resolver.RecordInput{Metadata: []byte(`{"title":"a <b>"}`)}
	for _, u := range urls {
		in.Locations = append(in.Locations, resolver.Location{URL: u, Type: "text/html"})
	}
	return in
}

// TestVerifyFindsSQLEditsOfAccessAndIndex: edits made with SQL to the
// authorities, tokens and delegation rules are an *AccessError naming what
// was changed (a token's hash never shown), and edits of the location
// index, or of the keys a record's locations are indexed under, a
// *StateError naming the record; the history still verifies.
func TestVerifyFindsSQLEditsOfAccessAndIndex(t *testing.T) {
	ctx := context.Background()
	forged := fmt.Sprintf(`'\x%x'::bytea`, resolver.HashToken("urikit_forged"))
	for _, tc := range []struct {
		name, sql string
		kind      string // "token", "authority", "rule" or "record"
		want      []string
	}{
		{"TokenInserted", `INSERT INTO tokens (authority_id, label, hash, created) SELECT id, 'mallory', ` + forged + `, now() FROM authorities`,
			"token", []string{`label "mallory"`, "no history entry created it"}},
		{"TokenUnrevoked", `UPDATE tokens SET revoked = NULL WHERE label = 'second'`,
			"token", []string{"it is valid in the tokens table, but history entry"}},
		{"TokenHashSwapped", `UPDATE tokens SET hash = ` + forged + ` WHERE label = 'Tests'`,
			"token", []string{"its hash in the tokens table is not the one history entry"}},
		{"PrefixesWidened", `UPDATE authorities SET prefixes = '{urn:example:,urn:nbn:}'`,
			"authority", []string{`its prefixes are ["urn:example:" "urn:nbn:"] in the authorities table but ["urn:example:"]`}},
		{"AuthorityInserted", `INSERT INTO authorities (name, prefixes, created, updated) VALUES ('Mallory', '{urn:nbn:}', now(), now())`,
			"authority", []string{`"Mallory"`, "no history entry created it"}},
		{"RuleInserted", `INSERT INTO rules (prefix, target, created) VALUES ('urn:example:', 'https://evil.example/', now())`,
			"rule", []string{"no history entry added it"}},
		{"RuleRetargeted", `UPDATE rules SET target = 'https://evil.example/' WHERE prefix = 'urn:nbn:de:'`,
			"rule", []string{`its target is "https://evil.example/" in the rules table but "https://resolver.example/"`}},
		{"IndexRowDeleted", `DELETE FROM locations WHERE key = 'https://example.org/b'`,
			"record", []string{`the location index holds no row for locations[0] ("https://example.org/b")`}},
		{"IndexRowAdded", `INSERT INTO locations (key, record_id) SELECT 'https://evil.example/', id FROM records WHERE urn = 'urn:example:b'`,
			"record", []string{`the location index holds "https://evil.example/" for it, which is the key of none of its locations`}},
		{"IndexRowOfNoRecord", `INSERT INTO locations (key, record_id) VALUES ('https://evil.example/', 999999)`,
			"record", []string{`the location index holds "https://evil.example/" for this record ID, which no record has`}},
		{"IndexKeyRewritten", `UPDATE records SET loc_keys[1] = 'https://evil.example/' WHERE urn = 'urn:example:b'`,
			"record", []string{`locations[0] ("https://example.org/b") is indexed under "https://evil.example/", but its URL normalizes to "https://example.org/b"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := cluster.NewDB(t)
			st := open(t, dsn, postgres.Options{})
			svc, m := service(t, st)
			admin, auth := resolver.Principal{Admin: true}, m.AuthorityID
			if _, _, err := svc.Put(ctx, m, "urn:example:a", recordInput("https://example.org/a")); err != nil {
				t.Fatal(err)
			}
			b, _, err := svc.Put(ctx, m, "urn:example:b", recordInput("https://example.org/b", "https://mirror.example/b"))
			if err != nil {
				t.Fatal(err)
			}
			second, _, err := svc.AddToken(ctx, admin, auth, "second")
			if err != nil {
				t.Fatal(err)
			}
			if err := svc.RevokeToken(ctx, admin, auth, second.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.AddRule(ctx, admin, "urn:nbn:de:", "https://resolver.example/"); err != nil {
				t.Fatal(err)
			}
			if rep, err := svc.VerifyAll(ctx, nil); err != nil || rep.Tokens != 2 || rep.Rules != 1 || rep.Authorities != 1 || rep.Locations != 3 {
				t.Fatalf("before: %+v %v", rep, err)
			}
			editWithSQL(t, dsn, tc.sql)
			svc.Invalidate()
			switch tc.name {
			case "TokenInserted", "TokenHashSwapped": // the edit is real
				if p, err := svc.Authenticate(ctx, "urikit_forged"); err != nil || p.AuthorityID != auth {
					t.Fatalf("the forged token: %+v %v", p, err)
				}
			case "IndexRowAdded":
				if recs, _, err := svc.ByLocation(ctx, "https://evil.example/", true); err != nil || len(recs) != 1 || recs[0].ID != b.ID {
					t.Fatalf("L2N after the edit: %+v %v", recs, err)
				}
			}
			_, err = svc.Verify(ctx, nil)
			var ae *resolver.AccessError
			var se *resolver.StateError
			switch {
			case resolver.IsChainError(err):
				t.Fatalf("the history does not verify: %v", err)
			case tc.kind == "record":
				if !errors.As(err, &se) {
					t.Fatalf("Verify after %s: %v", tc.sql, err)
				}
				if tc.name != "IndexRowOfNoRecord" && (se.RecordID != b.ID || se.URN != "urn:example:b") {
					t.Errorf("names record %d %q: %v", se.RecordID, se.URN, err)
				}
			case !errors.As(err, &ae) || ae.Kind != tc.kind:
				t.Fatalf("Verify after %s: %v", tc.sql, err)
			case tc.kind == "token" && ae.Authority != auth:
				t.Errorf("names authority %d: %v", ae.Authority, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "urikit_") || strings.Contains(err.Error(), fmt.Sprintf("%x", resolver.HashToken("urikit_forged"))) {
				t.Errorf("%q shows a token or its hash", err)
			}
		})
	}
}
