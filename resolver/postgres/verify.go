package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// sqlRecordStates is resolver.Reader.RecordStates in one statement (one
// snapshot). The page of IDs is bounded by the records first: r holds the
// first $2 record IDs above $1, and hi the last of them (or the largest
// bigint on the last page); the IDs that the log and the keys table hold
// in ($1, hi] join them, and the first $2 of the union are the page —
// which are the first $2 IDs of the three tables, since r alone has $2 of
// them up to hi. Each table is read by an index range bounded on both
// sides: log_record (partial: its condition record_id <> 0 is written
// out so that the planner uses it) and keys_record, never a scan of the
// whole table, whatever the planner's statistics say (right after a bulk
// import it has none). For each ID: the record, the last entry about it
// (one descent of log_record), its keys as parallel arrays in key order
// (COLLATE "C": byte order, as the other stores), and which of its
// locations' keys the location index holds for it (one descent of the
// index's primary key each: the table has no index on record_id).
const sqlRecordStates = `WITH r AS (SELECT id FROM records WHERE id > $1 ORDER BY id LIMIT $2),
hi AS (SELECT CASE WHEN count(*) < $2 THEN 9223372036854775807 ELSE max(id) END AS hi FROM r),
ids AS (
	SELECT id FROM (
		SELECT id FROM r
		UNION
		SELECT l.record_id FROM hi, log l WHERE l.record_id > $1 AND l.record_id <= hi.hi AND l.record_id <> 0
		UNION
		SELECT k.record_id FROM hi, keys k WHERE k.record_id > $1 AND k.record_id <= hi.hi
	) u ORDER BY id LIMIT $2)
SELECT ids.id, r.id IS NOT NULL,
	r.urn, ` + colKey + `, r.aliases, r.loc_urls, r.loc_types, ` + colLocLabels + `, ` + colLocKeys + `,
	r.metadata, r.status, r.redirect, r.successor, r.reason, r.authority_id, r.created, r.updated,
	r.successor_key, r.successor_version,
	h.seq, h.time, h.action, h.subject, h.record_id, h.authority_id, h.actor, h.data, h.prev, h.hash,
	k.keys, k.spellings, k.roles, k.versions,
	ARRAY(SELECT DISTINCT lk FROM unnest(` + colLocKeys + `) lk
		WHERE EXISTS (SELECT 1 FROM locations l WHERE l.key = lk AND l.record_id = ids.id) ORDER BY lk) AS found
FROM ids
LEFT JOIN records r ON r.id = ids.id
LEFT JOIN LATERAL (SELECT seq, time, action, subject, record_id, authority_id, actor, data, prev, hash
	FROM log WHERE record_id = ids.id AND record_id <> 0 ORDER BY seq DESC LIMIT 1) h ON true
LEFT JOIN LATERAL (SELECT array_agg(key ORDER BY key) AS keys, array_agg(` + colSpelling + ` ORDER BY key) AS spellings,
	array_agg(role ORDER BY key) AS roles, array_agg(version ORDER BY key) AS versions
	FROM keys WHERE record_id = ids.id) k ON true
ORDER BY ids.id`

