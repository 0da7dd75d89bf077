package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// qRecordStates is resolver.Reader.RecordStates in one statement and
// qOtherKeys. The page of IDs is the first limit IDs of the union of three
// index scans, each of which stops after limit IDs: the records' rowids,
// history_record and keys_record. For each ID the statement joins the
// record (its rowid), the last entry about it (max(seq) is one descent of
// history_record) and its own name key (role 0: one descent of the keys'
// primary key by records.key, as qKeys finds it), or NULL key columns.
// ?1 is after, ?2 limit. It has no ORDER BY: SQLite would sort the whole
// rows, bodies and entries included, which took two thirds of the
// statement's time; recordStates groups and orders the rows instead.
//
// keys_record holds no key of role 0 (schema 2), so only the keys
// it holds can be found by record ID: asked for a record's keys of every
// role, SQLite scans the whole table for each ID, and a page of a million
// records' directory took half a minute. A key of role 0 that is not its
// record's own name key (edited in with SQL: it resolves to that record)
// is found by none of these: Verify asks StrayKeys for those, in one pass.
const qRecordStates = `WITH ids(id) AS (
	SELECT id FROM (SELECT id FROM records WHERE id > ?1 ORDER BY id LIMIT ?2)
	UNION
	SELECT id FROM (SELECT DISTINCT record_id AS id FROM history WHERE record_id > ?1 AND record_id <> 0 ORDER BY record_id LIMIT ?2)
	UNION
	SELECT id FROM (SELECT DISTINCT record_id AS id FROM keys WHERE record_id > ?1 AND role <> 0 ORDER BY record_id LIMIT ?2)
	ORDER BY id LIMIT ?2)
SELECT ids.id,
	r.id, r.urn, coalesce(r.key, r.urn), r.status, r.redirect, coalesce(r.successor, ''), coalesce(r.reason, ''), r.authority_id, r.created, r.updated, r.body,
	coalesce(r.successor_key, ''), coalesce(r.successor_version, 0),
	h.seq, h.time, h.action, h.subject, h.record_id, h.authority_id, h.actor, h.data, h.prev, h.hash,
	k.key, coalesce(k.spelling, k.key), k.role, k.version
FROM ids
LEFT JOIN records r ON r.id = ids.id
LEFT JOIN history h ON h.seq = (SELECT max(seq) FROM history WHERE record_id = ids.id)
LEFT JOIN keys k ON k.key = coalesce(r.key, r.urn) AND k.record_id = ids.id AND k.role = 0`

// qOtherKeys is the second statement of a page of RecordStates: the keys
// of roles other than 0 of the records with IDs above ?1 up to ?2, a
// range of keys_record. Every ID it finds is in the page: the page holds
// the first IDs of keys_record above after.
const qOtherKeys = `SELECT key, coalesce(spelling, key), record_id, role, version FROM keys
	WHERE record_id > ?1 AND record_id <= ?2 AND role <> 0`

// qLocationsFound is the second statement of a page of RecordStates: of
// the (record ID, key) pairs in ?1, a JSON array of strings "ID KEY" (the
// ID's digits, a space, the key: cut at the first space, whatever the key
// holds; taking them apart with string functions costs a third of what
// json_extract on pairs did), those the location index holds. CROSS JOIN
// keeps json_each the outer loop, so each pair is one descent of the
// index's primary key; the index has no index on record_id, and a scan of
// it per page would read the whole table tens of thousands of times.
const qLocationsFound = `SELECT l.key, l.record_id FROM json_each(?1) AS j
CROSS JOIN locations l ON l.key = substr(j.value, instr(j.value, ' ') + 1)
	AND l.record_id = CAST(substr(j.value, 1, instr(j.value, ' ') - 1) AS INTEGER)`

// qStrayKeys is StrayKeys: the keys of role 0 that are not their record's
// own name key (the record's records.key, or its urn when that is NULL),
// or whose record is missing, in key order (the table's), each record
// found by its rowid.
const qStrayKeys = `SELECT k.key, coalesce(k.spelling, k.key), k.record_id, k.role, k.version
FROM keys k LEFT JOIN records r ON r.id = k.record_id
WHERE k.role = 0 AND (r.id IS NULL OR k.key IS NOT coalesce(r.key, r.urn))
ORDER BY k.key LIMIT ?`

