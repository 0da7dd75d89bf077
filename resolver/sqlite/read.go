package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// reader implements resolver.Reader over a set of prepared statements: the
// Store's over the reader pool, a tx's over the writer connection (so that
// a transaction reads its own writes). live is checked before every call:
// it fails once the store is closed or the transaction is over. db is the
// reader pool, nil in a tx.
type reader struct {
	q    *stmts
	db   *sql.DB
	live func() error
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

// scanRecord reads the recordCols of the current row. body is scanned as
// sql.RawBytes (no copy): decodeBody copies what it keeps. head holds the
// destinations of columns before recordCols (at most one).
func scanRecord(rows *sql.Rows, head ...any) (resolver.Record, error) {
	var r resolver.Record
	var body sql.RawBytes
	var status, created, updated int64
	var dest [14]any
	n := copy(dest[:1], head)
	dest[n], dest[n+1], dest[n+2], dest[n+3], dest[n+4], dest[n+5], dest[n+6], dest[n+7], dest[n+8], dest[n+9], dest[n+10], dest[n+11], dest[n+12] =
		&r.ID, &r.URN, &r.Key, &status, &r.Redirect, &r.Successor, &r.Reason, &r.AuthorityID, &created, &updated, &body, &r.SuccessorKey, &r.SuccessorVersion
	if err := rows.Scan(dest[:n+13]...); err != nil {
		return r, err
	}
	var ok bool
	if r.Status, ok = statusOf(status); !ok {
		return r, fmt.Errorf("sqlite: record %d has the unknown status code %d", r.ID, status)
	}
	r.Created, r.Updated = fromMicros(created), fromMicros(updated)
	return r, decodeBody(body, &r)
}

// Schema 2 stores a record's status and a key's role as small integers.
// The tables' CHECKs allow no other values than these. Role name has two
// codes: roleOwnName for the key that its record's records.key names (the
// keys_record index leaves those out: records.key finds them), roleName
// for any other (schema.go, migration 2).
var (
	statusCodes = [...]resolver.Status{0: resolver.Active, 1: resolver.Withdrawn}
	roleCodes   = [...]resolver.Role{roleOwnName: resolver.RoleName, 1: resolver.RoleAlias, 2: resolver.RoleRetired, roleName: resolver.RoleName}
)

const (
	roleOwnName = 0
	roleName    = 3
)

// statusCode and roleCode give the stored code of a value: false for one
// the schema cannot hold (schema 1's CHECKs refused those too). roleCode
// gives roleName for RoleName: the caller that knows the key to be its
// record's own makes that roleOwnName.
func statusCode(s resolver.Status) (int64, bool) { return code(statusCodes[:], s) }
func roleCode(r resolver.Role) (int64, bool) {
	if r == resolver.RoleName {
		return roleName, true
	}
	return code(roleCodes[:], r)
}

func statusOf(c int64) (resolver.Status, bool) { return of(statusCodes[:], c) }
func roleOf(c int64) (resolver.Role, bool)     { return of(roleCodes[:], c) }

func code[T comparable](codes []T, v T) (int64, bool) {
	for i, c := range codes {
		if c == v {
			return int64(i), true
		}
	}
	return 0, false
}

func of[T any](codes []T, c int64) (T, bool) {
	if c < 0 || c >= int64(len(codes)) {
		var zero T
		return zero, false
	}
	return codes[c], true
}

// records runs a query whose rows are recordCols.
func (rd reader) records(ctx context.Context, what string, q query, args ...any) ([]resolver.Record, error) {
	return queryAll(ctx, rd, what, q, func(r *sql.Rows) (resolver.Record, error) { return scanRecord(r) }, args...)
}

// scanRecordName reads a row of r.id, r.urn.
func scanRecordName(rows *sql.Rows) (n resolver.RecordName, err error) {
	err = rows.Scan(&n.ID, &n.URN)
	return n, err
}

// queryAll runs one of the prepared queries and scans every row with scan.
func queryAll[T any](ctx context.Context, rd reader, what string, q query, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	if err := rd.live(); err != nil {
		return nil, err
	}
	rows, err := rd.q[q].QueryContext(ctx, args...)
	if err != nil {
		return nil, storeErr(ctx, what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, storeErr(ctx, what, err)
		}
		out = append(out, v)
	}
	return out, storeErr(ctx, what, rows.Err())
}

func (rd reader) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	if err := rd.live(); err != nil {
		return resolver.Record{}, "", err
	}
	rows, err := rd.q[qRecordByKey].QueryContext(ctx, key)
	if err != nil {
		return resolver.Record{}, "", storeErr(ctx, "looking up a key", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return resolver.Record{}, "", storeErr(ctx, "looking up a key", err)
		}
		return resolver.Record{}, "", resolver.ErrNotFound
	}
	var code int64
	r, err := scanRecord(rows, &code)
	if err != nil {
		return resolver.Record{}, "", storeErr(ctx, "looking up a key", err)
	}
	role, ok := roleOf(code)
	if !ok {
		return resolver.Record{}, "", fmt.Errorf("sqlite: key %q has the unknown role code %d", key, code)
	}
	return r, role, nil
}

