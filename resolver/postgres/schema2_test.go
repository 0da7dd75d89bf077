package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestSchema2RepeatedColumns: a database of schema 1 is migrated to 2;
// from then on a column that would repeat another is stored as NULL, by a
// single write and by an import's COPY alike, and every read and Verify
// see the record as it was written; rows that hold the repeated values
// whole (as schema 1 wrote them) read the same; and NULL where the value
// differs is an edit Verify finds.
func TestSchema2RepeatedColumns(t *testing.T) {
	ctx := context.Background()
	dsn := cluster.NewDB(t)
	if from, err := postgres.MigrateTo(ctx, dsn, 1); err != nil || from != 0 {
		t.Fatalf("to schema 1: from %d, %v", from, err)
	}
	if st := open(t, dsn, postgres.Options{}); st.SchemaFound() != 1 { // Open migrates
		t.Fatalf("Open found schema %d, want 1", st.SchemaFound())
	}
	if from, err := postgres.Migrate(ctx, dsn); err != nil || from != postgres.SchemaVersion {
		t.Fatalf("Migrate again: from %d, %v", from, err)
	}
	st := open(t, dsn, postgres.Options{})
	if st.SchemaFound() != postgres.SchemaVersion {
		t.Fatalf("Open found schema %d, want %d", st.SchemaFound(), postgres.SchemaVersion)
	}
	svc, m := service(t, st)

	// The usual record (its name as written is its key, its URL in normal
	// form, no label), and one whose name, alias and first URL are not in
	// normal form and whose location has a label.
	plain := func(u string) resolver.RecordInput { return recordInput(u) }
	odd := func(alias, u string) resolver.RecordInput {
		return resolver.RecordInput{Aliases: []string{alias}, Locations: []resolver.Location{
			{URL: "HTTPS://Example.ORG:443" + u, Label: "scan"}, {URL: "https://example.org" + u + "/2"}}}
	}
	want := map[string]resolver.Record{}
	for name, in := range map[string]resolver.RecordInput{"urn:example:a": plain("https://example.org/a"), "urn:EXAMPLE:b": odd("urn:EXAMPLE:b-alias", "/b")} {
		rec, _, err := svc.Put(ctx, m, name, in)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = rec
	}
	res, err := svc.PutMany(ctx, m, []resolver.NamedInput{
		{URN: "urn:example:c", RecordInput: plain("https://example.org/c")},
		{URN: "urn:EXAMPLE:d", RecordInput: odd("urn:EXAMPLE:d-alias", "/d")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || !r.Created {
			t.Fatalf("PutMany: %+v", r)
		}
		want[r.Record.URN] = r.Record
	}
	if l := want["urn:EXAMPLE:d"].Locations[0]; l.Key == l.URL || want["urn:EXAMPLE:d"].Key == "urn:EXAMPLE:d" {
		t.Fatalf("the odd record is in normal form: %+v", want["urn:EXAMPLE:d"])
	}

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	same := func(when string) {
		t.Helper()
		for name, w := range want {
			got, err := svc.Lookup(ctx, urn.MustParse(strings.ToLower(name)))
			if err != nil {
				t.Fatalf("%s: %s: %v", when, name, err)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: %s reads\n%+v\nbut was written\n%+v", when, name, got, w)
			}
		}
		if _, err := svc.Verify(ctx, nil); err != nil {
			t.Fatalf("%s: Verify: %v", when, err)
		}
	}

	// a and c (one by Put, one by COPY): key, loc_labels, loc_keys and
	// their name's spelling NULL; b and d none of them.
	for _, q := range []string{
		`SELECT count(*) FROM records WHERE key IS NULL AND loc_labels IS NULL AND loc_keys IS NULL AND urn IN ('urn:example:a', 'urn:example:c')`,
		`SELECT count(*) FROM keys WHERE spelling IS NULL AND key IN ('urn:example:a', 'urn:example:c')`,
	} {
		if n := count(q); n != 2 {
			t.Errorf("%d rows, want 2: %s", n, q)
		}
	}
	for _, q := range []string{
		`SELECT count(*) FROM records WHERE key IS NULL OR loc_labels IS NULL OR loc_keys IS NULL`,
		`SELECT count(*) FROM keys WHERE spelling IS NULL`,
	} {
		if n := count(q); n != 2 {
			t.Errorf("%d rows, want 2 (a and c): %s", n, q)
		}
	}
	same("with NULLs")

	// As schema 1 held them: every value whole.
	exec(`UPDATE records SET key = coalesce(key, urn), loc_keys = coalesce(loc_keys, loc_urls),
		loc_labels = coalesce(loc_labels, array_fill(''::text, ARRAY[cardinality(loc_urls)]))`)
	exec(`UPDATE keys SET spelling = coalesce(spelling, key)`)
	same("whole")

	// NULL where the value is not the repeated one reads as the repeated
	// one: a different record, which Verify finds.
	exec(`CREATE TABLE saved_records AS SELECT * FROM records`)
	exec(`CREATE TABLE saved_keys AS SELECT * FROM keys`)
	for _, edit := range []string{
		`UPDATE records SET key = NULL WHERE urn = 'urn:EXAMPLE:b'`,
		`UPDATE records SET loc_keys = NULL WHERE urn = 'urn:EXAMPLE:d'`,
		`UPDATE records SET loc_labels = NULL WHERE urn = 'urn:EXAMPLE:d'`,
		`UPDATE keys SET spelling = NULL WHERE key = 'urn:example:d-alias'`,
	} {
		exec(edit)
		_, err := svc.Verify(ctx, nil)
		var se *resolver.StateError
		if !errors.As(err, &se) {
			t.Errorf("Verify after %s: %v", edit, err)
		}
		exec(`UPDATE records r SET key = s.key, loc_keys = s.loc_keys, loc_labels = s.loc_labels FROM saved_records s WHERE s.id = r.id`)
		exec(`UPDATE keys k SET spelling = s.spelling FROM saved_keys s WHERE s.key = k.key`)
		same("edit undone")
	}
}

// TestNewerSchemaStopsARunningInstance: an instance that is running when a
// newer urikit migrates the database to a schema it does not know answers
// every call with ErrUnavailable (503) and /readyz fails, rather than
// misread or miswrite the new schema's rows: at once when the migration's
// notification arrives, and within a quiet spell of the listener when it
// was missed.
func TestNewerSchemaStopsARunningInstance(t *testing.T) {
	ctx := context.Background()
	for _, notify := range []bool{true, false} {
		dsn := cluster.NewDB(t)
		st := open(t, dsn, postgres.Options{})
		svc, m := service(t, st)
		if _, _, err := svc.Put(ctx, m, "urn:example:a", recordInput("https://example.org/a")); err != nil {
			t.Fatal(err)
		}
		newer := postgres.SchemaVersion + 1
		sql := fmt.Sprintf(`INSERT INTO schema_migrations (version) VALUES (%d)`, newer)
		if notify {
			sql = fmt.Sprintf(`WITH m AS (%s) SELECT pg_notify('urikit_changes', '{"schema":%d}')`, sql, newer)
		}
		editWithSQL(t, dsn, sql)
		// The notification arrives within milliseconds; the listener's
		// quiet spell (2 s after the Put's notification) is not over
		// before 1.5 s.
		wait := 10 * time.Second
		if notify {
			wait = 1500 * time.Millisecond
		}
		deadline := time.Now().Add(wait)
		for st.Ping(ctx) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		err := st.Ping(ctx)
		if !errors.Is(err, resolver.ErrUnavailable) || !strings.Contains(err.Error(), fmt.Sprintf("version %d, newer", newer)) {
			t.Fatalf("notify %v: Ping: %v", notify, err)
		}
		if _, err := svc.Lookup(ctx, urn.MustParse("urn:example:a")); resolver.KindOf(err) != resolver.KindUnavailable {
			t.Errorf("notify %v: Lookup: %v", notify, err)
		}
		if _, _, err := svc.Put(ctx, m, "urn:example:b", recordInput("https://example.org/b")); resolver.KindOf(err) != resolver.KindUnavailable {
			t.Errorf("notify %v: Put: %v", notify, err)
		}
		// And a new instance of this build refuses to open it.
		if _, err := postgres.Open(ctx, dsn, postgres.Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("notify %v: Open: %v", notify, err)
		}
	}
}
