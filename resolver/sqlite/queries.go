package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/urikit/urikit/urn"
)

// query names one SQL statement. Every statement is prepared once per
// connection handle: the reader pool prepares the read statements (and
// database/sql keeps one prepared copy per reader connection), the writer
// connection prepares all of them.
type query int

const (
	// reads
	qRecordByKey query = iota
	qRecord
	qKeys
	qRecordsByLocation
	qRecordsByLocationActive
	qRecords
	qStaleKeysCurrent
	qStaleKeys
	qPredecessors
	qStaleSuccessorsCurrent
	qStaleSuccessors
	qDuplicateKeys
	qDuplicateKeysActive
	qDuplicateURNs
	qDuplicateURNsActive
	qAuthority
	qAuthorities
	qTokenByHash
	qTokens
	qRules
	qHistory
	qHistoryBefore
	qLog
	qHead
	qSetting
	numReadQueries // not a statement: the reads end here

	// writes
	qInsertRecord
	qUpdateRecord
	qInsertLocation
	qDeleteLocation
	qPutKey
	qDemoteOwnKey
	qPromoteOwnKey
	qDeleteKey
	qInsertAuthority
	qUpdateAuthority
	qInsertToken
	qUpdateToken
	qInsertRule
	qDeleteRule
	qSetSetting
	qAppend
	qDataVersion
	qTakenKeys
	qMaxRecordID
	qDeleteKeyAbove
	qDeleteRecordsAbove
	qDeleteEntriesAbove
	// Loader (load.go)
	qLoadRecord
	qLoadKey
	qLoadAuthority
	qLoadToken
	qLoadRule
	qReserveRuleIDs
	qRaiseRuleIDs
	numQueries
)

// recordCols and keyCols read the columns that schema 2 leaves NULL when
// they repeat another (records.key, keys.spelling) or are empty.
const recordCols = `r.id, r.urn, coalesce(r.key, r.urn), r.status, r.redirect, coalesce(r.successor, ''), coalesce(r.reason, ''), r.authority_id, r.created, r.updated, r.body, coalesce(r.successor_key, ''), coalesce(r.successor_version, 0)`
const keyCols = `key, coalesce(spelling, key), record_id, role, version`

// keyInsertCols are the columns of keys, in the order of keyArgs.
const keyInsertCols = `key, spelling, record_id, role, version`
const entryCols = `seq, time, action, subject, record_id, authority_id, actor, data, prev, hash`

