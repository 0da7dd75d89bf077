package sqlite

import (
	"context"
	"fmt"

	"github.com/urikit/urikit/resolver"
)

// Load implements resolver.Loader: fn runs in an Update's transaction
// (BEGIN IMMEDIATE), and writes rows with the IDs, keys and hashes they
// come with.
func (s *Store) Load(ctx context.Context, fn func(resolver.LoadTx) error) error {
	return s.Update(ctx, func(t resolver.Tx) error { return fn(t.(*tx)) })
}

func (t *tx) LoadAuthority(ctx context.Context, a resolver.Authority) error {
	t.auths = nil
	_, err := t.exec(ctx, "loading an authority", qLoadAuthority, a.ID, a.Name, prefixesJSON(a.Prefixes), micros(a.Created), micros(a.Updated))
	return err
}

func (t *tx) LoadToken(ctx context.Context, tok resolver.Token) error {
	_, err := t.exec(ctx, "loading a token", qLoadToken, tok.ID, tok.AuthorityID, tok.Label, nonNil(tok.Hash), micros(tok.Created), revokedArg(&tok))
	return err
}

func (t *tx) LoadRule(ctx context.Context, r resolver.Rule) error {
	_, err := t.exec(ctx, "loading a rule", qLoadRule, r.ID, r.Prefix, r.Target, micros(r.Created))
	return err
}

// LoadRecords stores each record, its location index and its keys. A name
// key that is its record's own key (records.key) is stored as roleOwnName,
// as PutKey does: the keys_record index leaves those rows out, and Keys
// finds them through records.key.
func (t *tx) LoadRecords(ctx context.Context, recs []resolver.Record, keys [][]resolver.Key) error {
	for i := range recs {
		r := &recs[i]
		args, err := recordArgs(r)
		if err != nil {
			return err
		}
		if _, err := t.exec(ctx, "loading a record", qLoadRecord, append([]any{r.ID}, anys(args)...)...); err != nil {
			return fmt.Errorf("record %d: %w", r.ID, err)
		}
		if err := t.insertLocations(ctx, r); err != nil {
			return err
		}
		for _, k := range keys[i] {
			k.RecordID = r.ID
			kargs, err := appendKeyArgs(nil, &k, nil, k.Key == r.Key)
			if err != nil {
				return err
			}
			if _, err := t.exec(ctx, "loading a key", qLoadKey, anys(kargs)...); err != nil {
				return fmt.Errorf("record %d, key %q: %w", r.ID, k.Key, err)
			}
		}
	}
	return nil
}

// LoadEntries stores the entries as they are, and makes the last one the
// transaction's head (the history's head is its last row).
func (t *tx) LoadEntries(ctx context.Context, entries []resolver.Entry) error {
	for _, e := range entries {
		if _, err := t.exec(ctx, "loading the history", qAppend, e.Seq, micros(e.Time), string(e.Action), e.Subject,
			e.RecordID, e.AuthorityID, e.Actor, nonNil(e.Data), nonNil(e.Prev), nonNil(e.Hash)); err != nil {
			return fmt.Errorf("history entry %d: %w", e.Seq, err)
		}
		t.head, t.hasHead = cloneEntry(e), true
	}
	return nil
}

// ReserveIDs: records, authorities and tokens are INTEGER PRIMARY KEY
// without AUTOINCREMENT, whose next ID is one above the greatest row (none
// of them is ever deleted); rules are AUTOINCREMENT, whose next ID is above
// sqlite_sequence's too.
func (t *tx) ReserveIDs(ctx context.Context, ids resolver.NextIDs) error {
	if ids.Rule <= 0 {
		return nil
	}
	if _, err := t.exec(ctx, "reserving rule IDs", qReserveRuleIDs, ids.Rule); err != nil {
		return err
	}
	_, err := t.exec(ctx, "reserving rule IDs", qRaiseRuleIDs, ids.Rule)
	return err
}

var _ resolver.Loader = (*Store)(nil)
