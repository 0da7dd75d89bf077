package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// Schema fixtures: testdata/schema-vN/ holds a database file that a build
// whose schema was version N wrote, through the Service, and want.json,
// everything that build read back from it through the Store's read
// methods (storeDump). TestSchemaFixtures opens a copy of each with this
// build, which migrates it, and checks that every read gives the same
// answer as before.
//
// TestMakeSchemaFixture writes such a pair with this build's schema:
//
//	URIKIT_MAKE_SCHEMA_FIXTURE=testdata/schema-v2 go test -run TestMakeSchemaFixture ./resolver/sqlite
//
// testdata/schema-v1 was made so with the tree of commit a4d5b4a, the last
// one with schema version 1, and this file; testdata/schema-v2 with the
// tree of commit 9aff447, the last one with schema version 2.
const envMakeFixture = "URIKIT_MAKE_SCHEMA_FIXTURE"

// storeDump is everything the Store's read methods return about a store,
// every field of every value (the types of package resolver leave some out
// of their JSON), in a form that compares as JSON.
type storeDump struct {
	Records     []dumpRecord
	Keys        map[int64][]resolver.Key // by record ID
	Histories   map[int64][]dumpEntry    // by record ID
	ByKey       map[string]string        // key: "record ID/role"
	ByLocation  map[string][]int64       // location key: record IDs
	Duplicates  []dumpDuplicate
	StaleKeys   map[int][]resolver.Key // by version asked about
	Log         []dumpEntry
	Head        dumpEntry
	Authorities []resolver.Authority
	Tokens      map[int64][]resolver.Token // by authority ID
	Rules       []resolver.Rule
	Settings    map[string]string
}

type dumpLocation struct{ URL, Type, Label, Key string }

// dumpDuplicate is a resolver.Duplicate without its Statuses, which the
// fixtures older than them do not hold (Records holds every status).
type dumpDuplicate struct {
	Key  string
	URNs []string
}

type dumpRecord struct {
	ID                int64
	URN, Key          string
	Aliases           []string
	Locations         []dumpLocation
	Metadata          *string // nil for a nil json.RawMessage
	Status            resolver.Status
	Redirect          int
	Successor, Reason string
	AuthorityID       int64
	Created, Updated  time.Time
}

func dumpRec(r resolver.Record) dumpRecord {
	d := dumpRecord{ID: r.ID, URN: r.URN, Key: r.Key, Aliases: r.Aliases, Status: r.Status, Redirect: r.Redirect,
		Successor: r.Successor, Reason: r.Reason, AuthorityID: r.AuthorityID, Created: r.Created, Updated: r.Updated}
	if r.Locations != nil {
		d.Locations = []dumpLocation{}
	}
	for _, l := range r.Locations {
		d.Locations = append(d.Locations, dumpLocation(l))
	}
	if r.Metadata != nil {
		m := string(r.Metadata)
		d.Metadata = &m
	}
	return d
}

// dumpEntry is every field of a resolver.Entry (whose own JSON leaves
// some out), Data as a string: json.Marshal would compact a
// json.RawMessage, and fail on one that is not JSON.
type dumpEntry struct {
	Seq         int64
	Time        time.Time
	Action      resolver.Action
	Subject     string
	RecordID    int64
	AuthorityID int64
	Actor, Data string
	Prev, Hash  []byte
}

func dumpEntries(es []resolver.Entry) []dumpEntry {
	out := []dumpEntry{}
	for _, e := range es {
		out = append(out, dumpEntry{e.Seq, e.Time, e.Action, e.Subject, e.RecordID, e.AuthorityID, e.Actor, string(e.Data), e.Prev, e.Hash})
	}
	return out
}

// fixtureSettings are the settings the fixture stores (the Service's own
// among them).
var fixtureSettings = []string{"admin-token-sha256", "fixture-note"}