// StrayKeys implements resolver.StrayKeyFinder: RecordStates finds a
// record's key of role 0 by records.key only (keys_record leaves those
// keys out).
func (s *Store) StrayKeys(ctx context.Context, limit int) (ks []resolver.Key, err error) {
	const what = "reading the keys table for keys no record has"
	err = s.readTx(ctx, func(q queryer) error {
		rows, err := q.QueryContext(ctx, qStrayKeys, limit)
		if err != nil {
			return storeErr(ctx, what, err)
		}
		defer rows.Close()
		for rows.Next() {
			var st resolver.RecordState
			var key, spelling string
			var role, version int64
			if err := rows.Scan(&key, &spelling, &st.ID, &role, &version); err != nil {
				return storeErr(ctx, what, err)
			}
			if err := addKey(&st, key, spelling, role, version); err != nil {
				return err
			}
			ks = append(ks, st.Keys...)
		}
		return storeErr(ctx, what, rows.Err())
	})
	return ks, err
}

// queryer is a connection to run a statement on: a read transaction on
// the reader pool or the writer connection inside a tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readTx runs f on one snapshot: a read-only transaction on the reader
// pool, whose statements all read the database as it was at the first.
func (s *Store) readTx(ctx context.Context, f func(q queryer) error) error {
	if err := s.live(); err != nil {
		return err
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return storeErr(ctx, "starting a read transaction", err)
	}
	defer tx.Rollback() // a read transaction has nothing to commit
	return f(tx)
}

// RecordStates implements resolver.Reader on the reader pool.
func (s *Store) RecordStates(ctx context.Context, after int64, limit int) (sts []resolver.RecordState, err error) {
	err = s.readTx(ctx, func(q queryer) error {
		sts, err = recordStates(ctx, q, after, limit)
		return err
	})
	return sts, err
}

// RecordStates implements resolver.Reader inside the transaction.
func (t *tx) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	return recordStates(ctx, t.w.conn, after, limit)
}

