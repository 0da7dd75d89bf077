package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
		{"Withdrawn", `UPDATE records SET status = 1, reason = 'x' WHERE urn = 'urn:example:b'`,
			[]string{`status is "withdrawn"`}},
		{"AliasAdded", `INSERT INTO keys (key, spelling, record_id, role, version) SELECT 'urn:example:forged', NULL, id, 1, ` +
			strconv.Itoa(urn.KeyVersion) + ` FROM records WHERE urn = 'urn:example:b'`,
			[]string{`"urn:example:forged"`, "an alias of it, which the history does not"}},
		{"KeyMoved", `UPDATE keys SET record_id = (SELECT id FROM records WHERE urn = 'urn:example:a') WHERE key = 'urn:example:b-alias'`,
			[]string{"urn:example:b-alias"}},
		{"RecordKey", `UPDATE records SET key = 'urn:example:zz' WHERE urn = 'urn:example:b'`,
			[]string{`the keys table holds "urn:example:b" as the key of its name, but the records table gives its name the key "urn:example:zz"`}},
		// A predecessor link forged: a successor key on a record with no
		// successor makes it a predecessor of urn:example:a.
		{"SuccessorKeyForged", `UPDATE records SET successor_key = 'urn:example:a', successor_version = ` + strconv.Itoa(urn.KeyVersion) + ` WHERE urn = 'urn:example:b'`,
			[]string{`it has no successor, but the records table holds the successor key "urn:example:a"`}},
		{"RecordDeleted", `DELETE FROM records WHERE urn = 'urn:example:b'`,
			[]string{`record 2 (no name): the keys table holds "urn:example:b" as the name of this record ID, which no record has`}},
		// A key of the role of a record's own name (0) that is not its
		// name's key: it resolves to the record, and the page of states
		// finds such keys by records.key only.
		{"NameKeyAdded", `INSERT INTO keys (key, spelling, record_id, role, version) SELECT 'urn:example:forged', NULL, id, 0, ` +
			strconv.Itoa(urn.KeyVersion) + ` FROM records WHERE urn = 'urn:example:b'`,
			[]string{`record 2 (urn:example:b): the keys table holds "urn:example:forged" as the key of its name, but the records table gives its name the key "urn:example:b": the name urn:example:forged resolves to the record`}},
		{"NameKeyOfNoRecord", `INSERT INTO keys (key, spelling, record_id, role, version) VALUES ('urn:example:nobody', NULL, 999, 0, ` +
			strconv.Itoa(urn.KeyVersion) + `)`,
			[]string{`record 999 (no name): the keys table holds "urn:example:nobody" as the name of this record ID, which no record has`}},
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
			if tc.name == "NameKeyOfNoRecord" {
				want = 999
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

// TestVerifyFindsSuccessorKeyEdits: the successor key of a withdrawn
// record, changed or removed with SQL, no longer agrees with its
// successor: Verify names the record (its predecessor link is wrong). One
// removed (as a build before schema 3 leaves a record it withdraws) is
// computed by Migrate, after which Verify passes and the link is back.
func TestVerifyFindsSuccessorKeyEdits(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		sql, want string
		migrated  bool // Migrate computes the key again
	}{
		{`UPDATE records SET successor_key = 'urn:example:zz' WHERE urn = 'urn:example:b'`,
			`holds the successor key "urn:example:zz", but the key of its successor "urn:example:a" is "urn:example:a"`, false},
		{`UPDATE records SET successor_key = NULL, successor_version = NULL WHERE urn = 'urn:example:b'`,
			`holds no successor key for its successor "urn:example:a"`, true},
	} {
		f := newFixture(t, t.TempDir())
		for _, n := range []string{"urn:example:a", "urn:example:b"} {
			if _, _, err := f.svc.Put(ctx, f.m, n, input("https://example.org/"+n)); err != nil {
				t.Fatal(err)
			}
		}
		b, err := f.svc.Withdraw(ctx, f.m, "urn:example:b", "", "urn:example:a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Verify(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if res, err := rawDB(t, f.st).Exec(tc.sql); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("the edit changed %d rows", n)
		}
		_, err = f.svc.Verify(ctx, nil)
		var se *resolver.StateError
		if !errors.As(err, &se) || se.RecordID != b.ID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Verify after %s: %v, want a state error of record %d saying %q", tc.sql, err, b.ID, tc.want)
		}
		if !tc.migrated {
			continue
		}
		if rep, err := f.svc.Migrate(ctx); err != nil || rep.SuccessorsChecked != 1 || rep.SuccessorsRekeyed != 1 {
			t.Fatalf("Migrate after %s: %+v %v, want the successor key computed", tc.sql, rep, err)
		}
		if _, err := f.svc.Verify(ctx, nil); err != nil {
			t.Errorf("Verify after Migrate: %v", err)
		}
		a, err := f.svc.Lookup(ctx, urn.MustParse("urn:example:a"))
		if err != nil {
			t.Fatal(err)
		}
		if preds, _, err := f.svc.Predecessors(ctx, a); err != nil || len(preds) != 1 || preds[0] != "urn:example:b" {
			t.Errorf("predecessors after Migrate: %q %v", preds, err)
		}
	}
}

