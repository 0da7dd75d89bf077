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

// ImportBatch is how many records urikit import writes in one PutMany
// transaction on PostgreSQL unless told otherwise. A transaction's fixed
// costs — a dozen round trips, the set-up of four COPYs, a commit that
// waits for the disk — are shared by its records, and so is a cost of the
// server's COPY that grows with the square of the rows it buffers (up to
// 1,000: PostgreSQL 15 creates a slot for each anew in every COPY). On
// 200,000 records, batches of 2,000 took about 40% more of the server's
// processor time than batches of 10,000. A batch this size of new
// records takes a few tenths of a second. One of records already stored
// and changed is written a record at a time, for several seconds (urikit
// import gives its transactions 5 minutes), and other writers wait for
// its turn to end.
func (s *Store) ImportBatch() int { return 10000 }

// TakenKeys implements resolver.BulkTx. It first reads the stored keys
// between the least and the greatest of keys, one range of the index: an
// import's keys are usually new and close together (a fresh directory, a
// numbered series), and then that range holds few keys or none, where
// looking each key up costs a descent of the index per key, a tenth of
// the server's work in an import. When the range holds many more keys
// than were asked, each is looked up instead: unnest(keys) joined to the
// index (key = ANY(array) with thousands of keys is planned as a scan of
// the whole table, whose cost grows with the directory).
func (t *tx) TakenKeys(ctx context.Context, keys []string) (map[string]bool, error) {
	taken := map[string]bool{}
	if len(keys) == 0 {
		return taken, nil
	}
	lo, hi := slices.Min(keys), slices.Max(keys) // byte order, the keys' collation "C"
	limit := 2*len(keys) + 16
	rows, err := t.tx.Query(ctx, `SELECT key FROM keys WHERE key >= $1 AND key <= $2 LIMIT $3`, lo, hi, limit+1)
	if err != nil {
		return nil, err
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if len(stored) <= limit {
		asked := make(map[string]bool, len(keys))
		for _, k := range keys {
			asked[k] = true
		}
		for _, k := range stored {
			if asked[k] {
				taken[k] = true
			}
		}
		return taken, nil
	}
	rows, err = t.tx.Query(ctx, `SELECT k.key FROM unnest($1::text[]) AS u(key) JOIN keys k ON k.key = u.key`, keys)
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
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
	// The IDs: len(recs) values of the records' sequence in one
	// statement. They are consecutive unless another transaction takes
	// values at the same time (an early one, before its turn: see
	// UpdateBeforeTurn), which nothing here needs.
	var ids []int64
	if err := t.tx.QueryRow(ctx, `SELECT array_agg(nextval(s) ORDER BY n) FROM generate_series(1, $1) AS n,
		CAST(pg_get_serial_sequence('records', 'id') AS regclass) AS s`, len(recs)).Scan(&ids); err != nil {
		return err
	}
	if len(ids) != len(recs) {
		return fmt.Errorf("postgres: InsertRecords: %d IDs for %d records", len(ids), len(recs))
	}
	// The records' rows are encoded in pgconn's goroutine while the
	// server stores the rows before them (copyIn returns once the encoder
	// is done), and with them what the other tables' rows need: IDs, the
	// distinct location keys, the keys.
	type loc struct {
		key string
		id  int64
	}
	locs := make([]loc, 0, len(recs))
	ks := make([]*resolver.Key, 0, len(recs))
	err := copyIn(ctx, t.tx, "records", recordColumns, len(recs), func(i int, c *copyRows) {
		r := recs[i]
		r.ID = ids[i]
		for j, l := range r.Locations {
			if !slices.ContainsFunc(r.Locations[:j], func(m resolver.Location) bool { return m.Key == l.Key }) {
				locs = append(locs, loc{l.Key, r.ID})
			}
		}
		for j := range keys[i] {
			k := &keys[i][j]
			k.RecordID = r.ID
			ks = append(ks, k)
			t.keys[k.Key] = true
		}
		c.row(18)
		c.int8(r.ID)
		c.text(r.URN)
		if r.Key == r.URN { // NULL where the column would repeat another, as recordArgs
			c.null()
		} else {
			c.text(r.Key)
		}
		c.textArray(r.Aliases)
		c.locArray(r.Locations, func(l *resolver.Location) string { return l.URL })
		c.locArray(r.Locations, func(l *resolver.Location) string { return l.Type })
		if hasLabels(r.Locations) {
			c.locArray(r.Locations, func(l *resolver.Location) string { return l.Label })
		} else {
			c.null()
		}
		if keysAreURLs(r.Locations) {
			c.null()
		} else {
			c.locArray(r.Locations, func(l *resolver.Location) string { return l.Key })
		}
		c.bytea(r.Metadata)
		c.text(string(r.Status))
		c.int4(int32(r.Redirect))
		c.text(r.Successor)
		c.text(r.Reason)
		c.int8(r.AuthorityID)
		c.timestamptz(r.Created)
		c.timestamptz(r.Updated)
		if r.SuccessorKey == "" { // NULL when none, as recordArgs
			c.null()
		} else {
			c.text(r.SuccessorKey)
		}
		if r.SuccessorVersion == 0 {
			c.null()
		} else {
			c.int4(int32(r.SuccessorVersion))
		}
	})
	if err != nil {
		return err
	}
	err = copyIn(ctx, t.tx, "locations", []string{"key", "record_id"}, len(locs), func(i int, c *copyRows) {
		c.row(2)
		c.text(locs[i].key)
		c.int8(locs[i].id)
	})
	if err != nil {
		return err
	}
	return copyIn(ctx, t.tx, "keys", []string{"key", "spelling", "record_id", "role", "version"}, len(ks), func(i int, c *copyRows) {
		k := ks[i]
		c.row(5)
		c.text(k.Key)
		if k.Spelling == k.Key {
			c.null()
		} else {
			c.text(k.Spelling)
		}
		c.int8(k.RecordID)
		c.text(string(k.Role))
		c.int4(int32(k.Version))
	})
}

// recordColumns are the records table's columns in the order
// InsertRecords writes them.
var recordColumns = []string{"id", "urn", "key", "aliases", "loc_urls", "loc_types", "loc_labels", "loc_keys",
	"metadata", "status", "redirect", "successor", "reason", "authority_id", "created", "updated",
	"successor_key", "successor_version"}

// AppendAll implements resolver.BulkTx: each entry is sealed against the
// one before it, under the head lock, and all are stored with one COPY.
func (t *tx) AppendAll(ctx context.Context, entries []*resolver.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := t.write(ctx); err != nil {
		return err
	}
	// Sealed against the head's time, as Append does, so that times never
	// go backwards in Seq order (as-of lookups rely on it) whatever times
	// the caller stamped.
	last, err := t.Head(ctx)
	if err != nil {
		return err
	}
	// Each entry is sealed as its row is encoded, in order, in pgconn's
	// goroutine while the server stores the rows before (copyIn returns
	// only when the encoder is done).
	seq, hash, at := t.seq, t.hash, last.Time
	err = copyIn(ctx, t.tx, "log", []string{"seq", "time", "action", "subject", "record_id",
		"authority_id", "actor", "data", "prev", "hash"}, len(entries), func(i int, c *copyRows) {
		e := entries[i]
		resolver.Seal(resolver.Entry{Seq: seq, Hash: hash, Time: at}, e)
		seq, hash, at = e.Seq, e.Hash, e.Time
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
	})
	if err != nil {
		return err
	}
	if seq != t.seq+int64(len(entries)) {
		return fmt.Errorf("postgres: AppendAll: %d of %d entries written", seq-t.seq, len(entries))
	}
	t.seq, t.hash = seq, hash
	t.last = cloneEntry(*entries[len(entries)-1])
	return nil
}

var _ resolver.BulkTx = (*tx)(nil)
