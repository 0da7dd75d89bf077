package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// The bulk methods of resolver.BulkTx: PutMany writes the new records of
// an import batch with them, in a handful of round trips (one query, IDs
// from the sequence in one more, then COPY into records, locations, keys
// and log) instead of several per record.

// TakenKeys implements resolver.BulkTx.
func (t *tx) TakenKeys(ctx context.Context, keys []string) (map[string]bool, error) {
	rows, err := t.tx.Query(ctx, `SELECT key FROM keys WHERE key = ANY($1::text[])`, keys)
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	taken := make(map[string]bool, len(found))
	for _, k := range found {
		taken[k] = true
	}
	return taken, nil
}

// InsertRecords implements resolver.BulkTx. A key already stored fails
// the COPY with a unique violation (ErrKeyTaken), which aborts the
// transaction: nothing of it stays.
func (t *tx) InsertRecords(ctx context.Context, recs []*resolver.Record, keys [][]resolver.Key) error {
	if len(recs) != len(keys) {
		return fmt.Errorf("postgres: InsertRecords: %d records but %d key lists", len(recs), len(keys))
	}
	if len(recs) == 0 {
		return nil
	}
	t.wrote = true
	// The IDs, from the records' sequence in one query (the sequence is
	// looked up once: pg_get_serial_sequence in the select list would run
	// for every row, and took a tenth of the server's time).
	rows, err := t.tx.Query(ctx, `SELECT nextval(s) FROM CAST(pg_get_serial_sequence('records', 'id') AS regclass) AS s,
		generate_series(1, $1)`, len(recs))
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	if len(ids) != len(recs) {
		return fmt.Errorf("postgres: InsertRecords: %d IDs for %d records", len(ids), len(recs))
	}
	rc, lc, kc := newCopyRows(512*len(recs)), newCopyRows(64*len(recs)), newCopyRows(96*len(recs))
	for i, r := range recs {
		r.ID = ids[i]
		rc.row(16)
		rc.int8(r.ID)
		rc.text(r.URN)
		rc.text(r.Key)
		rc.textArray(r.Aliases)
		rc.locArray(r.Locations, func(l *resolver.Location) string { return l.URL })
		rc.locArray(r.Locations, func(l *resolver.Location) string { return l.Type })
		rc.locArray(r.Locations, func(l *resolver.Location) string { return l.Label })
		rc.locArray(r.Locations, func(l *resolver.Location) string { return l.Key })
		rc.bytea(r.Metadata)
		rc.text(string(r.Status))
		rc.int4(int32(r.Redirect))
		rc.text(r.Successor)
		rc.text(r.Reason)
		rc.int8(r.AuthorityID)
		rc.timestamptz(r.Created)
		rc.timestamptz(r.Updated)
		for j, l := range r.Locations {
			if !slices.ContainsFunc(r.Locations[:j], func(m resolver.Location) bool { return m.Key == l.Key }) {
				lc.row(2)
				lc.text(l.Key)
				lc.int8(r.ID)
			}
		}
		for j := range keys[i] {
			k := &keys[i][j]
			k.RecordID = r.ID
			kc.row(5)
			kc.text(k.Key)
			kc.text(k.Spelling)
			kc.int8(k.RecordID)
			kc.text(string(k.Role))
			kc.int4(int32(k.Version))
			t.keys[k.Key] = true
		}
	}
	if err := copyIn(ctx, t.tx, "records", recordColumns, rc.end()); err != nil {
		return err
	}
	if err := copyIn(ctx, t.tx, "locations", []string{"key", "record_id"}, lc.end()); err != nil {
		return err
	}
	return copyIn(ctx, t.tx, "keys", []string{"key", "spelling", "record_id", "role", "version"}, kc.end())
}

// recordColumns are the records table's columns in the order
// InsertRecords writes them.
var recordColumns = []string{"id", "urn", "key", "aliases", "loc_urls", "loc_types", "loc_labels", "loc_keys",
	"metadata", "status", "redirect", "successor", "reason", "authority_id", "created", "updated"}

// AppendAll implements resolver.BulkTx: each entry is sealed against the
// one before it, under the head lock, and all are stored with one COPY.
func (t *tx) AppendAll(ctx context.Context, entries []*resolver.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	t.wrote = true
	seq, hash := t.seq, t.hash
	c := newCopyRows(512 * len(entries))
	for _, e := range entries {
		resolver.Seal(resolver.Entry{Seq: seq, Hash: hash}, e)
		seq, hash = e.Seq, e.Hash
		c.row(10)
		c.int8(e.Seq)
		c.timestamptz(e.Time)
		c.text(string(e.Action))
		c.text(e.Subject)
		c.int8(e.RecordID)
		c.int8(e.AuthorityID)
		c.text(e.Actor)
		c.bytea(e.Data)
		c.bytea(e.Prev)
		c.bytea(e.Hash)
	}
	if err := copyIn(ctx, t.tx, "log", []string{"seq", "time", "action", "subject", "record_id",
		"authority_id", "actor", "data", "prev", "hash"}, c.end()); err != nil {
		return err
	}
	t.seq, t.hash = seq, hash
	return nil
}

var _ resolver.BulkTx = (*tx)(nil)