func dumpStore(t *testing.T, st *sqlite.Store) storeDump {
	t.Helper()
	ctx := context.Background()
	d := storeDump{Keys: map[int64][]resolver.Key{}, Histories: map[int64][]dumpEntry{}, ByKey: map[string]string{},
		ByLocation: map[string][]int64{}, StaleKeys: map[int][]resolver.Key{}, Tokens: map[int64][]resolver.Token{}, Settings: map[string]string{}}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	recs, err := st.Records(ctx, 0, 1<<20)
	check(err)
	for _, r := range recs {
		d.Records = append(d.Records, dumpRec(r))
		one, err := st.Record(ctx, r.ID)
		check(err)
		if fmt.Sprint(one) != fmt.Sprint(r) {
			t.Fatalf("Record(%d) = %+v, Records says %+v", r.ID, one, r)
		}
		d.Keys[r.ID], err = st.Keys(ctx, r.ID)
		check(err)
		for _, k := range d.Keys[r.ID] {
			got, role, err := st.RecordByKey(ctx, k.Key)
			check(err)
			if fmt.Sprint(got) != fmt.Sprint(r) {
				t.Fatalf("RecordByKey(%s) = %+v, want %+v", k.Key, got, r)
			}
			d.ByKey[k.Key] = fmt.Sprintf("%d/%s", got.ID, role)
		}
		h, err := st.History(ctx, r.ID, 0, 1<<20) // the test's records have a few entries each
		check(err)
		d.Histories[r.ID] = dumpEntries(h)
		for _, l := range r.Locations {
			recs, err := st.RecordsByLocation(ctx, l.Key, 0, 1000, true)
			check(err)
			d.ByLocation[l.Key] = nil
			for _, x := range recs {
				d.ByLocation[l.Key] = append(d.ByLocation[l.Key], x.ID)
			}
		}
	}
	dups, err := st.DuplicateLocations(ctx, "", 1000, true)
	check(err)
	for _, x := range dups {
		d.Duplicates = append(d.Duplicates, dumpDuplicate{Key: x.Key, URNs: x.URNs})
	}
	for v := 1; v <= urn.KeyVersion+1; v++ {
		d.StaleKeys[v], err = st.StaleKeys(ctx, v, "", 1000)
		check(err)
	}
	log, err := st.Log(ctx, 0, 1<<20)
	check(err)
	d.Log = dumpEntries(log)
	head, err := st.Head(ctx)
	check(err)
	d.Head = dumpEntries([]resolver.Entry{head})[0]
	d.Authorities, err = st.Authorities(ctx)
	check(err)
	for _, a := range d.Authorities {
		d.Tokens[a.ID], err = st.Tokens(ctx, a.ID)
		check(err)
		for _, tok := range d.Tokens[a.ID] {
			got, err := st.TokenByHash(ctx, tok.Hash)
			check(err)
			if fmt.Sprint(got) != fmt.Sprint(tok) {
				t.Fatalf("TokenByHash = %+v, want %+v", got, tok)
			}
		}
	}
	d.Rules, err = st.Rules(ctx)
	check(err)
	for _, name := range fixtureSettings {
		d.Settings[name], err = st.Setting(ctx, name)
		check(err)
	}
	return d
}

