package postgres

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/urikit/urikit/resolver"
)

// querier is what reads need: a pool (outside a transaction) or a pgx.Tx.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// reader holds the queries of resolver.Reader, shared by Store and tx.
type reader struct{ q querier }

// The columns schema 2 stores as NULL when they would repeat another, as
// every read sees them (of records r, of keys).
const (
	colKey       = `coalesce(r.key, r.urn COLLATE "C")`
	colLocLabels = `coalesce(r.loc_labels, array_fill(''::text, ARRAY[coalesce(cardinality(r.loc_urls), 0)]))` // (verify's outer join may have no row)
	colLocKeys   = `coalesce(r.loc_keys, r.loc_urls COLLATE "C")`
	colSpelling  = `coalesce(spelling, key)`
)

const recordCols = `r.id, r.urn, ` + colKey + `, r.aliases, r.loc_urls, r.loc_types, ` + colLocLabels + `, ` + colLocKeys + `,
	r.metadata, r.status, r.redirect, r.successor, r.reason, r.authority_id, r.created, r.updated,
	coalesce(r.successor_key, ''), coalesce(r.successor_version, 0)`

// scanRecord reads the columns recordCols lists (and extra ones after).
func scanRecord(row pgx.Row, extra ...any) (resolver.Record, error) {
	var r resolver.Record
	var urls, types, labels, keys []string
	var status string
	var meta []byte
	dest := append([]any{&r.ID, &r.URN, &r.Key, &r.Aliases, &urls, &types, &labels, &keys,
		&meta, &status, &r.Redirect, &r.Successor, &r.Reason, &r.AuthorityID, &r.Created, &r.Updated,
		&r.SuccessorKey, &r.SuccessorVersion}, extra...)
	if err := row.Scan(dest...); err != nil {
		return r, err
	}
	if len(r.Aliases) == 0 {
		r.Aliases = nil
	}
	if n := len(urls); n > 0 && len(types) == n && len(labels) == n && len(keys) == n {
		r.Locations = make([]resolver.Location, n)
		for i := range urls {
			r.Locations[i] = resolver.Location{URL: urls[i], Type: types[i], Label: labels[i], Key: keys[i]}
		}
	}
	r.Metadata = meta
	r.Status = resolver.Status(status)
	r.Created, r.Updated = r.Created.UTC(), r.Updated.UTC()
	return r, nil
}

// notFound turns pgx's "no rows" into the contract's ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return resolver.ErrNotFound
	}
	return err
}

func (r reader) recordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	var role string
	rec, err := scanRecord(r.q.QueryRow(ctx, `SELECT `+recordCols+`, k.role
		FROM keys k JOIN records r ON r.id = k.record_id WHERE k.key = $1`, key), &role)
	return rec, resolver.Role(role), notFound(err)
}

func (r reader) record(ctx context.Context, id int64) (resolver.Record, error) {
	rec, err := scanRecord(r.q.QueryRow(ctx, `SELECT `+recordCols+` FROM records r WHERE r.id = $1`, id))
	return rec, notFound(err)
}