// TestVerifyFindsSQLEditsOfAccessAndIndex: edits made with SQL to the
// authorities, tokens and delegation rules (each one a change of who may
// write which names, or of where lookups go) are an *AccessError naming
// what was changed, and edits of the location index (which L2N and L2L
// answer from) a *StateError naming the record. The history is left as it
// was, so its chain still verifies.
func TestVerifyFindsSQLEditsOfAccessAndIndex(t *testing.T) {
	ctx := context.Background()
	forged := fmt.Sprintf("X'%x'", resolver.HashToken("urikit_forged"))
	for _, tc := range []struct {
		name, sql string
		kind      string // "token", "authority", "rule" or "record"
		of        string // the label, name, prefix or URN of what it is about
		want      []string
		lookup    string // a token that authenticates after the edit, or a URL L2N answers
	}{
		{"TokenInserted", `INSERT INTO tokens (authority_id, label, hash, created) SELECT id, 'mallory', ` + forged + `, 0 FROM authorities`,
			"token", "mallory", []string{"no history entry created it"}, "urikit_forged"},
		{"TokenUnrevoked", `UPDATE tokens SET revoked = NULL WHERE label = 'second'`,
			"token", "second", []string{"it is valid in the tokens table, but history entry"}, "second"},
		{"TokenHashSwapped", `UPDATE tokens SET hash = ` + forged + ` WHERE label = 'Tests'`,
			"token", "Tests", []string{"its hash in the tokens table is not the one history entry"}, "urikit_forged"},
		{"TokenDeleted", `DELETE FROM tokens WHERE label = 'second'`,
			"token", "second", []string{"the tokens table has no row for it"}, ""},
		{"PrefixesWidened", `UPDATE authorities SET prefixes = '["urn:example:","urn:isbn:","urn:nbn:"]'`,
			"authority", "Tests", []string{`its prefixes are ["urn:example:" "urn:isbn:" "urn:nbn:"] in the authorities table but ["urn:example:" "urn:isbn:"]`}, ""},
		{"AuthorityInserted", `INSERT INTO authorities (name, prefixes, created, updated) VALUES ('Mallory', '["urn:nbn:"]', 0, 0)`,
			"authority", "Mallory", []string{"no history entry created it"}, ""},
		{"RuleInserted", `INSERT INTO rules (prefix, target, created) VALUES ('urn:example:', 'https://evil.example/', 0)`,
			"rule", "urn:example:", []string{"no history entry added it", "lookups of names under urn:example: go to https://evil.example/"}, ""},
		{"RuleRetargeted", `UPDATE rules SET target = 'https://evil.example/' WHERE prefix = 'urn:nbn:de:'`,
			"rule", "urn:nbn:de:", []string{`its target is "https://evil.example/" in the rules table but "https://resolver.example/"`}, ""},
		{"RuleDeleted", `DELETE FROM rules WHERE prefix = 'urn:nbn:de:'`,
			"rule", "urn:nbn:de:", []string{"the rules table has no row for it"}, ""},
		{"IndexRowDeleted", `DELETE FROM locations WHERE key = 'https://example.org/b'`,
			"record", "urn:example:b", []string{`the location index holds no row for locations[0] ("https://example.org/b")`}, ""},
		{"IndexRowAdded", `INSERT INTO locations (key, record_id) SELECT 'https://evil.example/', id FROM records WHERE urn = 'urn:example:b'`,
			"record", "urn:example:b", []string{`the location index holds "https://evil.example/" for it, which is the key of none of its locations`}, "https://evil.example/"},
		{"IndexRowMoved", `UPDATE locations SET record_id = (SELECT id FROM records WHERE urn = 'urn:example:a') WHERE key = 'https://example.org/b'`,
			"record", "urn:example:b", []string{`the location index holds no row for locations[0] ("https://example.org/b")`}, ""},
		{"IndexRowOfNoRecord", `INSERT INTO locations (key, record_id) VALUES ('https://evil.example/', 999999)`,
			"record", "", []string{`the location index holds "https://evil.example/" for this record ID, which no record has`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, t.TempDir())
			a, _, err := f.svc.Put(ctx, f.m, "urn:example:a", input("https://example.org/a"))
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := f.svc.Put(ctx, f.m, "urn:example:b", input("https://example.org/b", "https://mirror.example/b"))
			if err != nil {
				t.Fatal(err)
			}
			second, secret, err := f.svc.AddToken(ctx, f.admin, f.auth.ID, "second")
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.RevokeToken(ctx, f.admin, f.auth.ID, second.ID); err != nil {
				t.Fatal(err)
			}
			rule, err := f.svc.AddRule(ctx, f.admin, "urn:nbn:de:", "https://resolver.example/")
			if err != nil {
				t.Fatal(err)
			}
			if rep, err := f.svc.VerifyAll(ctx, nil); err != nil || rep.Tokens != 2 || rep.Rules != 1 || rep.Locations != 3 {
				t.Fatalf("before: %+v %v", rep, err)
			}
			// What the edit is about, as stored before it.
			ids := map[string]int64{"second": second.ID, "Tests": f.auth.ID, "urn:nbn:de:": rule.ID, "urn:example:a": a.ID, "urn:example:b": b.ID}
			if toks, err := f.st.Tokens(ctx, f.auth.ID); err == nil {
				for _, tk := range toks {
					if tk.Label == "Tests" {
						ids["Tests-token"] = tk.ID
					}
				}
			}
			res, err := rawDB(t, f.st).Exec(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("the edit changed %d rows", n)
			}
			// The edit is real.
			switch {
			case tc.lookup == "second":
				tc.lookup = secret
				fallthrough
			case strings.HasPrefix(tc.lookup, "urikit_"):
				if _, err := f.svc.Authenticate(ctx, tc.lookup); err != nil {
					t.Fatalf("the token after the edit: %v", err)
				}
			case tc.lookup != "":
				if recs, _, err := f.svc.ByLocation(ctx, tc.lookup, true); err != nil || len(recs) != 1 || recs[0].ID != b.ID {
					t.Fatalf("L2N after the edit: %+v %v", recs, err)
				}
			}
			rep, err := f.svc.VerifyAll(ctx, nil)
			if resolver.IsChainError(err) {
				t.Fatalf("the history does not verify: %v", err)
			}
			if head, _ := f.st.Head(ctx); rep.Entries != head.Seq {
				t.Errorf("the chain was checked to entry %d of %d", rep.Entries, head.Seq)
			}
			var ae *resolver.AccessError
			var se *resolver.StateError
			switch {
			case tc.kind == "record":
				if !errors.As(err, &se) {
					t.Fatalf("Verify after %s: %v", tc.sql, err)
				}
				if id, known := ids[tc.of]; known && se.RecordID != id || se.URN != tc.of {
					t.Errorf("names record %d %q, want %q: %v", se.RecordID, se.URN, tc.of, err)
				}
			case !errors.As(err, &ae):
				t.Fatalf("Verify after %s: %v", tc.sql, err)
			case ae.Kind != tc.kind:
				t.Errorf("names a %s: %v", ae.Kind, err)
			default:
				id, known := ids[tc.of]
				if tc.of == "Tests" && tc.kind == "token" {
					id = ids["Tests-token"]
				}
				if known && ae.ID != id {
					t.Errorf("names %s %d, want %d: %v", ae.Kind, ae.ID, id, err)
				}
				if tc.kind == "token" && ae.Authority != f.auth.ID {
					t.Errorf("names authority %d: %v", ae.Authority, err)
				}
			}
			want := tc.want
			if tc.kind == "record" {
				want = append(want, tc.of)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "urikit_") || strings.Contains(strings.ToLower(err.Error()), strings.ToLower(forged[2:len(forged)-1])) {
				t.Errorf("%q shows a token or its hash", err)
			}
		})
	}
}