func (rd reader) Record(ctx context.Context, id int64) (resolver.Record, error) {
	recs, err := rd.records(ctx, "reading a record", qRecord, id)
	if err != nil {
		return resolver.Record{}, err
	}
	if len(recs) == 0 {
		return resolver.Record{}, resolver.ErrNotFound
	}
	return recs[0], nil
}

func (rd reader) RecordsByLocation(ctx context.Context, locKey string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	if limit <= 0 {
		return nil, rd.live() // SQLite reads LIMIT -1 as no limit at all
	}
	q := qRecordsByLocationActive
	if withdrawn {
		q = qRecordsByLocation
	}
	return rd.records(ctx, "finding records by location", q, locKey, after, limit)
}

func (rd reader) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	if limit <= 0 {
		return nil, rd.live() // SQLite reads LIMIT -1 as no limit at all
	}
	return rd.records(ctx, "listing records", qRecords, after, limit)
}

// keys runs a query whose rows are keyCols.
func (rd reader) keys(ctx context.Context, st *sql.Stmt, args ...any) ([]resolver.Key, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, storeErr(ctx, "reading keys", err)
	}
	defer rows.Close()
	var out []resolver.Key
	for rows.Next() {
		var k resolver.Key
		var code int64
		if err := rows.Scan(&k.Key, &k.Spelling, &k.RecordID, &code, &k.Version); err != nil {
			return nil, storeErr(ctx, "reading keys", err)
		}
		var ok bool
		if k.Role, ok = roleOf(code); !ok {
			return nil, fmt.Errorf("sqlite: key %q has the unknown role code %d", k.Key, code)
		}
		out = append(out, k)
	}
	return out, storeErr(ctx, "reading keys", rows.Err())
}

func (rd reader) Keys(ctx context.Context, recordID int64) ([]resolver.Key, error) {
	if err := rd.live(); err != nil {
		return nil, err
	}
	return rd.keys(ctx, rd.q[qKeys], recordID, recordID, recordID)
}

// StaleKeys reads the partial index of stale keys when version is this
// build's urn.KeyVersion (the one version the Service asks about), else
// the keys in key order.
func (rd reader) StaleKeys(ctx context.Context, version int, after string, limit int) ([]resolver.Key, error) {
	if err := rd.live(); err != nil || limit <= 0 {
		return nil, err
	}
	if version == urn.KeyVersion {
		return rd.keys(ctx, rd.q[qStaleKeysCurrent], after, limit)
	}
	return rd.keys(ctx, rd.q[qStaleKeys], after, version, limit)
}

// Predecessors implements resolver.Reader: at most limit records for
// each of the (few) keys, then the first limit of them by ID. The keys'
// queries read one snapshot (readConsistent): a notice restated between
// two of them, moving its successor from a record's name to its alias,
// would otherwise show its record twice, or not at all.
func (rd reader) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	if len(keys) == 0 || limit <= 0 {
		return nil, rd.live()
	}
	var distinct []string
	for _, k := range keys {
		if !slices.Contains(distinct, k) {
			distinct = append(distinct, k)
		}
	}
	if len(distinct) == 1 { // one statement is one snapshot
		return queryAll(ctx, rd, "finding predecessors", qPredecessors, scanRecordName, distinct[0], after, limit)
	}
	if err := rd.live(); err != nil {
		return nil, err
	}
	return readConsistent(ctx, rd, func(ctx context.Context, stmt func(query) *sql.Stmt) ([]resolver.RecordName, error) {
		var out []resolver.RecordName
		for _, k := range distinct {
			rows, err := stmt(qPredecessors).QueryContext(ctx, k, after, limit)
			if err != nil {
				return nil, storeErr(ctx, "finding predecessors", err)
			}
			for rows.Next() {
				r, err := scanRecordName(rows)
				if err != nil {
					rows.Close()
					return nil, storeErr(ctx, "finding predecessors", err)
				}
				out = append(out, r)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, storeErr(ctx, "finding predecessors", err)
			}
		}
		slices.SortFunc(out, func(a, b resolver.RecordName) int { return cmp.Compare(a.ID, b.ID) })
		return out[:min(len(out), limit)], nil
	})
}

