package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/urikit/urikit/resolver"
)

// Load implements resolver.Loader: fn runs as an Update's does.
func (s *Store) Load(ctx context.Context, fn func(resolver.LoadTx) error) error {
	return s.Update(ctx, func(t resolver.Tx) error { return fn(t.(*tx)) })
}

// seen raises nextID to id: one counter hands out every kind of ID here.
func (t *tx) seen(id int64) { t.d.nextID = max(t.d.nextID, id) }

func (t *tx) LoadAuthority(ctx context.Context, a resolver.Authority) error {
	if _, ok := t.d.authorities[a.ID]; ok {
		return fmt.Errorf("authority %d: %w", a.ID, resolver.ErrKeyTaken)
	}
	a.Prefixes = slices.Clone(a.Prefixes)
	t.d.authorities[a.ID] = a
	t.seen(a.ID)
	return nil
}

func (t *tx) LoadToken(ctx context.Context, tok resolver.Token) error {
	if _, ok := t.d.tokens[tok.ID]; ok {
		return fmt.Errorf("token %d: %w", tok.ID, resolver.ErrKeyTaken)
	}
	tok.Hash = slices.Clone(tok.Hash)
	t.d.tokens[tok.ID] = tok
	t.seen(tok.ID)
	return nil
}

func (t *tx) LoadRule(ctx context.Context, r resolver.Rule) error {
	if _, ok := t.d.rules[r.ID]; ok {
		return fmt.Errorf("rule %d: %w", r.ID, resolver.ErrKeyTaken)
	}
	t.d.rules[r.ID] = r
	t.seen(r.ID)
	return nil
}

func (t *tx) LoadRecords(ctx context.Context, recs []resolver.Record, keys [][]resolver.Key) error {
	for i, r := range recs {
		if _, ok := t.d.records[r.ID]; ok {
			return fmt.Errorf("record %d: %w", r.ID, resolver.ErrKeyTaken)
		}
		for _, k := range keys[i] {
			if _, ok := t.d.keys[k.Key]; ok {
				return fmt.Errorf("key %q: %w", k.Key, resolver.ErrKeyTaken)
			}
			t.d.keys[k.Key] = k
		}
		t.d.records[r.ID] = cloneRecord(r)
		t.seen(r.ID)
	}
	return nil
}

func (t *tx) LoadEntries(ctx context.Context, entries []resolver.Entry) error {
	for _, e := range entries {
		if e.Seq != t.d.head().Seq+1 {
			return fmt.Errorf("history entry %d does not follow entry %d", e.Seq, t.d.head().Seq)
		}
		e.Data, e.Prev, e.Hash = slices.Clone(e.Data), slices.Clone(e.Prev), slices.Clone(e.Hash)
		t.d.log = append(t.d.log, e)
	}
	return nil
}

func (t *tx) ReserveIDs(ctx context.Context, ids resolver.NextIDs) error {
	t.seen(max(ids.Record, ids.Authority, ids.Token, ids.Rule))
	return nil
}

var _ resolver.Loader = (*Store)(nil)
