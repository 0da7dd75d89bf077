package postgres

import (
	"context"
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
// (one descent of log_record) and its keys as parallel arrays in key order
// (COLLATE "C": byte order, as the other stores).
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
	r.urn, r.key, r.aliases, r.loc_urls, r.loc_types, r.loc_labels, r.loc_keys,
	r.metadata, r.status, r.redirect, r.successor, r.reason, r.authority_id, r.created, r.updated,
	h.seq, h.time, h.action, h.subject, h.record_id, h.authority_id, h.actor, h.data, h.prev, h.hash,
	k.keys, k.spellings, k.roles, k.versions
FROM ids
LEFT JOIN records r ON r.id = ids.id
LEFT JOIN LATERAL (SELECT seq, time, action, subject, record_id, authority_id, actor, data, prev, hash
	FROM log WHERE record_id = ids.id AND record_id <> 0 ORDER BY seq DESC LIMIT 1) h ON true
LEFT JOIN LATERAL (SELECT array_agg(key ORDER BY key) AS keys, array_agg(spelling ORDER BY key) AS spellings,
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
		var urn, key, status, successor, reason *string
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
			&seq, &etime, &action, &subject, &erec, &eauth, &actor, &data, &prev, &hash,
			&keys, &spellings, &roles, &versions); err != nil {
			return nil, err
		}
		if st.HasRecord {
			rec := &st.Record
			rec.ID, rec.URN, rec.Key, rec.Status = st.ID, deref(urn), deref(key), resolver.Status(deref(status))
			rec.Successor, rec.Reason, rec.Metadata = deref(successor), deref(reason), meta
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