// beginner is a pool, which RecordStates runs a transaction on.
type beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// recordStates runs sqlRecordStates with JIT compilation off. Right after
// a bulk import the planner has no statistics yet and estimates each key
// lookup at hundreds of rows; the page's estimated cost then passes
// jit_above_cost, and compiling the statement took a second, a hundred
// times what running it takes. SET LOCAL needs a transaction: on a pool
// it opens a read-only one (a replica takes it too), inside an Update it
// lasts to the end of that transaction, which it does not harm.
func (r reader) recordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	if limit <= 0 {
		return nil, nil
	}
	if b, ok := r.q.(beginner); ok {
		tx, err := b.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, err
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) // read only: nothing to commit
		r = reader{tx}
	}
	if _, err := r.q.Exec(ctx, `SET LOCAL jit = off`); err != nil {
		return nil, err
	}
	rows, err := r.q.Query(ctx, sqlRecordStates, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.RecordState
	for rows.Next() {
		var st resolver.RecordState
		var urn, key, status, successor, reason, successorKey *string
		var successorVersion *int32
		var aliases, urls, types, labels, locKeys []string
		var meta []byte
		var redirect *int32
		var authority *int64
		var created, updated *time.Time
		var seq, erec, eauth *int64
		var etime *time.Time
		var action, subject, actor *string
		var data, prev, hash []byte
		var keys, spellings, roles []string
		var versions []int32
		if err := rows.Scan(&st.ID, &st.HasRecord,
			&urn, &key, &aliases, &urls, &types, &labels, &locKeys,
			&meta, &status, &redirect, &successor, &reason, &authority, &created, &updated,
			&successorKey, &successorVersion,
			&seq, &etime, &action, &subject, &erec, &eauth, &actor, &data, &prev, &hash,
			&keys, &spellings, &roles, &versions, &st.Locations); err != nil {
			return nil, err
		}
		if len(st.Locations) == 0 {
			st.Locations = nil
		}
		if st.HasRecord {
			rec := &st.Record
			rec.ID, rec.URN, rec.Key, rec.Status = st.ID, deref(urn), deref(key), resolver.Status(deref(status))
			rec.Successor, rec.Reason, rec.Metadata = deref(successor), deref(reason), meta
			rec.SuccessorKey = deref(successorKey)
			if successorVersion != nil {
				rec.SuccessorVersion = int(*successorVersion)
			}
			if len(aliases) > 0 {
				rec.Aliases = aliases
			}
			if redirect != nil {
				rec.Redirect = int(*redirect)
			}
			if authority != nil {
				rec.AuthorityID = *authority
			}
			if created != nil {
				rec.Created = created.UTC()
			}
			if updated != nil {
				rec.Updated = updated.UTC()
			}
			// As scanRecord: the four arrays are one list of locations. A
			// row whose arrays differ in length (edited in the database)
			// keeps the URLs, so that Verify sees a difference.
			n := len(urls)
			for i := range n {
				l := resolver.Location{URL: urls[i], Key: urls[i]}
				if i < len(types) {
					l.Type = types[i]
				}
				if i < len(labels) {
					l.Label = labels[i]
				}
				if i < len(locKeys) {
					l.Key = locKeys[i]
				}
				rec.Locations = append(rec.Locations, l)
			}
		}
		if seq != nil {
			e := &st.Latest
			e.Seq, e.Action, e.Subject, e.Actor = *seq, resolver.Action(deref(action)), deref(subject), deref(actor)
			if etime != nil {
				e.Time = etime.UTC()
			}
			if erec != nil {
				e.RecordID = *erec
			}
			if eauth != nil {
				e.AuthorityID = *eauth
			}
			e.Data, e.Prev, e.Hash = data, prev, hash
			if len(e.Prev) == 0 {
				e.Prev = nil
			}
		}
		for i := range keys {
			k := resolver.Key{Key: keys[i], RecordID: st.ID}
			if i < len(spellings) {
				k.Spelling = spellings[i]
			}
			if i < len(roles) {
				k.Role = resolver.Role(roles[i])
			}
			if i < len(versions) {
				k.Version = int(versions[i])
			}
			st.Keys = append(st.Keys, k)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RecordStates implements resolver.Reader (routed as every read is).
func (s *Store) RecordStates(ctx context.Context, after int64, limit int) (sts []resolver.RecordState, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		sts, err = r.recordStates(ctx, after, limit)
		return err
	})
	return sts, err
}

// RecordStates implements resolver.Reader inside the transaction.
func (t *tx) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	return t.recordStates(ctx, after, limit)
}

// countChunk is how many rows of the location index one statement of
// LocationCount counts: a range of the primary key that takes a fraction
// of Options.Timeout, whatever the size of the index.
const countChunk = 500_000

// LocationCount implements resolver.Reader: the index is counted a chunk
// at a time in key order, each chunk a read of its own (bounded by the
// store's timeout), which Verify allows for.
func (s *Store) LocationCount(ctx context.Context) (int64, error) {
	var n int64
	var after *resolver.LocationRow
	for {
		var c int64
		var last *resolver.LocationRow
		err := s.read(ctx, func(ctx context.Context, r reader) (err error) {
			c, last, err = r.countLocations(ctx, after, countChunk)
			return err
		})
		if err != nil {
			return 0, err
		}
		n += c
		if last == nil {
			return n, nil
		}
		after = last
	}
}

// LocationCount implements resolver.Reader inside the transaction.
func (t *tx) LocationCount(ctx context.Context) (int64, error) {
	var n int64
	err := t.q.QueryRow(ctx, `SELECT count(*) FROM locations`).Scan(&n)
	return n, err
}