// StaleSuccessors reads the partial index of stale successor keys when
// version is this build's urn.KeyVersion, as StaleKeys does.
func (rd reader) StaleSuccessors(ctx context.Context, version int, after int64, limit int) ([]resolver.Record, error) {
	if limit <= 0 {
		return nil, rd.live()
	}
	if version == urn.KeyVersion {
		return rd.records(ctx, "finding stale successor keys", qStaleSuccessorsCurrent, after, limit)
	}
	return rd.records(ctx, "finding stale successor keys", qStaleSuccessors, after, version, limit)
}

func (rd reader) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	if err := rd.live(); err != nil || limit <= 0 {
		return nil, err
	}
	keys := qDuplicateKeysActive
	if withdrawn {
		keys = qDuplicateKeys
	}
	return readConsistent(ctx, rd, func(ctx context.Context, stmt func(query) *sql.Stmt) ([]resolver.Duplicate, error) {
		rows, err := stmt(keys).QueryContext(ctx, after, limit)
		if err != nil {
			return nil, storeErr(ctx, "finding duplicate locations", err)
		}
		var out []resolver.Duplicate
		for rows.Next() {
			var d resolver.Duplicate
			if err := rows.Scan(&d.Key); err != nil {
				rows.Close()
				return nil, storeErr(ctx, "finding duplicate locations", err)
			}
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, storeErr(ctx, "finding duplicate locations", err)
		}
		urns := qDuplicateURNsActive
		if withdrawn {
			urns = qDuplicateURNs
		}
		for i := range out {
			if err := duplicateRecords(ctx, stmt(urns), &out[i]); err != nil {
				return nil, storeErr(ctx, "finding duplicate locations", err)
			}
		}
		return out, nil
	})
}

// duplicateRecords fills in the names and statuses of the first
// resolver.MaxByLocation records that list d.Key (st is qDuplicateURNs or
// qDuplicateURNsActive), and whether more do.
func duplicateRecords(ctx context.Context, st *sql.Stmt, d *resolver.Duplicate) error {
	rows, err := st.QueryContext(ctx, d.Key, resolver.MaxByLocation+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if len(d.URNs) == resolver.MaxByLocation {
			d.More = true
			break
		}
		var id int64
		var urn string
		var code int64
		if err := rows.Scan(&id, &urn, &code); err != nil {
			return err
		}
		status, ok := statusOf(code)
		if !ok {
			return fmt.Errorf("sqlite: record %s has the unknown status code %d", urn, code)
		}
		d.URNs = append(d.URNs, urn)
		d.Statuses = append(d.Statuses, status)
		d.LastID = id
	}
	return rows.Err()
}

// readConsistent runs f, which makes several queries, on one snapshot of
// the database. A tx's reader is one already; the Store's reader runs f in
// a read transaction on one connection of the pool.
func readConsistent[T any](ctx context.Context, rd reader, f func(context.Context, func(query) *sql.Stmt) (T, error)) (T, error) {
	if rd.db == nil {
		return f(ctx, func(q query) *sql.Stmt { return rd.q[q] })
	}
	var zero T
	tx, err := rd.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return zero, storeErr(ctx, "starting a read transaction", err)
	}
	defer tx.Rollback() // a read transaction has nothing to commit
	var bound [numReadQueries]*sql.Stmt
	return f(ctx, func(q query) *sql.Stmt {
		if bound[q] == nil {
			bound[q] = tx.StmtContext(ctx, rd.q[q])
		}
		return bound[q]
	})
}

func scanAuthority(sc interface{ Scan(...any) error }) (resolver.Authority, error) {
	var a resolver.Authority
	var prefixes string
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.Name, &prefixes, &created, &updated); err != nil {
		return a, err
	}
	a.Created, a.Updated = fromMicros(created), fromMicros(updated)
	if err := json.Unmarshal([]byte(prefixes), &a.Prefixes); err != nil {
		return a, errors.New("sqlite: malformed prefixes of authority")
	}
	return a, nil
}

func (rd reader) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	if err := rd.live(); err != nil {
		return resolver.Authority{}, err
	}
	a, err := scanAuthority(rd.q[qAuthority].QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, resolver.ErrNotFound
	}
	return a, storeErr(ctx, "reading an authority", err)
}