func (r reader) records(ctx context.Context, sql string, args ...any) ([]resolver.Record, error) {
	rows, err := r.q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Record
	for rows.Next() {
		rec, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, rows.Err()
}

// The records listing a location: a range of the location index's
// primary key (key, record_id) in its order, and for each row its record
// by the records' primary key, cut at the limit however many records list
// the location. The record is a LATERAL subquery with a LIMIT, which the
// planner cannot merge into a join: as a join, a custom plan (the first
// executions of a prepared statement, knowing how many rows list the
// key) merge-joins the range with a scan of the records from the lowest
// ID, which reads every record registered before the first that lists
// the location. qRecordsByLocationActive passes over withdrawn records.
// The range starts past the cursor $2 (record IDs are positive: 0 is
// the first page).
const (
	qRecordsByLocation = `SELECT ` + recordCols + ` FROM locations l
		CROSS JOIN LATERAL (SELECT * FROM records WHERE id = l.record_id LIMIT 1) r
		WHERE l.key = $1 AND l.record_id > $2 ORDER BY l.record_id LIMIT $3`
	qRecordsByLocationActive = `SELECT ` + recordCols + ` FROM locations l
		CROSS JOIN LATERAL (SELECT * FROM records WHERE id = l.record_id AND status = 'active' LIMIT 1) r
		WHERE l.key = $1 AND l.record_id > $2 ORDER BY l.record_id LIMIT $3`
)

func (r reader) recordsByLocation(ctx context.Context, locKey string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	if limit <= 0 {
		return nil, nil
	}
	q := qRecordsByLocationActive
	if withdrawn {
		q = qRecordsByLocation
	}
	return r.records(ctx, q, locKey, after, limit)
}

func (r reader) recordsAfter(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	return r.records(ctx, `SELECT `+recordCols+` FROM records r WHERE r.id > $1 ORDER BY r.id LIMIT $2`, after, limit)
}

// qPredecessors finds the records by the partial index
// records_successor_key (successor_key, id): at most limit for each key,
// read in index order (a thousand withdrawn names may name one
// successor), then the first limit of those.
const qPredecessors = `SELECT r.id, r.urn FROM (SELECT DISTINCT unnest($1::text[]) AS key) k
	CROSS JOIN LATERAL (SELECT id, urn FROM records
		WHERE successor_key = k.key AND id > $2 ORDER BY id LIMIT $3) r
	ORDER BY r.id LIMIT $3`

func (r reader) predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	if len(keys) == 0 || limit <= 0 {
		return nil, nil
	}
	rows, err := r.q.Query(ctx, qPredecessors, keys, after, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (n resolver.RecordName, err error) {
		err = row.Scan(&n.ID, &n.URN)
		return n, err
	})
}

// staleSuccessors reads the partial index records_successor_stale
// (successor_version, id) of the records with a successor (schema 4): a
// range of the records with no version (withdrawn before schema 3, or
// since by a build before it), and one of each version below version
// (versions count from 1), each read in ID order from after and cut at
// limit, then merged by ID. A page reads at most version × limit entries
// of the index however many records are stale or not: a single range
// "below version" would not be in ID order, and one page would sort them
// all. The ORDER BY is the index's: what lets the planner see that it
// serves the query (its statistics cannot tell how few of the rows whose
// version is NULL, every record's without a successor, have one).
func (r reader) staleSuccessors(ctx context.Context, version int, after int64, limit int) ([]resolver.Record, error) {
	recs, err := r.records(ctx, qSuccessorsUnkeyed, after, limit)
	if err != nil {
		return nil, err
	}
	for v := 1; v < version; v++ {
		more, err := r.records(ctx, qSuccessorsOfVersion, v, after, limit)
		if err != nil {
			return nil, err
		}
		recs = append(recs, more...)
	}
	slices.SortFunc(recs, func(a, b resolver.Record) int { return cmp.Compare(a.ID, b.ID) })
	if len(recs) > limit {
		recs = recs[:limit]
	}
	return recs, nil
}

// The statements of staleSuccessors.
const (
	qSuccessorsUnkeyed = `SELECT ` + recordCols + ` FROM records r
		WHERE r.successor <> '' AND r.successor_version IS NULL AND r.id > $1 ORDER BY r.successor_version, r.id LIMIT $2`
	qSuccessorsOfVersion = `SELECT ` + recordCols + ` FROM records r
		WHERE r.successor <> '' AND r.successor_version = $1 AND r.id > $2 ORDER BY r.successor_version, r.id LIMIT $3`
)

func (r reader) keySet(ctx context.Context, sql string, args ...any) ([]resolver.Key, error) {
	rows, err := r.q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Key
	for rows.Next() {
		var k resolver.Key
		var role string
		if err := rows.Scan(&k.Key, &k.Spelling, &k.RecordID, &role, &k.Version); err != nil {
			return nil, err
		}
		k.Role = resolver.Role(role)
		out = append(out, k)
	}
	return out, rows.Err()
}

func (r reader) keyList(ctx context.Context, recordID int64) ([]resolver.Key, error) {
	return r.keySet(ctx, `SELECT key, `+colSpelling+`, record_id, role, version FROM keys
		WHERE record_id = $1 ORDER BY role <> 'name', key`, recordID)
}

func (r reader) staleKeys(ctx context.Context, version int, after string, limit int) ([]resolver.Key, error) {
	return r.keySet(ctx, `SELECT key, `+colSpelling+`, record_id, role, version FROM keys
		WHERE version < $1 AND key > $2 ORDER BY key LIMIT $3`, version, after, limit)
}