var sqlText = [numQueries]string{
	// The hot path of I2L: the key's row in the keys table (its primary
	// key) and the record's row (its rowid): two B-tree descents.
	qRecordByKey: `SELECT k.role, ` + recordCols + ` FROM keys k JOIN records r ON r.id = k.record_id WHERE k.key = ?`,
	qRecord:      `SELECT ` + recordCols + ` FROM records r WHERE r.id = ?`,
	// A record's keys: its own name key, found through records.key (the
	// keys_record index leaves it out), and the others; names first.
	qKeys: `SELECT * FROM (
			SELECT ` + keyCols + ` FROM keys WHERE key = (SELECT coalesce(key, urn) FROM records WHERE id = ?) AND record_id = ? AND role = 0
			UNION ALL
			SELECT ` + keyCols + ` FROM keys WHERE record_id = ? AND role <> 0
		) ORDER BY role NOT IN (0, 3), key`, // roleOwnName, roleName
	// The records listing a location: a range of the location index's
	// primary key (key, record_id), in its order from the cursor, each
	// row's record by its rowid; LIMIT stops the range however many
	// records list the location. Ordered by l.record_id, the index's
	// column: the same order as r.id, which SQLite would sort in a
	// temporary B-tree.
	qRecordsByLocation: `SELECT ` + recordCols + ` FROM locations l JOIN records r ON r.id = l.record_id
		WHERE l.key = ? AND l.record_id > ? ORDER BY l.record_id LIMIT ?`,
	// The active ones only (status 0 is statusCode(Active)): withdrawn
	// records' rows are read and passed over.
	qRecordsByLocationActive: `SELECT ` + recordCols + ` FROM locations l JOIN records r ON r.id = l.record_id
		WHERE l.key = ? AND l.record_id > ? AND r.status = 0 ORDER BY l.record_id LIMIT ?`,
	qRecords: `SELECT ` + recordCols + ` FROM records r WHERE r.id > ? ORDER BY r.id LIMIT ?`,
	// Keys stale for this build's urn.KeyVersion come from the partial
	// index that holds only them (ensureStaleIndex; SQLite uses a partial
	// index only for a query whose WHERE has its condition written out, so
	// the version is a literal here). For any other version, the keys are
	// read in key order and filtered.
	qStaleKeysCurrent: fmt.Sprintf(`SELECT `+keyCols+` FROM keys INDEXED BY %s WHERE version < %d AND key > ? ORDER BY key LIMIT ?`, staleIndex, urn.KeyVersion),
	qStaleKeys:        `SELECT ` + keyCols + ` FROM keys WHERE key > ? AND version < ? ORDER BY key LIMIT ?`,
	// Predecessors, one key at a time: the partial index of successor
	// keys holds each key's rows in rowid order, so that LIMIT reads no
	// more than it returns however many records name one successor.
	qPredecessors: `SELECT r.id, r.urn FROM records r INDEXED BY records_successor
		WHERE r.successor_key = ? AND r.id > ? ORDER BY r.id LIMIT ?`,
	// Stale successor keys, as stale keys: from the partial index for this
	// build's version (ensureStaleIndex), else by ID and filtered. A
	// successor whose version is NULL has no key yet: it is stale for any
	// version (a NULL successor, none, is never).
	qStaleSuccessorsCurrent: fmt.Sprintf(`SELECT `+recordCols+` FROM records r INDEXED BY %s WHERE %s AND r.id > ? ORDER BY r.id LIMIT ?`,
		staleSuccessorIndex, staleSuccessorWhere("r")),
	qStaleSuccessors: `SELECT ` + recordCols + ` FROM records r WHERE r.id > ? AND r.successor IS NOT NULL
		AND (r.successor_version IS NULL OR r.successor_version < ?) ORDER BY r.id LIMIT ?`,
	qDuplicateKeys: `SELECT key FROM locations WHERE key > ? GROUP BY key HAVING count(*) > 1 ORDER BY key LIMIT ?`,
	// The records of a duplicate location, as qRecordsByLocation reads
	// them: a range of the location index, cut at the limit (one more
	// than a Duplicate holds) however many records list the location.
	qDuplicateURNs: `SELECT r.id, r.urn, r.status FROM locations l JOIN records r ON r.id = l.record_id
		WHERE l.key = ? ORDER BY l.record_id LIMIT ?`,
	qDuplicateURNsActive: `SELECT r.id, r.urn, r.status FROM locations l JOIN records r ON r.id = l.record_id
		WHERE l.key = ? AND r.status = 0 ORDER BY l.record_id LIMIT ?`,
	qAuthority:   `SELECT id, name, prefixes, created, updated FROM authorities WHERE id = ?`,
	qAuthorities: `SELECT id, name, prefixes, created, updated FROM authorities ORDER BY id`,
	qTokenByHash: `SELECT id, authority_id, label, hash, created, revoked FROM tokens WHERE hash = ?`,
	qTokens:      `SELECT id, authority_id, label, hash, created, revoked FROM tokens WHERE authority_id = ? ORDER BY id`,
	qRules:       `SELECT id, prefix, target, created FROM rules ORDER BY id`,
	// A record's history a page at a time, either way: a range of the
	// history_record index (record_id, seq), read forwards or backwards
	// from the cursor. Newest first, the time bound is checked row by row
	// (times grow with seq, so the first row at or before it is the last
	// one), which reads the rows newer than it but not their data.
	qHistory:       `SELECT ` + entryCols + ` FROM history WHERE record_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
	qHistoryBefore: `SELECT ` + entryCols + ` FROM history WHERE record_id = ? AND seq < ? AND time <= ? ORDER BY seq DESC LIMIT ?`,
	qLog:           `SELECT ` + entryCols + ` FROM history WHERE seq > ? ORDER BY seq LIMIT ?`,
	qHead:          `SELECT ` + entryCols + ` FROM history ORDER BY seq DESC LIMIT 1`,
	qSetting:       `SELECT value FROM settings WHERE name = ?`,

	// The keys several active records list: the index in key order, each
	// row's record by its rowid (status 0 is statusCode(Active)).
	qDuplicateKeysActive: `SELECT l.key FROM locations l JOIN records r ON r.id = l.record_id
		WHERE l.key > ? AND r.status = 0 GROUP BY l.key HAVING count(*) > 1 ORDER BY l.key LIMIT ?`,

	qInsertRecord: `INSERT INTO records (urn, key, status, redirect, successor, reason, authority_id, created, updated, body, successor_key, successor_version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateRecord: `UPDATE records SET urn = ?, key = ?, status = ?, redirect = ?, successor = ?, reason = ?,
		authority_id = ?, created = ?, updated = ?, body = ?, successor_key = ?, successor_version = ? WHERE id = ?`,
	qInsertLocation: `INSERT OR IGNORE INTO locations (key, record_id) VALUES (?, ?)`,
	qDeleteLocation: `DELETE FROM locations WHERE key = ? AND record_id = ?`,
	// One statement does all of PutKey: insert the key, or update it when
	// the same record holds it; when another record holds it nothing
	// changes (changes() = 0) and PutKey reports ErrKeyTaken. A name key
	// (roleName) that is its record's own key is stored as roleOwnName.
	// (WHERE true: SQLite's parser needs it between SELECT and ON
	// CONFLICT.)
	qPutKey: `INSERT INTO keys (` + keyInsertCols + `)
		SELECT ?1, ?2, ?3, CASE WHEN ?4 = 3 AND ?1 IS (SELECT coalesce(key, urn) FROM records WHERE id = ?3) THEN 0 ELSE ?4 END, ?5 WHERE true
		ON CONFLICT (key) DO UPDATE SET spelling = excluded.spelling, role = excluded.role, version = excluded.version
		WHERE keys.record_id = excluded.record_id`,
	// A record whose key changes: its old key, if it holds it as name,
	// becomes roleName, and its new one roleOwnName.
	qDemoteOwnKey:    `UPDATE keys SET role = 3 WHERE key = ? AND record_id = ? AND role = 0`,
	qPromoteOwnKey:   `UPDATE keys SET role = 0 WHERE key = ? AND record_id = ? AND role = 3`,
	qDeleteKey:       `DELETE FROM keys WHERE key = ?`,
	qInsertAuthority: `INSERT INTO authorities (name, prefixes, created, updated) VALUES (?, ?, ?, ?)`,
	qUpdateAuthority: `UPDATE authorities SET name = ?, prefixes = ?, created = ?, updated = ? WHERE id = ?`,
	qInsertToken:     `INSERT INTO tokens (authority_id, label, hash, created, revoked) VALUES (?, ?, ?, ?, ?)`,
	qUpdateToken:     `UPDATE tokens SET authority_id = ?, label = ?, hash = ?, created = ?, revoked = ? WHERE id = ?`,
	qInsertRule:      `INSERT INTO rules (prefix, target, created) VALUES (?, ?, ?)`,
	qDeleteRule:      `DELETE FROM rules WHERE id = ?`,
	qSetSetting:      `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
	qAppend:          `INSERT INTO history (` + entryCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qDataVersion:     `PRAGMA data_version`,
	// BulkTx (bulk.go). The keys come as one JSON array: one statement
	// whatever their number, each looked up by the primary key. A join
	// rather than IN (SELECT ...), which would first sort the keys into a
	// temporary index (twice the time).
	qTakenKeys:   `SELECT k.key FROM json_each(?) j JOIN keys k ON k.key = j.value`,
	qMaxRecordID: `SELECT coalesce(max(id), 0) FROM records`,
	// What a failed bulk call takes back (tx.undo).
	qDeleteKeyAbove:     `DELETE FROM keys WHERE key = ? AND record_id > ?`,
	qDeleteRecordsAbove: `DELETE FROM records WHERE id > ?`,
	qDeleteEntriesAbove: `DELETE FROM history WHERE seq > ?`,

	// Loader: rows with the IDs they come with (load.go).
	qLoadRecord: `INSERT INTO records (id, urn, key, status, redirect, successor, reason, authority_id, created, updated, body, successor_key, successor_version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qLoadKey:       `INSERT INTO keys (` + keyInsertCols + `) VALUES (?, ?, ?, ?, ?)`,
	qLoadAuthority: `INSERT INTO authorities (id, name, prefixes, created, updated) VALUES (?, ?, ?, ?, ?)`,
	qLoadToken:     `INSERT INTO tokens (id, authority_id, label, hash, created, revoked) VALUES (?, ?, ?, ?, ?, ?)`,
	qLoadRule:      `INSERT INTO rules (id, prefix, target, created) VALUES (?, ?, ?, ?)`,
	// rules is AUTOINCREMENT: sqlite_sequence holds the greatest ID it
	// ever handed out, which the loaded rows alone may not say (a removed
	// rule's). Its row exists once a rule was inserted (qLoadRule) or
	// not at all; the upsert covers both (sqlite_sequence has no unique
	// index, hence two statements: insert, then raise).
	qReserveRuleIDs: `INSERT INTO sqlite_sequence (name, seq) SELECT 'rules', ?1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'rules')`,
	qRaiseRuleIDs:   `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'rules'`,
}

// stmts holds prepared statements; only the first numReadQueries are set
// for the reader pool.
type stmts [numQueries]*sql.Stmt

type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prepare(ctx context.Context, p preparer, n query) (*stmts, error) {
	var s stmts
	for i := range n {
		if sqlText[i] == "" {
			continue
		}
		st, err := p.PrepareContext(ctx, sqlText[i])
		if err != nil {
			s.close()
			return nil, fmt.Errorf("preparing %q: %w", sqlText[i], err)
		}
		s[i] = st
	}
	return &s, nil
}

func (s *stmts) close() {
	for i, st := range s {
		if st != nil {
			st.Close()
			s[i] = nil
		}
	}
}