func (rd reader) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	if err := rd.live(); err != nil {
		return nil, err
	}
	rows, err := rd.q[qAuthorities].QueryContext(ctx)
	if err != nil {
		return nil, storeErr(ctx, "reading authorities", err)
	}
	defer rows.Close()
	var out []resolver.Authority
	for rows.Next() {
		a, err := scanAuthority(rows)
		if err != nil {
			return nil, storeErr(ctx, "reading authorities", err)
		}
		out = append(out, a)
	}
	return out, storeErr(ctx, "reading authorities", rows.Err())
}

func scanToken(sc interface{ Scan(...any) error }) (resolver.Token, error) {
	var t resolver.Token
	var created int64
	var revoked sql.NullInt64
	if err := sc.Scan(&t.ID, &t.AuthorityID, &t.Label, &t.Hash, &created, &revoked); err != nil {
		return t, err
	}
	t.Created = fromMicros(created)
	if revoked.Valid {
		t.Revoked = fromMicros(revoked.Int64)
	}
	return t, nil
}

func (rd reader) TokenByHash(ctx context.Context, hash []byte) (resolver.Token, error) {
	if err := rd.live(); err != nil {
		return resolver.Token{}, err
	}
	t, err := scanToken(rd.q[qTokenByHash].QueryRowContext(ctx, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return t, resolver.ErrNotFound
	}
	return t, storeErr(ctx, "reading a token", err)
}

func (rd reader) Tokens(ctx context.Context, authorityID int64) ([]resolver.Token, error) {
	if err := rd.live(); err != nil {
		return nil, err
	}
	rows, err := rd.q[qTokens].QueryContext(ctx, authorityID)
	if err != nil {
		return nil, storeErr(ctx, "reading tokens", err)
	}
	defer rows.Close()
	var out []resolver.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, storeErr(ctx, "reading tokens", err)
		}
		out = append(out, t)
	}
	return out, storeErr(ctx, "reading tokens", rows.Err())
}

func (rd reader) Rules(ctx context.Context) ([]resolver.Rule, error) {
	if err := rd.live(); err != nil {
		return nil, err
	}
	rows, err := rd.q[qRules].QueryContext(ctx)
	if err != nil {
		return nil, storeErr(ctx, "reading rules", err)
	}
	defer rows.Close()
	var out []resolver.Rule
	for rows.Next() {
		var r resolver.Rule
		var created int64
		if err := rows.Scan(&r.ID, &r.Prefix, &r.Target, &created); err != nil {
			return nil, storeErr(ctx, "reading rules", err)
		}
		r.Created = fromMicros(created)
		out = append(out, r)
	}
	return out, storeErr(ctx, "reading rules", rows.Err())
}

func scanEntry(sc interface{ Scan(...any) error }) (resolver.Entry, error) {
	var e resolver.Entry
	var t int64
	var action string
	var data []byte
	if err := sc.Scan(&e.Seq, &t, &action, &e.Subject, &e.RecordID, &e.AuthorityID, &e.Actor, &data, &e.Prev, &e.Hash); err != nil {
		return e, err
	}
	e.Time, e.Action, e.Data = fromMicros(t), resolver.Action(action), data
	return e, nil
}

func (rd reader) entries(ctx context.Context, what string, q query, args ...any) ([]resolver.Entry, error) {
	return queryAll(ctx, rd, what, q, func(r *sql.Rows) (resolver.Entry, error) { return scanEntry(r) }, args...)
}

func (rd reader) History(ctx context.Context, recordID, after int64, limit int) ([]resolver.Entry, error) {
	if limit <= 0 {
		return nil, rd.live()
	}
	return rd.entries(ctx, "reading a record's history", qHistory, recordID, after, limit)
}

func (rd reader) HistoryBefore(ctx context.Context, recordID, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	if limit <= 0 {
		return nil, rd.live()
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	last := int64(math.MaxInt64)
	if !until.IsZero() {
		last = until.UnixMicro() // an entry's time is whole microseconds: at or before until is at or before this
	}
	return rd.entries(ctx, "reading a record's history", qHistoryBefore, recordID, before, last, limit)
}

func (rd reader) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	if limit <= 0 {
		return nil, rd.live()
	}
	return rd.entries(ctx, "reading the history", qLog, after, limit)
}

func (rd reader) Head(ctx context.Context) (resolver.Entry, error) {
	es, err := rd.entries(ctx, "reading the head of the history", qHead)
	if err != nil || len(es) == 0 {
		return resolver.Entry{}, err
	}
	return es[0], nil
}

func (rd reader) Setting(ctx context.Context, name string) (string, error) {
	if err := rd.live(); err != nil {
		return "", err
	}
	var v string
	err := rd.q[qSetting].QueryRowContext(ctx, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", resolver.ErrNotFound
	}
	return v, storeErr(ctx, "reading a setting", err)
}