// TestVerifyFindsTimeGoingBack: a history entry whose time is set with SQL
// to before the time of the entry before it, the later hashes computed
// again so that the chain still links (as a history an older build wrote,
// or one edited by hand, would be), fails Verify at that entry, naming
// both entries and their times and that as-of lookups go wrong: they find
// entries by a binary search over Seq that relies on the order.
func TestVerifyFindsTimeGoingBack(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir())
	if _, _, err := f.svc.Put(ctx, f.m, "urn:example:a", input("https://example.org/a")); err != nil {
		t.Fatal(err)
	}
	// An entry about no record: its time is in no record's snapshot, so
	// the edit leaves the records and their snapshots agreeing.
	if _, err := f.svc.AddRule(ctx, f.admin, "urn:nbn:de:", "https://resolver.example/"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.Put(ctx, f.m, "urn:example:b", input("https://example.org/b")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, nil); err != nil {
		t.Fatalf("before the edit: %v", err)
	}
	log, err := f.st.Log(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	at := slices.IndexFunc(log, func(e resolver.Entry) bool { return e.Action == resolver.ActionRuleAdd })
	if at < 1 || at == len(log)-1 {
		t.Fatalf("the rule's entry is %d of %d", at, len(log))
	}
	back := log[at-1].Time.Add(-time.Second)
	log[at].Time = back
	db := rawDB(t, f.st)
	for i := at; i < len(log); i++ {
		e := &log[i]
		e.Prev = log[i-1].Hash
		e.Hash = resolver.ChainHash(e.Prev, *e)
		if _, err := db.Exec(`UPDATE history SET time = ?, prev = ?, hash = ? WHERE seq = ?`, e.Time.UnixMicro(), e.Prev, e.Hash, e.Seq); err != nil {
			t.Fatal(err)
		}
	}
	n, err := f.svc.Verify(ctx, nil)
	var ce *resolver.ChainError
	if !errors.As(err, &ce) || ce.Seq != log[at].Seq || n != log[at-1].Seq {
		t.Fatalf("Verify after entry %d was set back: %d entries verified, %v", log[at].Seq, n, err)
	}
	for _, w := range []string{
		fmt.Sprintf("history entry %d: its time %s is earlier than the time of entry %d, %s", log[at].Seq,
			back.Format(time.RFC3339Nano), log[at-1].Seq, log[at-1].Time.Format(time.RFC3339Nano)),
		"as-of lookups",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
}