// Duplicate keys: every record counts, or (duplicateKeysActive) only the
// active ones, which are then the only ones listed. Each key's records
// are read as qRecordsByLocation reads them, a range of the location
// index in its order cut at $3 (one more than a Duplicate holds), however
// many records list the location.
const (
	duplicateKeys = `SELECT d.key, x.ids, x.urns, x.statuses
		FROM (SELECT key FROM locations WHERE key > $1 GROUP BY key HAVING count(*) > 1 ORDER BY key LIMIT $2) d
		CROSS JOIN LATERAL (SELECT array_agg(r.id ORDER BY r.id) ids, array_agg(r.urn ORDER BY r.id) urns, array_agg(r.status ORDER BY r.id) statuses
			FROM (SELECT l.record_id FROM locations l WHERE l.key = d.key ORDER BY l.record_id LIMIT $3) l
			CROSS JOIN LATERAL (SELECT id, urn, status FROM records WHERE id = l.record_id LIMIT 1) r) x
		ORDER BY d.key`
	duplicateKeysActive = `SELECT d.key, x.ids, x.urns, x.statuses
		FROM (SELECT l.key FROM locations l JOIN records r ON r.id = l.record_id
			WHERE l.key > $1 AND r.status = 'active' GROUP BY l.key HAVING count(*) > 1 ORDER BY l.key LIMIT $2) d
		CROSS JOIN LATERAL (SELECT array_agg(a.id ORDER BY a.id) ids, array_agg(a.urn ORDER BY a.id) urns, array_agg(a.status ORDER BY a.id) statuses
			FROM (SELECT r.id, r.urn, r.status FROM locations l
				CROSS JOIN LATERAL (SELECT id, urn, status FROM records WHERE id = l.record_id AND status = 'active' LIMIT 1) r
				WHERE l.key = d.key ORDER BY l.record_id LIMIT $3) a) x
		ORDER BY d.key`
)

