package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// Load implements resolver.Loader: fn runs in an Update's transaction
// (holding the writers' turn), and writes rows with the IDs, keys and
// hashes they come with. A page's rows go in one round trip (a pgx batch).
func (s *Store) Load(ctx context.Context, fn func(resolver.LoadTx) error) error {
	return s.run(ctx, false, func(t *tx) error { return fn(t) })
}

func (t *tx) LoadAuthority(ctx context.Context, a resolver.Authority) error {
	t.authsOK = false
	_, err := t.exec(ctx, `INSERT INTO authorities (id, name, prefixes, created, updated) VALUES ($1, $2, $3, $4, $5)`,
		a.ID, a.Name, nonNilStrings(a.Prefixes), a.Created, a.Updated)
	return err
}

func (t *tx) LoadToken(ctx context.Context, tok resolver.Token) error {
	_, err := t.exec(ctx, `INSERT INTO tokens (id, authority_id, label, hash, created, revoked) VALUES ($1, $2, $3, $4, $5, $6)`,
		tok.ID, tok.AuthorityID, tok.Label, nonNil(tok.Hash), tok.Created, nullTime(tok.Revoked))
	return err
}

func (t *tx) LoadRule(ctx context.Context, r resolver.Rule) error {
	_, err := t.exec(ctx, `INSERT INTO rules (id, prefix, target, created) VALUES ($1, $2, $3, $4)`, r.ID, r.Prefix, r.Target, r.Created)
	return err
}

// LoadRecords stores the records, their location index and their keys,
// all in one batch.
func (t *tx) LoadRecords(ctx context.Context, recs []resolver.Record, keys [][]resolver.Key) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	var b pgx.Batch
	for i := range recs {
		r := &recs[i]
		b.Queue(`WITH r AS (INSERT INTO records (id, urn, key, aliases, loc_urls, loc_types, loc_labels, loc_keys,
			metadata, status, redirect, successor, reason, authority_id, created, updated, successor_key, successor_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id)
		INSERT INTO locations (key, record_id) SELECT DISTINCT unnest($19::text[]), (SELECT id FROM r)`,
			append(append([]any{r.ID}, recordArgs(r)...), locationKeys(r))...)
		for _, k := range keys[i] {
			b.Queue(`INSERT INTO keys (key, spelling, record_id, role, version) VALUES ($1, $2, $3, $4, $5)`,
				k.Key, spellingArg(k), r.ID, string(k.Role), k.Version)
		}
	}
	return t.sendBatch(ctx, &b)
}

// LoadEntries stores the entries as they are and makes the last one the
// head: the head row, which the commit writes from t.seq and t.hash.
func (t *tx) LoadEntries(ctx context.Context, entries []resolver.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := t.write(ctx); err != nil {
		return err
	}
	var b pgx.Batch
	for _, e := range entries {
		b.Queue(`INSERT INTO log (`+entryCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			e.Seq, e.Time, string(e.Action), e.Subject, e.RecordID, e.AuthorityID, e.Actor, nonNil(e.Data), nonNil(e.Prev), nonNil(e.Hash))
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return err
	}
	last := entries[len(entries)-1]
	t.seq, t.hash, t.last = last.Seq, last.Hash, cloneEntry(last)
	return nil
}

func (t *tx) sendBatch(ctx context.Context, b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	res := t.tx.SendBatch(ctx, b)
	for range b.Len() {
		if _, err := res.Exec(); err != nil {
			res.Close()
			return err
		}
	}
	return res.Close()
}

// ReserveIDs moves each identity column's sequence past the IDs given and
// the rows stored: rows inserted with their IDs leave the sequences where
// they were, and the next insert would take ID 1. setval(…, n, true) makes
// the next value n+1; on an empty table with no floor, (1, false) makes
// it 1.
func (t *tx) ReserveIDs(ctx context.Context, ids resolver.NextIDs) error {
	for _, c := range []struct {
		table string
		floor int64
	}{{"records", ids.Record}, {"authorities", ids.Authority}, {"tokens", ids.Token}, {"rules", ids.Rule}} {
		q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), greatest(m, 1), m > 0)
			FROM (SELECT greatest($1::bigint, (SELECT coalesce(max(id), 0) FROM %[1]s)) AS m) AS x`, c.table)
		if _, err := t.exec(ctx, q, c.floor); err != nil {
			return fmt.Errorf("setting the next ID of %s: %w", c.table, err)
		}
	}
	return nil
}

var _ resolver.Loader = (*Store)(nil)