// countLocations counts the rows after after (from the first when nil):
// when there are more than limit, it counts limit of them and returns the
// last it counted, found at that offset of the primary key's range; else
// it counts the rest and returns nil.
func (r reader) countLocations(ctx context.Context, after *resolver.LocationRow, limit int) (int64, *resolver.LocationRow, error) {
	var where string
	var args []any
	if after != nil {
		where, args = `WHERE (key, record_id) > ($1, $2)`, []any{after.Key, after.RecordID}
	}
	var last resolver.LocationRow
	err := r.q.QueryRow(ctx, fmt.Sprintf(`SELECT key, record_id FROM locations %s ORDER BY key, record_id OFFSET %d LIMIT 1`, where, limit-1), args...).
		Scan(&last.Key, &last.RecordID)
	if err == nil {
		return int64(limit), &last, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, nil, err
	}
	var n int64
	err = r.q.QueryRow(ctx, `SELECT count(*) FROM locations `+where, args...).Scan(&n)
	return n, nil, err
}

// sqlLocationRows reads a page of the location index in its primary key's
// order (the row comparison is a range of it), each row with whether its
// record, read in the same statement, lists its key.
const sqlLocationRows = `SELECT l.key, l.record_id, coalesce(l.key = ANY(` + colLocKeys + `), false)
FROM (SELECT key, record_id FROM locations WHERE (key, record_id) > ($1, $2) ORDER BY key, record_id LIMIT $3) l
LEFT JOIN records r ON r.id = l.record_id
ORDER BY l.key, l.record_id`

// sqlLocationRowsFirst is sqlLocationRows from the first row.
const sqlLocationRowsFirst = `SELECT l.key, l.record_id, coalesce(l.key = ANY(` + colLocKeys + `), false)
FROM (SELECT key, record_id FROM locations ORDER BY key, record_id LIMIT $1) l
LEFT JOIN records r ON r.id = l.record_id
ORDER BY l.key, l.record_id`

// LocationRows implements resolver.Reader (routed as every read is).
func (s *Store) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) (rows []resolver.LocationRow, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		rows, err = r.locationRows(ctx, after, limit)
		return err
	})
	return rows, err
}

// LocationRows implements resolver.Reader inside the transaction.
func (t *tx) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	return t.locationRows(ctx, after, limit)
}

func (r reader) locationRows(ctx context.Context, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	if limit <= 0 {
		return nil, nil
	}
	var rows pgx.Rows
	var err error
	if after == nil {
		rows, err = r.q.Query(ctx, sqlLocationRowsFirst, limit)
	} else {
		rows, err = r.q.Query(ctx, sqlLocationRows, after.Key, after.RecordID, limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resolver.LocationRow
	for rows.Next() {
		var lr resolver.LocationRow
		if err := rows.Scan(&lr.Key, &lr.RecordID, &lr.Listed); err != nil {
			return nil, err
		}
		out = append(out, lr)
	}
	return out, rows.Err()
}

// AccessState implements resolver.Reader (routed as every read is): its
// four statements run in one repeatable-read transaction, which reads one
// snapshot (read only, which a replica takes too).
func (s *Store) AccessState(ctx context.Context) (st resolver.AccessState, err error) {
	err = s.read(ctx, func(ctx context.Context, r reader) error {
		st, err = r.accessState(ctx)
		return err
	})
	return st, err
}

// AccessState implements resolver.Reader inside the transaction, which
// reads one snapshot already.
func (t *tx) AccessState(ctx context.Context) (resolver.AccessState, error) {
	return t.accessState(ctx)
}

func (r reader) accessState(ctx context.Context) (resolver.AccessState, error) {
	var st resolver.AccessState
	if b, ok := r.q.(beginner); ok {
		tx, err := b.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return st, err
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) // read only: nothing to commit
		r = reader{tx}
	}
	if err := r.q.QueryRow(ctx, `SELECT coalesce((SELECT seq FROM head WHERE id = 1), 0)`).Scan(&st.Head); err != nil {
		return st, err
	}
	var err error
	if st.Authorities, err = r.authorities(ctx); err != nil {
		return st, err
	}
	if st.Rules, err = r.rules(ctx); err != nil {
		return st, err
	}
	rows, err := r.q.Query(ctx, `SELECT `+tokenCols+` FROM tokens ORDER BY id`)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return st, err
		}
		st.Tokens = append(st.Tokens, t)
	}
	if err := rows.Err(); err != nil {
		return st, err
	}
	rows.Close()
	// No row leaves the setting "": no admin token was generated, no
	// location keys migrated.
	for _, s := range []struct {
		name string
		to   *string
	}{{resolver.AdminTokenSetting, &st.AdminTokenHash}, {resolver.LocationKeySetting, &st.LocationKeyVersion}} {
		err = r.q.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1`, s.name).Scan(s.to)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return st, err
		}
	}
	return st, nil
}
