package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// applicationID marks a database file as urikit's (PRAGMA application_id,
// bytes 68-71 of the file header), so that Open refuses a file some other
// program wrote instead of adding tables to it. "URIk" in ASCII.
const applicationID = 0x5552496b

// A migration takes the schema from version-1 to version. Each runs in its
// own transaction together with the row that records it in schema_version,
// so a migration is applied completely or not at all, and a crash between
// two migrations leaves a database that the next Open continues from.
// Migrations are only ever appended to this list: a released one is never
// edited, since databases in the field already ran it.
type migration struct {
	version int
	name    string
	stmts   []string
	// fill, when set, runs after stmts in the same transaction: for data
	// that SQL cannot compute (an equivalence key is the urn package's).
	fill func(context.Context, *sql.Conn) error
}

var migrations = []migration{
	{1, "initial schema", []string{
		// Naming authorities. Prefixes are a JSON array of canonical
		// prefixes; the Service checks that they never overlap.
		`CREATE TABLE authorities (
			id       INTEGER PRIMARY KEY,
			name     TEXT    NOT NULL,
			prefixes TEXT    NOT NULL,
			created  INTEGER NOT NULL, -- Unix microseconds, as every time here
			updated  INTEGER NOT NULL
		)`,
		`CREATE TABLE tokens (
			id           INTEGER PRIMARY KEY,
			authority_id INTEGER NOT NULL REFERENCES authorities(id),
			label        TEXT    NOT NULL,
			hash         BLOB    NOT NULL UNIQUE, -- SHA-256 of the token
			created      INTEGER NOT NULL,
			revoked      INTEGER               -- NULL while valid
		)`,
		`CREATE INDEX tokens_authority ON tokens(authority_id)`,
		// Records: the columns a lookup needs, and body, the compact encoding
		// of aliases, locations and metadata (codec.go). IDs are never
		// reused: records are never deleted.
		`CREATE TABLE records (
			id           INTEGER PRIMARY KEY,
			urn          TEXT    NOT NULL,
			key          TEXT    NOT NULL,
			status       TEXT    NOT NULL CHECK (status IN ('active', 'withdrawn')),
			redirect     INTEGER NOT NULL,
			successor    TEXT    NOT NULL,
			reason       TEXT    NOT NULL,
			authority_id INTEGER NOT NULL,
			created      INTEGER NOT NULL,
			updated      INTEGER NOT NULL,
			body         BLOB    NOT NULL
		)`,
		// Every key a record ever had. The primary key on key is the unique
		// index that makes never-reuse and "exactly one record when
		// equivalent names race" hold whoever writes the file. WITHOUT
		// ROWID: the table is its own index, one B-tree descent per lookup.
		`CREATE TABLE keys (
			key       TEXT    NOT NULL PRIMARY KEY,
			spelling  TEXT    NOT NULL,
			record_id INTEGER NOT NULL REFERENCES records(id),
			role      TEXT    NOT NULL CHECK (role IN ('name', 'alias', 'retired')),
			version   INTEGER NOT NULL
		) WITHOUT ROWID`,
		// keys has no index on version: the stale keys are found through a
		// partial index that holds only them (ensureStaleIndex).
		`CREATE INDEX keys_record ON keys(record_id)`,
		// The location index for L2N, L2L and duplicate detection: one row
		// per record and normalized location. No index on record_id: an
		// update knows the record's old locations from its body and deletes
		// their rows by primary key.
		`CREATE TABLE locations (
			key       TEXT    NOT NULL,
			record_id INTEGER NOT NULL REFERENCES records(id),
			PRIMARY KEY (key, record_id)
		) WITHOUT ROWID`,
		// Delegation rules. AUTOINCREMENT: a removed rule's ID is never
		// given to a new rule, so "rule:ID" in the history stays unambiguous.
		`CREATE TABLE rules (
			id      INTEGER PRIMARY KEY AUTOINCREMENT,
			prefix  TEXT    NOT NULL UNIQUE,
			target  TEXT    NOT NULL,
			created INTEGER NOT NULL
		)`,
		`CREATE TABLE settings (
			name  TEXT NOT NULL PRIMARY KEY,
			value TEXT NOT NULL
		) WITHOUT ROWID`,
		// The history: one append-only log, seq without gaps from 1. data is
		// a BLOB, so SQLite keeps the bytes exactly as given (the chain hash
		// covers them).
		`CREATE TABLE history (
			seq          INTEGER PRIMARY KEY,
			time         INTEGER NOT NULL,
			action       TEXT    NOT NULL,
			subject      TEXT    NOT NULL,
			record_id    INTEGER NOT NULL,
			authority_id INTEGER NOT NULL,
			actor        TEXT    NOT NULL,
			data         BLOB    NOT NULL,
			prev         BLOB    NOT NULL,
			hash         BLOB    NOT NULL
		)`,
		`CREATE INDEX history_record ON history(record_id, seq)`,
	}, nil},
	// Smaller rows for records and keys, and no foreign key from keys and
	// locations to records. An import writes a record, a key and a
	// location or two a name, and checking each row's reference cost a
	// B-tree descent into records per key and location, a tenth of the
	// import; the references hold by construction (records are never
	// deleted, and a key or location is written with the ID of a record
	// just inserted or read in the same transaction), as in the PostgreSQL
	// store, which never had these foreign keys. Rows shrink where a value
	// says what another column says already:
	//   - records.key is NULL when it equals urn (a name written in its
	//     canonical form), keys.spelling NULL when it equals key: the
	//     name's text was stored up to six times;
	//   - records.successor and reason are NULL when empty;
	//   - status and role are small integers (statusCode, roleCode) instead
	//     of words, each of which is the same few bytes in every row;
	//   - keys_record, the index that finds a record's keys, leaves out
	//     the record's own name key (role 0), which records.key names
	//     already: an import's records mostly have that key only, and the
	//     index was one B-tree insert a record. A key of role name that is
	//     not its record's key (while urikit migrate re-keys) is role 3,
	//     and indexed.
	// SQLite cannot change a column's type or constraints in place, so
	// each table is copied into a new one, dropped and replaced: children
	// first, so that no foreign key ever points at a dropped table.
	{2, "smaller rows; keys and locations without per-row foreign key checks", []string{
		`CREATE TABLE keys_v2 (
			key       TEXT    NOT NULL PRIMARY KEY,
			spelling  TEXT,            -- NULL: the same as key
			record_id INTEGER NOT NULL,
			role      INTEGER NOT NULL CHECK (role IN (0, 1, 2, 3)), -- roleCodes
			version   INTEGER NOT NULL
		) WITHOUT ROWID`,
		`INSERT INTO keys_v2 (key, spelling, record_id, role, version)
			SELECT key, nullif(spelling, key), record_id,
				CASE role
				WHEN 'name' THEN CASE WHEN key IS (SELECT r.key FROM records r WHERE r.id = keys.record_id) THEN 0 ELSE 3 END
				WHEN 'alias' THEN 1 WHEN 'retired' THEN 2 END,
				version
			FROM keys ORDER BY key`,
		`DROP TABLE keys`,
		`ALTER TABLE keys_v2 RENAME TO keys`,
		`CREATE INDEX keys_record ON keys(record_id) WHERE role <> 0`,
		`CREATE TABLE locations_v2 (
			key       TEXT    NOT NULL,
			record_id INTEGER NOT NULL,
			PRIMARY KEY (key, record_id)
		) WITHOUT ROWID`,
		`INSERT INTO locations_v2 (key, record_id) SELECT key, record_id FROM locations ORDER BY key, record_id`,
		`DROP TABLE locations`,
		`ALTER TABLE locations_v2 RENAME TO locations`,
		`CREATE TABLE records_v2 (
			id           INTEGER PRIMARY KEY,
			urn          TEXT    NOT NULL,
			key          TEXT,            -- NULL: the same as urn
			status       INTEGER NOT NULL CHECK (status IN (0, 1)), -- statusCode
			redirect     INTEGER NOT NULL,
			successor    TEXT,            -- NULL: none
			reason       TEXT,            -- NULL: none
			authority_id INTEGER NOT NULL,
			created      INTEGER NOT NULL,
			updated      INTEGER NOT NULL,
			body         BLOB    NOT NULL
		)`,
		`INSERT INTO records_v2 (id, urn, key, status, redirect, successor, reason, authority_id, created, updated, body)
			SELECT id, urn, nullif(key, urn), CASE status WHEN 'active' THEN 0 WHEN 'withdrawn' THEN 1 END,
				redirect, nullif(successor, ''), nullif(reason, ''), authority_id, created, updated, body
			FROM records ORDER BY id`,
		`DROP TABLE records`,
		`ALTER TABLE records_v2 RENAME TO records`,
	}, nil},
	// Predecessor links: a withdrawn record's successor, when it is a URN,
	// is stored as its equivalence key too (resolver.SuccessorKeyOf), with
	// the urn.KeyVersion that computed it as the keys table does, so that
	// the records a record replaces are found by its keys
	// (Reader.Predecessors) through a partial index that holds only the
	// rows with a key: a few, in a directory of mostly active names.
	// successor_version is NULL when there is no successor. The records
	// written before get them from fillSuccessorKeys.
	{3, "successor keys for predecessor links", []string{
		`ALTER TABLE records ADD COLUMN successor_key TEXT`,
		`ALTER TABLE records ADD COLUMN successor_version INTEGER`,
		`CREATE INDEX records_successor ON records(successor_key) WHERE successor_key IS NOT NULL`,
	}, fillSuccessorKeys},
}