func (r reader) duplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	q := duplicateKeysActive
	if withdrawn {
		q = duplicateKeys
	}
	rows, err := r.q.Query(ctx, q, after, limit, resolver.MaxByLocation+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Duplicate
	for rows.Next() {
		var d resolver.Duplicate
		var ids []int64
		var statuses []string
		if err := rows.Scan(&d.Key, &ids, &d.URNs, &statuses); err != nil {
			return nil, err
		}
		if len(ids) > resolver.MaxByLocation {
			ids, d.URNs, statuses, d.More = ids[:resolver.MaxByLocation], d.URNs[:resolver.MaxByLocation], statuses[:resolver.MaxByLocation], true
		}
		for _, s := range statuses {
			d.Statuses = append(d.Statuses, resolver.Status(s))
		}
		if len(ids) > 0 {
			d.LastID = ids[len(ids)-1]
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func scanAuthority(row pgx.Row) (resolver.Authority, error) {
	var a resolver.Authority
	err := row.Scan(&a.ID, &a.Name, &a.Prefixes, &a.Created, &a.Updated)
	a.Created, a.Updated = a.Created.UTC(), a.Updated.UTC()
	return a, err
}

func (r reader) authority(ctx context.Context, id int64) (resolver.Authority, error) {
	a, err := scanAuthority(r.q.QueryRow(ctx, `SELECT id, name, prefixes, created, updated FROM authorities WHERE id = $1`, id))
	return a, notFound(err)
}

func (r reader) authorities(ctx context.Context) ([]resolver.Authority, error) {
	rows, err := r.q.Query(ctx, `SELECT id, name, prefixes, created, updated FROM authorities ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Authority
	for rows.Next() {
		a, err := scanAuthority(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

const tokenCols = `id, authority_id, label, hash, created, revoked`

func scanToken(row pgx.Row) (resolver.Token, error) {
	var t resolver.Token
	var revoked *time.Time
	err := row.Scan(&t.ID, &t.AuthorityID, &t.Label, &t.Hash, &t.Created, &revoked)
	t.Created = t.Created.UTC()
	if revoked != nil {
		t.Revoked = revoked.UTC()
	}
	return t, err
}

func (r reader) tokenByHash(ctx context.Context, hash []byte) (resolver.Token, error) {
	t, err := scanToken(r.q.QueryRow(ctx, `SELECT `+tokenCols+` FROM tokens WHERE hash = $1`, hash))
	return t, notFound(err)
}

func (r reader) tokens(ctx context.Context, authorityID int64) ([]resolver.Token, error) {
	rows, err := r.q.Query(ctx, `SELECT `+tokenCols+` FROM tokens WHERE authority_id = $1 ORDER BY id`, authorityID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (r reader) rules(ctx context.Context) ([]resolver.Rule, error) {
	rows, err := r.q.Query(ctx, `SELECT id, prefix, target, created FROM rules ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Rule
	for rows.Next() {
		var ru resolver.Rule
		if err := rows.Scan(&ru.ID, &ru.Prefix, &ru.Target, &ru.Created); err != nil {
			return nil, err
		}
		ru.Created = ru.Created.UTC()
		out = append(out, ru)
	}
	return out, rows.Err()
}

const entryCols = `seq, time, action, subject, record_id, authority_id, actor, data, prev, hash`

func (r reader) entries(ctx context.Context, sql string, args ...any) ([]resolver.Entry, error) {
	rows, err := r.q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEntry(row pgx.Row) (resolver.Entry, error) {
	var e resolver.Entry
	var action string
	var data []byte
	err := row.Scan(&e.Seq, &e.Time, &action, &e.Subject, &e.RecordID, &e.AuthorityID, &e.Actor, &data, &e.Prev, &e.Hash)
	e.Time = e.Time.UTC()
	e.Action = resolver.Action(action)
	e.Data = data
	if len(e.Prev) == 0 {
		e.Prev = nil // the first entry links to nothing, as Seal leaves it
	}
	return e, err
}

// The statements of a record's history read a range of the partial index
// log_record (record_id, seq) WHERE record_id <> 0, forwards or backwards
// from the cursor; the condition is repeated so that the planner may use
// that index in a generic plan, which cannot see the parameter. Newest
// first, the time bound is checked row by row (times grow with seq, so
// the first row at or before it is the last one).
const (
	qHistory            = `SELECT ` + entryCols + ` FROM log WHERE record_id = $1 AND record_id <> 0 AND seq > $2 ORDER BY seq LIMIT $3`
	qHistoryBefore      = `SELECT ` + entryCols + ` FROM log WHERE record_id = $1 AND record_id <> 0 AND seq < $2 ORDER BY seq DESC LIMIT $3`
	qHistoryBeforeUntil = `SELECT ` + entryCols + ` FROM log WHERE record_id = $1 AND record_id <> 0 AND seq < $2 AND time <= $3 ORDER BY seq DESC LIMIT $4`
)

func (r reader) history(ctx context.Context, recordID, after int64, limit int) ([]resolver.Entry, error) {
	if limit <= 0 {
		return nil, nil
	}
	return r.entries(ctx, qHistory, recordID, after, limit)
}

func (r reader) historyBefore(ctx context.Context, recordID, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	if limit <= 0 {
		return nil, nil
	}
	if before <= 0 {
		before = math.MaxInt64
	}
	if until.IsZero() {
		return r.entries(ctx, qHistoryBefore, recordID, before, limit)
	}
	// Entries' times are whole microseconds: at or before until is at or
	// before it truncated, which is what the database compares exactly.
	return r.entries(ctx, qHistoryBeforeUntil, recordID, before, until.Truncate(time.Microsecond), limit)
}

func (r reader) log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	return r.entries(ctx, `SELECT `+entryCols+` FROM log WHERE seq > $1 ORDER BY seq LIMIT $2`, after, limit)
}

func (r reader) head(ctx context.Context) (resolver.Entry, error) {
	e, err := scanEntry(r.q.QueryRow(ctx, `SELECT `+entryCols+` FROM log WHERE seq = (SELECT seq FROM head WHERE id = 1)`))
	if errors.Is(err, pgx.ErrNoRows) {
		return resolver.Entry{}, nil // empty history
	}
	return e, err
}

func (r reader) setting(ctx context.Context, name string) (string, error) {
	var v string
	err := r.q.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&v)
	return v, notFound(err)
}
