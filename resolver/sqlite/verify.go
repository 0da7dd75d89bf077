package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// qRecordStates is resolver.Reader.RecordStates in one statement. The page
// of IDs is the first limit IDs of the union of three index scans, each of
// which stops after limit IDs: the records' rowids, history_record and
// keys_record. For each ID the statement joins the record (its rowid), the
// last entry about it (max(seq) is one descent of history_record) and its
// keys, one row per key (a single row with NULL key columns when there is
// none). ?1 is after, ?2 limit. It has no ORDER BY: SQLite would sort the
// whole rows, bodies and entries included, which took two thirds of the
// statement's time; recordStates groups and orders the rows instead.
const qRecordStates = `WITH ids(id) AS (
	SELECT id FROM (SELECT id FROM records WHERE id > ?1 ORDER BY id LIMIT ?2)
	UNION
	SELECT id FROM (SELECT DISTINCT record_id AS id FROM history WHERE record_id > ?1 AND record_id <> 0 ORDER BY record_id LIMIT ?2)
	UNION
	SELECT id FROM (SELECT DISTINCT record_id AS id FROM keys WHERE record_id > ?1 ORDER BY record_id LIMIT ?2)
	ORDER BY id LIMIT ?2)
SELECT ids.id,
	r.id, r.urn, r.key, r.status, r.redirect, r.successor, r.reason, r.authority_id, r.created, r.updated, r.body,
	h.seq, h.time, h.action, h.subject, h.record_id, h.authority_id, h.actor, h.data, h.prev, h.hash,
	k.key, k.spelling, k.role, k.version
FROM ids
LEFT JOIN records r ON r.id = ids.id
LEFT JOIN history h ON h.seq = (SELECT max(seq) FROM history WHERE record_id = ids.id)
LEFT JOIN keys k ON k.record_id = ids.id`

// queryer is a connection to run a statement on: the reader pool (one
// statement reads one snapshot) or the writer connection inside a tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// RecordStates implements resolver.Reader on the reader pool.
func (s *Store) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return recordStates(ctx, s.rdb, after, limit)
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
		var rid, redirect, authority, created, updated sql.NullInt64
		var urn, key, status, successor, reason sql.NullString
		var body []byte
		var seq, etime, erec, eauth sql.NullInt64
		var action, subject, actor sql.NullString
		var data, prev, hash []byte
		var kkey, spelling, role sql.NullString
		var version sql.NullInt64
		if err := rows.Scan(&id,
			&rid, &urn, &key, &status, &redirect, &successor, &reason, &authority, &created, &updated, &body,
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
				r.ID, r.URN, r.Key, r.Status = rid.Int64, urn.String, key.String, statusOf([]byte(status.String))
				r.Redirect, r.Successor, r.Reason, r.AuthorityID = int(redirect.Int64), successor.String, reason.String, authority.Int64
				r.Created, r.Updated = fromMicros(created.Int64), fromMicros(updated.Int64)
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
			st := &out[i]
			st.Keys = append(st.Keys, resolver.Key{Key: kkey.String, Spelling: spelling.String, RecordID: id,
				Role: roleOf([]byte(role.String)), Version: int(version.Int64)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(ctx, what, err)
	}
	slices.SortFunc(out, func(a, b resolver.RecordState) int { return cmp.Compare(a.ID, b.ID) })
	for _, st := range out {
		slices.SortFunc(st.Keys, func(a, b resolver.Key) int { return strings.Compare(a.Key, b.Key) })
	}
	return out, nil
}