// fillSuccessorKeys computes the successor key of every record that has a
// successor, by this build's rules (migration 3). Only withdrawn records
// have one.
func fillSuccessorKeys(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, `SELECT id, successor FROM records WHERE successor IS NOT NULL`)
	if err != nil {
		return err
	}
	type fill struct {
		id        int64
		successor string
	}
	var fills []fill
	for rows.Next() {
		var f fill
		if err := rows.Scan(&f.id, &f.successor); err != nil {
			rows.Close()
			return err
		}
		fills = append(fills, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range fills {
		key, version := resolver.SuccessorKeyOf(f.successor)
		var k any
		if key != "" {
			k = key
		}
		if _, err := conn.ExecContext(ctx, `UPDATE records SET successor_key = ?, successor_version = ? WHERE id = ?`, k, version, f.id); err != nil {
			return fmt.Errorf("record %d: %w", f.id, err)
		}
	}
	return nil
}

// Latest is the schema version this build writes.
var Latest = migrations[len(migrations)-1].version

// Migration says what Migrate did: the schema version found and the one
// left, and the names of the migrations applied in between.
type Migration struct {
	From, To int
	Applied  []string
}

// ErrNewerSchema is returned (wrapped) by Open for a database whose schema
// a newer urikit wrote: this build does not know its tables, and writing to
// them could break what the newer one relies on.
var ErrNewerSchema = errors.New("the database was written by a newer urikit")

// migrate brings the schema on conn to Latest. It is safe when several
// processes open the same new file at once: each migration re-reads the
// version under the write lock (BEGIN IMMEDIATE) and skips what another
// process applied in the meantime.
func migrate(ctx context.Context, conn *sql.Conn) (Migration, error) {
	var m Migration
	if err := checkApplicationID(ctx, conn); err != nil {
		return m, err
	}
	from, err := schemaVersion(ctx, conn)
	if err != nil {
		return m, err
	}
	m.From, m.To = from, from
	if from > Latest {
		return m, fmt.Errorf("%w: its schema is version %d, this build knows up to %d; upgrade urikit", ErrNewerSchema, from, Latest)
	}
	for _, mg := range migrations {
		if mg.version <= m.To {
			continue
		}
		applied, err := applyMigration(ctx, conn, mg)
		if err != nil {
			return m, fmt.Errorf("schema migration %d (%s): %w", mg.version, mg.name, err)
		}
		if applied {
			m.Applied = append(m.Applied, fmt.Sprintf("%d: %s", mg.version, mg.name))
		}
		m.To = mg.version
	}
	return m, nil
}

// staleIndex names the partial index of the keys that this build's
// urn.KeyVersion makes stale, staleSuccessorIndex that of the records
// whose successor key it makes stale.
var (
	staleIndex          = fmt.Sprintf("keys_stale_v%d", urn.KeyVersion)
	staleSuccessorIndex = fmt.Sprintf("records_successor_due_v%d", urn.KeyVersion)
)

// staleSuccessorWhere is the condition of the records whose successor key
// this build computes (resolver.SuccessorStale), on the columns of table
// alias as ("" for none): the partial index's and the query's, written
// the same.
func staleSuccessorWhere(as string) string {
	if as != "" {
		as += "."
	}
	return fmt.Sprintf(`%[1]ssuccessor IS NOT NULL AND (%[1]ssuccessor_version IS NULL OR %[1]ssuccessor_version < %[2]d)`, as, urn.KeyVersion)
}

// ensureStaleIndex creates, when missing, a partial index of the keys whose
// version is below urn.KeyVersion: the keys Service.Migrate must compute
// again. It is derived data, not schema: it depends on the urn package this
// build has, so it is made at Open rather than by a migration. Every key a
// build writes has its own version, so the index is empty in the steady
// state and costs nothing to keep, while StaleKeys reads only stale keys
// instead of every key in the directory. Creating it reads the keys once,
// only after an upgrade that changed the equivalence rules (exactly when a
// re-key is due). Indexes for other versions are left alone: an older build
// opening the same file (the CLI beside a newer server) keeps its own, and
// each is as small as the keys stale for it.
//
// The successor keys (records.successor_key, schema 3) get the same: a
// partial index of the records with a successor whose successor_version
// is below this build's, or NULL (never computed: a record withdrawn by a
// build before schema 3 since), which StaleSuccessors reads; its
// condition is written as qStaleSuccessorsCurrent's, the form SQLite
// needs to see that the query's implies it. (records_successor_stale_vN,
// left by a development build, held only the versions below.)
func ensureStaleIndex(ctx context.Context, conn *sql.Conn) error {
	for _, ix := range []struct{ name, def string }{
		{staleIndex, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON keys(key) WHERE version < %d`, staleIndex, urn.KeyVersion)},
		{staleSuccessorIndex, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON records(id) WHERE %s`, staleSuccessorIndex, staleSuccessorWhere(""))},
	} {
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?`, ix.name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := conn.ExecContext(ctx, ix.def); err != nil {
			return err
		}
	}
	return nil
}

// checkApplicationID refuses a file that is a database of another program,
// and marks a fresh one as urikit's.
func checkApplicationID(ctx context.Context, conn *sql.Conn) error {
	id, err := applicationIDOf(ctx, conn)
	if err != nil || id == applicationID {
		return err // urikit's: no lock needed, whoever writes meanwhile
	}
	if id == 0 {
		return markFresh(ctx, conn)
	}
	return fmt.Errorf("the file holds an SQLite database of another program (application_id %#x)", id)
}

func applicationIDOf(ctx context.Context, conn *sql.Conn) (int64, error) {
	var id int64
	err := conn.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&id)
	return id, err
}

// markFresh marks as urikit's a file whose application_id is unset, if it
// holds no tables of another program. It reads again and marks in one
// write transaction: two processes opening a fresh file at once would
// otherwise interleave, one reading the unset id, the other marking the
// file and creating its tables, and the first, counting those tables,
// would take the file for another program's.
func markFresh(ctx context.Context, conn *sql.Conn) (err error) {
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	defer func() {
		end := `COMMIT`
		if err != nil {
			end = `ROLLBACK`
		}
		if _, cerr := conn.ExecContext(context.WithoutCancel(ctx), end); err == nil {
			err = cerr
		}
	}()
	id, err := applicationIDOf(ctx, conn)
	if err != nil || id == applicationID {
		return err // marked by another process meanwhile
	}
	if id != 0 {
		return fmt.Errorf("the file holds an SQLite database of another program (application_id %#x)", id)
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name <> 'schema_version'`).Scan(&tables); err != nil {
		return err
	}
	if tables > 0 {
		return errors.New("the file holds an SQLite database that is not urikit's (its application_id is unset and it has tables of its own)")
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, applicationID))
	return err
}

func schemaVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var exists int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'`).Scan(&exists)
	if err != nil || exists == 0 {
		return 0, err
	}
	var v int
	err = q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

func applyMigration(ctx context.Context, conn *sql.Conn, mg migration) (applied bool, err error) {
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			// A migration that failed half-way leaves nothing behind. The
			// rollback error, if any, is less useful than err.
			conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY,
		name    TEXT    NOT NULL,
		applied INTEGER NOT NULL
	)`); err != nil {
		return false, err
	}
	v, err := schemaVersion(ctx, conn)
	if err != nil {
		return false, err
	}
	if v >= mg.version {
		// Another process got here first.
		_, err := conn.ExecContext(ctx, `COMMIT`)
		return false, err
	}
	for _, s := range mg.stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return false, err
		}
	}
	if mg.fill != nil {
		if err := mg.fill(ctx, conn); err != nil {
			return false, err
		}
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied) VALUES (?, ?, ?)`,
		mg.version, mg.name, time.Now().UnixMicro()); err != nil {
		return false, err
	}
	_, err = conn.ExecContext(ctx, `COMMIT`)
	return err == nil, err
}