func recordStates(ctx context.Context, q queryer, after int64, limit int) ([]resolver.RecordState, error) {
	const what = "reading records with their history"
	if limit <= 0 {
		return nil, nil // SQLite reads LIMIT -1 as no limit at all
	}
	rows, err := q.QueryContext(ctx, qRecordStates, after, limit)
	if err != nil {
		return nil, storeErr(ctx, what, err)
	}
	defer rows.Close()
	var out []resolver.RecordState
	at := map[int64]int{} // ID → index in out
	for rows.Next() {
		var id int64
		var rid, status, redirect, authority, created, updated sql.NullInt64
		var urn, key, successor, reason sql.NullString
		var body []byte
		var successorKey string
		var successorVersion int
		var seq, etime, erec, eauth sql.NullInt64
		var action, subject, actor sql.NullString
		var data, prev, hash []byte
		var kkey, spelling sql.NullString
		var role, version sql.NullInt64
		if err := rows.Scan(&id,
			&rid, &urn, &key, &status, &redirect, &successor, &reason, &authority, &created, &updated, &body,
			&successorKey, &successorVersion,
			&seq, &etime, &action, &subject, &erec, &eauth, &actor, &data, &prev, &hash,
			&kkey, &spelling, &role, &version); err != nil {
			return nil, storeErr(ctx, what, err)
		}
		i, seen := at[id]
		if !seen {
			st := resolver.RecordState{ID: id}
			if rid.Valid {
				st.HasRecord = true
				r := &st.Record
				var ok bool
				if r.Status, ok = statusOf(status.Int64); !ok {
					return nil, fmt.Errorf("sqlite: record %d (%s) has the unknown status code %d", id, urn.String, status.Int64)
				}
				r.ID, r.URN, r.Key = rid.Int64, urn.String, key.String
				r.Redirect, r.Successor, r.Reason, r.AuthorityID = int(redirect.Int64), successor.String, reason.String, authority.Int64
				r.Created, r.Updated = fromMicros(created.Int64), fromMicros(updated.Int64)
				r.SuccessorKey, r.SuccessorVersion = successorKey, successorVersion
				if err := decodeBody(body, r); err != nil {
					// A body that does not decode was written by something
					// other than urikit: say which record, for Verify.
					return nil, fmt.Errorf("sqlite: record %d (%s): %w", id, urn.String, err)
				}
			}
			if seq.Valid {
				st.Latest = resolver.Entry{Seq: seq.Int64, Time: fromMicros(etime.Int64), Action: resolver.Action(action.String),
					Subject: subject.String, RecordID: erec.Int64, AuthorityID: eauth.Int64, Actor: actor.String,
					Data: data, Prev: prev, Hash: hash}
			}
			i = len(out)
			at[id] = i
			out = append(out, st)
		}
		if kkey.Valid {
			if err := addKey(&out[i], kkey.String, spelling.String, role.Int64, version.Int64); err != nil {
				return nil, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(ctx, what, err)
	}
	rows.Close()
	slices.SortFunc(out, func(a, b resolver.RecordState) int { return cmp.Compare(a.ID, b.ID) })
	if len(out) > 0 {
		if err := otherKeys(ctx, q, after, out); err != nil {
			return nil, err
		}
	}
	for _, st := range out {
		slices.SortFunc(st.Keys, func(a, b resolver.Key) int { return strings.Compare(a.Key, b.Key) })
	}
	if err := locationsFound(ctx, q, out); err != nil {
		return nil, err
	}
	return out, nil
}

// addKey adds a key read from the keys table to st.
func addKey(st *resolver.RecordState, key, spelling string, role, version int64) error {
	r, ok := roleOf(role)
	if !ok {
		return fmt.Errorf("sqlite: key %q has the unknown role code %d", key, role)
	}
	st.Keys = append(st.Keys, resolver.Key{Key: key, Spelling: spelling, RecordID: st.ID, Role: r, Version: int(version)})
	return nil
}

// otherKeys adds to the states of a page, in ID order, the keys of roles
// other than 0 of their records (qOtherKeys).
func otherKeys(ctx context.Context, q queryer, after int64, sts []resolver.RecordState) error {
	const what = "reading the keys of records"
	rows, err := q.QueryContext(ctx, qOtherKeys, after, sts[len(sts)-1].ID)
	if err != nil {
		return storeErr(ctx, what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, spelling string
		var id, role, version int64
		if err := rows.Scan(&key, &spelling, &id, &role, &version); err != nil {
			return storeErr(ctx, what, err)
		}
		i, ok := slices.BinarySearchFunc(sts, id, func(st resolver.RecordState, id int64) int { return cmp.Compare(st.ID, id) })
		if !ok {
			return fmt.Errorf("sqlite: key %q of record %d is not in the page of records %d to %d read with it", key, id, after+1, sts[len(sts)-1].ID)
		}
		if err := addKey(&sts[i], key, spelling, role, version); err != nil {
			return err
		}
	}
	return storeErr(ctx, what, rows.Err())
}

// locationsFound sets the Locations of each state: which of its record's
// location keys the location index holds for it (qLocationsFound).
func locationsFound(ctx context.Context, q queryer, sts []resolver.RecordState) error {
	const what = "reading the location index"
	var pairs []string
	at := make(map[int64]int, len(sts))
	for i, st := range sts {
		at[st.ID] = i
		id := strconv.FormatInt(st.ID, 10) + " "
		for j, l := range st.Record.Locations {
			if !slices.ContainsFunc(st.Record.Locations[:j], func(o resolver.Location) bool { return o.Key == l.Key }) {
				pairs = append(pairs, id+l.Key)
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	arg, err := json.Marshal(pairs)
	if err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, qLocationsFound, string(arg))
	if err != nil {
		return storeErr(ctx, what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var id int64
		if err := rows.Scan(&key, &id); err != nil {
			return storeErr(ctx, what, err)
		}
		if i, ok := at[id]; ok {
			sts[i].Locations = append(sts[i].Locations, key)
		}
	}
	if err := rows.Err(); err != nil {
		return storeErr(ctx, what, err)
	}
	for _, st := range sts {
		slices.Sort(st.Locations)
	}
	return nil
}

// LocationCount implements resolver.Reader: one statement, which walks
// the index's B-tree (SQLite counts its cells without reading the rows).
func (s *Store) LocationCount(ctx context.Context) (int64, error) {
	if err := s.live(); err != nil {
		return 0, err
	}
	return locationCount(ctx, s.rdb)
}

// LocationCount implements resolver.Reader inside the transaction.
func (t *tx) LocationCount(ctx context.Context) (int64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	return locationCount(ctx, t.w.conn)
}

func locationCount(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM locations`).Scan(&n)
	return n, storeErr(ctx, "counting the location index", err)
}

// qLocationRows reads a page of the location index in its primary key's
// order, each row with the body of its record (NULL when there is none):
// whether the record lists the row's key is in the body, which SQL cannot
// read. The row value comparison is a range of the primary key.
const qLocationRows = `SELECT l.key, l.record_id, r.body
FROM (SELECT key, record_id FROM locations WHERE (key, record_id) > (?1, ?2) ORDER BY key, record_id LIMIT ?3) AS l
LEFT JOIN records r ON r.id = l.record_id
ORDER BY l.key, l.record_id`

// qLocationRowsFirst is qLocationRows from the first row.
const qLocationRowsFirst = `SELECT l.key, l.record_id, r.body
FROM (SELECT key, record_id FROM locations ORDER BY key, record_id LIMIT ?3) AS l
LEFT JOIN records r ON r.id = l.record_id
ORDER BY l.key, l.record_id`

// LocationRows implements resolver.Reader on the reader pool.
func (s *Store) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) (rows []resolver.LocationRow, err error) {
	err = s.readTx(ctx, func(q queryer) error {
		rows, err = locationRows(ctx, q, after, limit)
		return err
	})
	return rows, err
}

// LocationRows implements resolver.Reader inside the transaction.
func (t *tx) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	return locationRows(ctx, t.w.conn, after, limit)
}

func locationRows(ctx context.Context, q queryer, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	const what = "reading the location index"
	if limit <= 0 {
		return nil, nil
	}
	stmt, args := qLocationRowsFirst, []any{nil, nil, limit}
	if after != nil {
		stmt, args = qLocationRows, []any{after.Key, after.RecordID, limit}
	}
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, storeErr(ctx, what, err)
	}
	defer rows.Close()
	var out []resolver.LocationRow
	for rows.Next() {
		var r resolver.LocationRow
		var body []byte
		if err := rows.Scan(&r.Key, &r.RecordID, &body); err != nil {
			return nil, storeErr(ctx, what, err)
		}
		if body != nil {
			var rec resolver.Record
			if err := decodeBody(body, &rec); err != nil {
				return nil, fmt.Errorf("sqlite: record %d: %w", r.RecordID, err)
			}
			r.Listed = slices.ContainsFunc(rec.Locations, func(l resolver.Location) bool { return l.Key == r.Key })
		}
		out = append(out, r)
	}
	return out, storeErr(ctx, what, rows.Err())
}

// AccessState implements resolver.Reader: five statements in one read
// transaction.
func (s *Store) AccessState(ctx context.Context) (st resolver.AccessState, err error) {
	err = s.readTx(ctx, func(q queryer) error {
		st, err = accessState(ctx, q)
		return err
	})
	return st, err
}

// AccessState implements resolver.Reader inside the transaction.
func (t *tx) AccessState(ctx context.Context) (resolver.AccessState, error) {
	if err := t.check(); err != nil {
		return resolver.AccessState{}, err
	}
	return accessState(ctx, t.w.conn)
}

func accessState(ctx context.Context, q queryer) (resolver.AccessState, error) {
	const what = "reading authorities, tokens, rules and the admin token's hash"
	var st resolver.AccessState
	each := func(query string, scan func(*sql.Rows) error) error {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return storeErr(ctx, what, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return storeErr(ctx, what, err)
			}
		}
		return storeErr(ctx, what, rows.Err())
	}
	err := each(`SELECT coalesce(max(seq), 0) FROM history`, func(r *sql.Rows) error { return r.Scan(&st.Head) })
	if err == nil {
		err = each(`SELECT id, name, prefixes, created, updated FROM authorities ORDER BY id`, func(r *sql.Rows) error {
			a, err := scanAuthority(r)
			if err != nil {
				return fmt.Errorf("authority %d: %w", a.ID, err)
			}
			st.Authorities = append(st.Authorities, a)
			return nil
		})
	}
	if err == nil {
		err = each(`SELECT id, authority_id, label, hash, created, revoked FROM tokens ORDER BY id`, func(r *sql.Rows) error {
			t, err := scanToken(r)
			st.Tokens = append(st.Tokens, t)
			return err
		})
	}
	if err == nil {
		err = each(`SELECT id, prefix, target, created FROM rules ORDER BY id`, func(r *sql.Rows) error {
			var ru resolver.Rule
			var created int64
			err := r.Scan(&ru.ID, &ru.Prefix, &ru.Target, &created)
			ru.Created = fromMicros(created)
			st.Rules = append(st.Rules, ru)
			return err
		})
	}
	if err == nil {
		// No row leaves AdminTokenHash "": no admin token was generated.
		err = each(`SELECT value FROM settings WHERE name = '`+resolver.AdminTokenSetting+`'`, func(r *sql.Rows) error {
			return r.Scan(&st.AdminTokenHash)
		})
	}
	if err == nil {
		// Nor LocationKeyVersion: no location keys migrated.
		err = each(`SELECT value FROM settings WHERE name = '`+resolver.LocationKeySetting+`'`, func(r *sql.Rows) error {
			return r.Scan(&st.LocationKeyVersion)
		})
	}
	return st, err
}