func dumpJSON(t *testing.T, d storeDump) []byte {
	t.Helper()
	b, err := json.MarshalIndent(d, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestMakeSchemaFixture writes a schema fixture (see envMakeFixture).
func TestMakeSchemaFixture(t *testing.T) {
	out := os.Getenv(envMakeFixture)
	if out == "" {
		t.Skip("set " + envMakeFixture + " to the directory to write")
	}
	ctx := context.Background()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, sqlite.FileName)); err == nil {
		t.Fatalf("%s already holds a database", out)
	}
	clock := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	st, err := sqlite.Open(ctx, out, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := resolver.New(st, resolver.Options{Clock: func() time.Time {
		clock = clock.Add(1234567 * time.Nanosecond)
		return clock
	}})
	if _, err := svc.EnsureAdminToken(ctx); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	admin := resolver.Principal{Admin: true}
	auth, tok, err := svc.CreateAuthority(ctx, admin, "Fixture Library", []string{"urn:example:", "urn:isbn:"})
	must(err)
	m, err := svc.Authenticate(ctx, tok)
	must(err)
	other, _, err := svc.CreateAuthority(ctx, admin, "Other Archive", []string{"urn:nbn:de:101-"})
	must(err)
	revoked, _, err := svc.AddToken(ctx, admin, auth.ID, "a maintainer who left")
	must(err)
	must(svc.RevokeToken(ctx, admin, auth.ID, revoked.ID))
	_, err = svc.AddRule(ctx, admin, "urn:nbn:ch:", "https://resolver.example.ch/")
	must(err)
	must(st.Update(ctx, func(tx resolver.Tx) error {
		return tx.SetSetting(ctx, "fixture-note", "written by TestMakeSchemaFixture")
	}))

	loc := func(url, typ, label string) resolver.Location {
		return resolver.Location{URL: url, Type: typ, Label: label}
	}
	put := func(name string, in resolver.RecordInput) {
		t.Helper()
		if _, _, err := svc.Put(ctx, m, name, in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The name as first written stays the record's: a spelling that is not
	// its key, in the NID's case and as an ISBN-10.
	put("URN:Example:Mixed-Case", resolver.RecordInput{Locations: []resolver.Location{loc("https://example.org/mixed", "", "")}})
	put("urn:ISBN:0-395-36341-1", resolver.RecordInput{
		Aliases:   []string{"urn:example:book", "URN:EXAMPLE:Book-Other"},
		Locations: []resolver.Location{loc("https://example.org/book", "text/html", "the book"), loc("HTTPS://Mirror.Example:443/book", "application/pdf", "")},
		Metadata:  json.RawMessage(`{"title":"Ünïcode ✓ <&>","year":1986}`),
		Redirect:  307,
	})
	// Dropping an alias retires it.
	put("urn:isbn:9780395363416", resolver.RecordInput{
		Aliases:   []string{"urn:example:book"},
		Locations: []resolver.Location{loc("https://mirror.example/book", "application/pdf", "a mirror")},
		Redirect:  301,
	})
	put("urn:example:shared-1", resolver.RecordInput{Locations: []resolver.Location{loc("https://shared.example/x", "", "")}})
	put("urn:example:shared-2", resolver.RecordInput{Locations: []resolver.Location{loc("https://shared.example/x", "", ""), loc("https://shared.example/x#frag", "", "")}})
	put("urn:example:gone", resolver.RecordInput{Locations: []resolver.Location{loc("https://example.org/gone", "", "")}})
	_, err = svc.Withdraw(ctx, m, "urn:example:gone", "superseded — see the successor", "urn:example:shared-1")
	must(err)
	put("urn:example:gone-quietly", resolver.RecordInput{Locations: []resolver.Location{loc("https://example.org/quiet", "", "")}})
	_, err = svc.Withdraw(ctx, m, "urn:example:gone-quietly", "", "")
	must(err)
	// A batch through PutMany: the bulk path.
	var batch []resolver.NamedInput
	for i := range 40 {
		in := resolver.NamedInput{URN: fmt.Sprintf("urn:example:batch:%03d", i), RecordInput: resolver.RecordInput{
			Locations: []resolver.Location{loc(fmt.Sprintf("https://example.org/batch/%d", i), "text/html", "")},
			Metadata:  json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)),
		}}
		if i%4 == 0 {
			in.Aliases = []string{fmt.Sprintf("urn:example:batch-alias:%03d", i)}
		}
		if i%5 == 0 {
			in.Locations = append(in.Locations, loc(fmt.Sprintf("https://mirror.example/batch/%d", i), "", "mirror"))
		}
		if i%7 == 0 {
			in.URN = strings.ToUpper(in.URN[:3]) + in.URN[3:]
		}
		batch = append(batch, in)
	}
	res, err := svc.PutMany(ctx, m, batch)
	must(err)
	for _, r := range res {
		must(r.Err)
	}
	if n, err := svc.Verify(ctx, nil); err != nil || n == 0 {
		t.Fatalf("verify: %d %v", n, err)
	}
	// A key stored under an older key version, as urikit migrate finds it,
	// put straight into the keys table: verify names it (it has no history
	// entry), which TestSchemaFixtures expects.
	r, err := svc.Lookup(ctx, urn.MustParse("urn:example:shared-1"))
	must(err)
	must(st.Update(ctx, func(tx resolver.Tx) error {
		if err := tx.PutKey(ctx, resolver.Key{Key: "urn:example:old-style-key", Spelling: "urn:example:Old-Style-Key", RecordID: r.ID, Role: resolver.RoleAlias, Version: 1}); err != nil {
			return err
		}
		// A second key of role name, which is not the one the record
		// names, as while urikit migrate re-keys a record.
		return tx.PutKey(ctx, resolver.Key{Key: "urn:example:another-name", Spelling: "urn:example:Another-Name", RecordID: r.ID, Role: resolver.RoleName, Version: 1})
	}))
	_ = other
	d := dumpStore(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	must(os.WriteFile(filepath.Join(out, "want.json"), dumpJSON(t, d), 0o644))
}

// TestSchemaFixtures: each database an older build wrote migrates to this
// build's schema and reads back exactly as that build read it; the history
// chain still verifies; the file is sound (integrity_check,
// foreign_key_check); and the migrated store takes new writes, also
// through the bulk path.
func TestSchemaFixtures(t *testing.T) {
	dirs, err := filepath.Glob("testdata/schema-v*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no schema fixtures: %v", err)
	}
	for _, src := range dirs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			db, err := os.ReadFile(filepath.Join(src, sqlite.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, sqlite.FileName), db, 0o600); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(src, "want.json"))
			if err != nil {
				t.Fatal(err)
			}
			st := openStore(t, dir, sqlite.Options{})
			m := st.Migration()
			var from int
			fmt.Sscanf(filepath.Base(src), "schema-v%d", &from)
			if m.From != from || m.To != sqlite.Latest || len(m.Applied) != sqlite.Latest-from {
				t.Fatalf("migration %+v, want from %d to %d", m, from, sqlite.Latest)
			}
			got := dumpJSON(t, dumpStore(t, st))
			if string(got) != string(want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("after the migration, line %d of the dump is\n%s\nwant\n%s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("after the migration the dump has %d lines, want %d", len(gl), len(wl))
			}
			svc := resolver.New(st, resolver.Options{AdminToken: adminToken})
			raw := rawDB(t, st)
			// Migration 3 computed the successor key of the record the
			// old build withdrew: its successor lists it as a predecessor,
			// found through the index (Verify below checks the key).
			succ, err := svc.Lookup(ctx, urn.MustParse("urn:example:shared-1"))
			if err != nil {
				t.Fatal(err)
			}
			if preds, _, err := svc.Predecessors(ctx, succ); err != nil || !slices.Equal(preds, []string{"urn:example:gone"}) {
				t.Fatalf("predecessors of the old withdrawal's successor: %q %v", preds, err)
			}
			var keyed, versioned int
			if err := raw.QueryRow(`SELECT count(successor_key), count(successor_version) FROM records`).Scan(&keyed, &versioned); err != nil || keyed != 1 || versioned != 1 {
				t.Fatalf("successor keys after the migration: %d keys, %d versions, %v; want 1 and 1 (one withdrawal with a successor)", keyed, versioned, err)
			}
			// The fixture's stale key and second name key were put straight
			// into the keys table (to give StaleKeys and the re-keying code
			// something to find), with no history entry: verify names the
			// first it meets, and passes once both are gone.
			for _, spelling := range []string{"urn:example:Another-Name", "urn:example:Old-Style-Key"} {
				if _, err := svc.Verify(ctx, nil); err == nil || !strings.Contains(err.Error(), `"`+spelling+`"`) {
					t.Fatalf("verify of the fixture, whose key %s has no history entry: %v", spelling, err)
				}
				if _, err := raw.Exec(`DELETE FROM keys WHERE spelling = ?`, spelling); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := svc.Verify(ctx, nil); err != nil || n == 0 {
				t.Fatalf("verify: %d %v", n, err)
			}
			// The file keeps the page size it was made with (bytes 16-17
			// of its header).
			var pageSize int
			if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != int(db[16])<<8|int(db[17]) {
				t.Fatalf("page size: %d %v, the file's was %d", pageSize, err, int(db[16])<<8|int(db[17]))
			}
			var check string
			if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check: %s %v", check, err)
			}
			rows, err := raw.Query(`PRAGMA foreign_key_check`)
			if err != nil {
				t.Fatal(err)
			}
			if rows.Next() {
				t.Fatal("foreign_key_check finds a dangling reference")
			}
			rows.Close()

			// New writes go on from where the old build stopped.
			var d storeDump
			if err := json.Unmarshal(want, &d); err != nil {
				t.Fatal(err)
			}
			auth := d.Authorities[0]
			p := resolver.Principal{AuthorityID: auth.ID, TokenID: d.Tokens[auth.ID][0].ID}
			var batch []resolver.NamedInput
			for i := range 30 {
				batch = append(batch, resolver.NamedInput{URN: fmt.Sprintf("urn:example:after:%d", i), RecordInput: resolver.RecordInput{
					Aliases:   []string{fmt.Sprintf("urn:example:after-alias:%d", i)},
					Locations: []resolver.Location{{URL: fmt.Sprintf("https://example.org/after/%d", i)}},
				}})
			}
			batch = append(batch, resolver.NamedInput{URN: "urn:example:batch-alias:004", RecordInput: resolver.RecordInput{
				Locations: []resolver.Location{{URL: "https://example.org/taken"}}}})
			res, err := svc.PutMany(ctx, p, batch)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if i < 30 && (r.Err != nil || !r.Created || r.Record.ID != d.Records[len(d.Records)-1].ID+int64(i)+1) {
					t.Fatalf("record %d after the migration: %+v", i, r)
				}
			}
			if resolver.KindOf(res[30].Err) != resolver.KindConflict {
				t.Fatalf("an alias of the old data taken again: %+v", res[30])
			}
			if n, err := svc.Verify(ctx, nil); err != nil || n != int64(len(d.Log)+30) {
				t.Fatalf("verify after new writes: %d %v", n, err)
			}
			if k, err := st.Keys(ctx, res[29].Record.ID); err != nil || len(k) != 2 || k[0].Role != resolver.RoleName || k[1].Spelling != "urn:example:after-alias:29" {
				t.Fatalf("keys of a new record: %+v %v", k, err)
			}
			if !slices.ContainsFunc(d.Records, func(r dumpRecord) bool { return r.Status == resolver.Withdrawn }) {
				t.Fatal("the fixture has no withdrawn record")
			}
		})
	}
}
