package postgres

import (
	"context"
	"fmt"

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
	rows, err := t.tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('records', 'id')) FROM generate_series(1, $1)`, len(recs))
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	recRows := make([][]any, len(recs))
	var locRows, keyRows [][]any
	for i, r := range recs {
		r.ID = ids[i]
		recRows[i] = append([]any{r.ID}, recordArgs(r)...)
		for _, lk := range locationKeys(r) {
			locRows = append(locRows, []any{lk, r.ID})
		}
		for j := range keys[i] {
			k := &keys[i][j]
			k.RecordID = r.ID
			keyRows = append(keyRows, []any{k.Key, k.Spelling, k.RecordID, string(k.Role), k.Version})
			t.keys[k.Key] = true
		}
	}
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"records"}, []string{"id", "urn", "key", "aliases", "loc_urls",
		"loc_types", "loc_labels", "loc_keys", "metadata", "status", "redirect", "successor", "reason", "authority_id",
		"created", "updated"}, pgx.CopyFromRows(recRows)); err != nil {
		return err
	}
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"locations"}, []string{"key", "record_id"}, pgx.CopyFromRows(locRows)); err != nil {
		return err
	}
	_, err = t.tx.CopyFrom(ctx, pgx.Identifier{"keys"}, []string{"key", "spelling", "record_id", "role", "version"}, pgx.CopyFromRows(keyRows))
	return err
}

// AppendAll implements resolver.BulkTx: each entry is sealed against the
// one before it, under the head lock, and all are stored with one COPY.
func (t *tx) AppendAll(ctx context.Context, entries []*resolver.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	t.wrote = true
	seq, hash := t.seq, t.hash
	rows := make([][]any, len(entries))
	for i, e := range entries {
		resolver.Seal(resolver.Entry{Seq: seq, Hash: hash}, e)
		seq, hash = e.Seq, e.Hash
		rows[i] = []any{e.Seq, e.Time, string(e.Action), e.Subject, e.RecordID, e.AuthorityID, e.Actor,
			nonNil(e.Data), nonNil(e.Prev), e.Hash}
	}
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"log"}, []string{"seq", "time", "action", "subject", "record_id",
		"authority_id", "actor", "data", "prev", "hash"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	t.seq, t.hash = seq, hash
	return nil
}

var _ resolver.BulkTx = (*tx)(nil)
