// Package memstore is a resolver.Store held in memory: the reference
// implementation of the Store contract, small enough to read in one sitting.
// It keeps nothing across restarts, so urikit serve never uses it; tests and
// fuzz targets of the layers above use it where a database would only make
// them slower.
package memstore

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/urikit/urikit/resolver"
)

// Store is an in-memory resolver.Store. Update transactions run one at a
// time on a copy of the data, which replaces the data on commit.
type Store struct {
	mu  sync.RWMutex // guards d, which a commit replaces whole
	wmu sync.Mutex   // one Update at a time
	d   *data
}

type data struct {
	records     map[int64]resolver.Record
	keys        map[string]resolver.Key
	authorities map[int64]resolver.Authority
	tokens      map[int64]resolver.Token
	rules       map[int64]resolver.Rule
	settings    map[string]string
	log         []resolver.Entry
	nextID      int64
}

// New returns an empty store.
func New() *Store {
	return &Store{d: &data{
		records: map[int64]resolver.Record{}, keys: map[string]resolver.Key{},
		authorities: map[int64]resolver.Authority{}, tokens: map[int64]resolver.Token{},
		rules: map[int64]resolver.Rule{}, settings: map[string]string{},
	}}
}

func (d *data) clone() *data {
	c := *d
	c.records = cloneMap(d.records, cloneRecord)
	c.keys = cloneMap(d.keys, func(k resolver.Key) resolver.Key { return k })
	c.authorities = cloneMap(d.authorities, func(a resolver.Authority) resolver.Authority {
		a.Prefixes = slices.Clone(a.Prefixes)
		return a
	})
	c.tokens = cloneMap(d.tokens, func(t resolver.Token) resolver.Token { return t })
	c.rules = cloneMap(d.rules, func(r resolver.Rule) resolver.Rule { return r })
	c.settings = cloneMap(d.settings, func(s string) string { return s })
	c.log = slices.Clone(d.log)
	return &c
}

func cloneMap[K comparable, V any](m map[K]V, f func(V) V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = f(v)
	}
	return c
}

func cloneRecord(r resolver.Record) resolver.Record {
	r.Aliases = slices.Clone(r.Aliases)
	r.Locations = slices.Clone(r.Locations)
	r.Metadata = slices.Clone(r.Metadata)
	return r
}

// Update implements resolver.Store.
func (s *Store) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.RLock()
	tx := &tx{d: s.d.clone()}
	s.mu.RUnlock()
	if err := fn(tx); err != nil {
		return err
	}
	s.mu.Lock()
	s.d = tx.d
	s.mu.Unlock()
	return nil
}

// Close implements resolver.Store.
func (s *Store) Close() error { return nil }

func (s *Store) view() *data {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.d
}

// The read methods of Store read the committed data, which an Update never
// changes in place.

func (s *Store) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	return s.view().recordByKey(key)
}
func (s *Store) Record(ctx context.Context, id int64) (resolver.Record, error) {
	return s.view().record(id)
}
func (s *Store) Keys(ctx context.Context, id int64) ([]resolver.Key, error) {
	return s.view().keysOf(id), nil
}
func (s *Store) RecordsByLocation(ctx context.Context, k string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	return s.view().byLocation(k, after, limit, withdrawn), nil
}
func (s *Store) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	return s.view().recordsAfter(after, limit), nil
}
func (s *Store) StaleKeys(ctx context.Context, v int, after string, limit int) ([]resolver.Key, error) {
	return s.view().staleKeys(v, after, limit), nil
}
func (s *Store) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	return s.view().predecessors(keys, after, limit), nil
}
func (s *Store) StaleSuccessors(ctx context.Context, v int, after int64, limit int) ([]resolver.Record, error) {
	return s.view().staleSuccessors(v, after, limit), nil
}
func (s *Store) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	return s.view().duplicates(after, limit, withdrawn), nil
}
func (s *Store) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	return s.view().authority(id)
}
func (s *Store) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	return sortedValues(s.view().authorities, func(a resolver.Authority) int64 { return a.ID }), nil
}
func (s *Store) TokenByHash(ctx context.Context, h []byte) (resolver.Token, error) {
	return s.view().tokenByHash(h)
}
func (s *Store) Tokens(ctx context.Context, id int64) ([]resolver.Token, error) {
	return s.view().tokensOf(id), nil
}
func (s *Store) Rules(ctx context.Context) ([]resolver.Rule, error) {
	return sortedValues(s.view().rules, func(r resolver.Rule) int64 { return r.ID }), nil
}
func (s *Store) History(ctx context.Context, id, after int64, limit int) ([]resolver.Entry, error) {
	return s.view().history(id, after, limit), nil
}
func (s *Store) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	return s.view().historyBefore(id, before, until, limit), nil
}
func (s *Store) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	return s.view().logAfter(after, limit), nil
}
func (s *Store) Head(ctx context.Context) (resolver.Entry, error) { return s.view().head(), nil }
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	return s.view().setting(name)
}
func (s *Store) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	return s.view().states(after, limit), nil
}

// Tamper replaces the stored history entry seq with e, as an edit made
// directly in a database would: for tests of history verification.
func (s *Store) Tamper(seq int64, f func(*resolver.Entry)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq >= 1 && seq <= int64(len(s.d.log)) {
		f(&s.d.log[seq-1])
	}
}

// ---- the data, read and written by both Store and tx ----

func (d *data) recordByKey(key string) (resolver.Record, resolver.Role, error) {
	k, ok := d.keys[key]
	if !ok {
		return resolver.Record{}, "", resolver.ErrNotFound
	}
	return cloneRecord(d.records[k.RecordID]), k.Role, nil
}

func (d *data) record(id int64) (resolver.Record, error) {
	r, ok := d.records[id]
	if !ok {
		return resolver.Record{}, resolver.ErrNotFound
	}
	return cloneRecord(r), nil
}

func (d *data) keysOf(id int64) []resolver.Key {
	var ks []resolver.Key
	for _, k := range d.keys {
		if k.RecordID == id {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool {
		if (ks[i].Role == resolver.RoleName) != (ks[j].Role == resolver.RoleName) {
			return ks[i].Role == resolver.RoleName
		}
		return ks[i].Key < ks[j].Key
	})
	return ks
}

// byLocation scans every record (the memory store keeps no location
// index), but clones only the first limit after after it returns.
func (d *data) byLocation(key string, after int64, limit int, withdrawn bool) []resolver.Record {
	var out []resolver.Record
	for _, r := range sortedValues(d.records, func(r resolver.Record) int64 { return r.ID }) {
		if len(out) >= limit {
			break
		}
		if r.ID > after && (withdrawn || r.Status == resolver.Active) && slices.ContainsFunc(r.Locations, func(l resolver.Location) bool { return l.Key == key }) {
			out = append(out, cloneRecord(r))
		}
	}
	return out
}

func (d *data) recordsAfter(after int64, limit int) []resolver.Record {
	var out []resolver.Record
	for _, r := range sortedValues(d.records, func(r resolver.Record) int64 { return r.ID }) {
		if r.ID > after && len(out) < limit {
			out = append(out, cloneRecord(r))
		}
	}
	return out
}

func (d *data) staleKeys(version int, after string, limit int) []resolver.Key {
	var out []resolver.Key
	for _, k := range d.keys {
		if k.Version < version && k.Key > after {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (d *data) predecessors(keys []string, after int64, limit int) []resolver.RecordName {
	var out []resolver.RecordName
	for _, r := range sortedValues(d.records, func(r resolver.Record) int64 { return r.ID }) {
		if len(out) < limit && r.ID > after && r.SuccessorKey != "" && slices.Contains(keys, r.SuccessorKey) {
			out = append(out, resolver.RecordName{ID: r.ID, URN: r.URN})
		}
	}
	return out
}

func (d *data) staleSuccessors(version int, after int64, limit int) []resolver.Record {
	var out []resolver.Record
	for _, r := range sortedValues(d.records, func(r resolver.Record) int64 { return r.ID }) {
		if r.ID > after && resolver.SuccessorStale(r, version) && len(out) < limit {
			out = append(out, cloneRecord(r))
		}
	}
	return out
}

func (d *data) duplicates(after string, limit int, withdrawn bool) []resolver.Duplicate {
	byKey := map[string]*resolver.Duplicate{}
	for _, r := range sortedValues(d.records, func(r resolver.Record) int64 { return r.ID }) {
		if r.Status != resolver.Active && !withdrawn {
			continue
		}
		seen := map[string]bool{}
		for _, l := range r.Locations {
			if !seen[l.Key] {
				seen[l.Key] = true
				dup := byKey[l.Key]
				if dup == nil {
					dup = &resolver.Duplicate{Key: l.Key}
					byKey[l.Key] = dup
				}
				// The first MaxByLocation, as the stores with an index
				// read them.
				if len(dup.URNs) == resolver.MaxByLocation {
					dup.More = true
					continue
				}
				dup.URNs = append(dup.URNs, r.URN)
				dup.Statuses = append(dup.Statuses, r.Status)
				dup.LastID = r.ID
			}
		}
	}
	var out []resolver.Duplicate
	for k, dup := range byKey {
		if (len(dup.URNs) > 1 || dup.More) && k > after {
			out = append(out, *dup)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (d *data) authority(id int64) (resolver.Authority, error) {
	a, ok := d.authorities[id]
	if !ok {
		return resolver.Authority{}, resolver.ErrNotFound
	}
	a.Prefixes = slices.Clone(a.Prefixes)
	return a, nil
}

func (d *data) tokenByHash(h []byte) (resolver.Token, error) {
	for _, t := range d.tokens {
		if string(t.Hash) == string(h) {
			return t, nil
		}
	}
	return resolver.Token{}, resolver.ErrNotFound
}

func (d *data) tokensOf(id int64) []resolver.Token {
	var out []resolver.Token
	for _, t := range sortedValues(d.tokens, func(t resolver.Token) int64 { return t.ID }) {
		if t.AuthorityID == id {
			out = append(out, t)
		}
	}
	return out
}

func (d *data) history(id, after int64, limit int) []resolver.Entry {
	var out []resolver.Entry
	for _, e := range d.log {
		if len(out) == limit {
			break
		}
		if e.RecordID == id && e.Seq > after {
			out = append(out, e)
		}
	}
	return out
}

func (d *data) historyBefore(id, before int64, until time.Time, limit int) []resolver.Entry {
	var out []resolver.Entry
	for i := len(d.log) - 1; i >= 0 && len(out) < limit; i-- {
		e := d.log[i]
		if e.RecordID == id && (before <= 0 || e.Seq < before) && (until.IsZero() || !e.Time.After(until)) {
			out = append(out, e)
		}
	}
	return out
}

func (d *data) logAfter(after int64, limit int) []resolver.Entry {
	var out []resolver.Entry
	for _, e := range d.log {
		if e.Seq > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out
}

func (d *data) head() resolver.Entry {
	if len(d.log) == 0 {
		return resolver.Entry{}
	}
	return d.log[len(d.log)-1]
}

func (d *data) setting(name string) (string, error) {
	v, ok := d.settings[name]
	if !ok {
		return "", resolver.ErrNotFound
	}
	return v, nil
}

// states gathers the record IDs of the three places that hold them, and
// reads each one's record, last entry and keys. It scans everything for
// every page: the reference store is for tests, not for size.
func (d *data) states(after int64, limit int) []resolver.RecordState {
	seen := map[int64]bool{}
	var ids []int64
	add := func(id int64) {
		if id > after && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for id := range d.records {
		add(id)
	}
	for _, e := range d.log {
		if e.RecordID != 0 {
			add(e.RecordID)
		}
	}
	for _, k := range d.keys {
		add(k.RecordID)
	}
	slices.Sort(ids)
	if len(ids) > limit {
		ids = ids[:max(limit, 0)]
	}
	out := make([]resolver.RecordState, len(ids))
	for i, id := range ids {
		st := resolver.RecordState{ID: id}
		if r, ok := d.records[id]; ok {
			st.HasRecord, st.Record = true, cloneRecord(r)
		}
		for j := len(d.log) - 1; j >= 0; j-- {
			if d.log[j].RecordID == id {
				st.Latest = d.log[j]
				break
			}
		}
		for _, k := range d.keys {
			if k.RecordID == id {
				st.Keys = append(st.Keys, k)
			}
		}
		sort.Slice(st.Keys, func(a, b int) bool { return st.Keys[a].Key < st.Keys[b].Key })
		st.Locations = locationKeys(st.Record)
		out[i] = st
	}
	return out
}

func sortedValues[V any](m map[int64]V, id func(V) int64) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return id(out[i]) < id(out[j]) })
	return out
}

// tx is one Update transaction: reads and writes go to a private copy.
type tx struct{ d *data }

func (t *tx) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	return t.d.recordByKey(key)
}
func (t *tx) Record(ctx context.Context, id int64) (resolver.Record, error) { return t.d.record(id) }
func (t *tx) Keys(ctx context.Context, id int64) ([]resolver.Key, error)    { return t.d.keysOf(id), nil }
func (t *tx) RecordsByLocation(ctx context.Context, k string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	return t.d.byLocation(k, after, limit, withdrawn), nil
}
func (t *tx) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	return t.d.recordsAfter(after, limit), nil
}
func (t *tx) StaleKeys(ctx context.Context, v int, after string, limit int) ([]resolver.Key, error) {
	return t.d.staleKeys(v, after, limit), nil
}
func (t *tx) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	return t.d.predecessors(keys, after, limit), nil
}
func (t *tx) StaleSuccessors(ctx context.Context, v int, after int64, limit int) ([]resolver.Record, error) {
	return t.d.staleSuccessors(v, after, limit), nil
}
func (t *tx) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	return t.d.duplicates(after, limit, withdrawn), nil
}
func (t *tx) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	return t.d.authority(id)
}
func (t *tx) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	return sortedValues(t.d.authorities, func(a resolver.Authority) int64 { return a.ID }), nil
}
func (t *tx) TokenByHash(ctx context.Context, h []byte) (resolver.Token, error) {
	return t.d.tokenByHash(h)
}
func (t *tx) Tokens(ctx context.Context, id int64) ([]resolver.Token, error) {
	return t.d.tokensOf(id), nil
}
func (t *tx) Rules(ctx context.Context) ([]resolver.Rule, error) {
	return sortedValues(t.d.rules, func(r resolver.Rule) int64 { return r.ID }), nil
}
func (t *tx) History(ctx context.Context, id, after int64, limit int) ([]resolver.Entry, error) {
	return t.d.history(id, after, limit), nil
}
func (t *tx) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	return t.d.historyBefore(id, before, until, limit), nil
}
func (t *tx) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	return t.d.logAfter(after, limit), nil
}
func (t *tx) Head(ctx context.Context) (resolver.Entry, error) { return t.d.head(), nil }
func (t *tx) Setting(ctx context.Context, name string) (string, error) {
	return t.d.setting(name)
}
func (t *tx) RecordStates(ctx context.Context, after int64, limit int) ([]resolver.RecordState, error) {
	return t.d.states(after, limit), nil
}

func (t *tx) id() int64 { t.d.nextID++; return t.d.nextID }

func (t *tx) InsertRecord(ctx context.Context, r *resolver.Record) error {
	r.ID = t.id()
	t.d.records[r.ID] = cloneRecord(*r)
	return nil
}

func (t *tx) UpdateRecord(ctx context.Context, r resolver.Record) error {
	if _, ok := t.d.records[r.ID]; !ok {
		return resolver.ErrNotFound
	}
	t.d.records[r.ID] = cloneRecord(r)
	return nil
}

func (t *tx) PutKey(ctx context.Context, k resolver.Key) error {
	if old, ok := t.d.keys[k.Key]; ok && old.RecordID != k.RecordID {
		return resolver.ErrKeyTaken
	}
	t.d.keys[k.Key] = k
	return nil
}

func (t *tx) DeleteKey(ctx context.Context, key string) error {
	delete(t.d.keys, key)
	return nil
}

func (t *tx) InsertAuthority(ctx context.Context, a *resolver.Authority) error {
	a.ID = t.id()
	t.d.authorities[a.ID] = *a
	return nil
}

func (t *tx) UpdateAuthority(ctx context.Context, a resolver.Authority) error {
	if _, ok := t.d.authorities[a.ID]; !ok {
		return resolver.ErrNotFound
	}
	t.d.authorities[a.ID] = a
	return nil
}

func (t *tx) InsertToken(ctx context.Context, tok *resolver.Token) error {
	tok.ID = t.id()
	t.d.tokens[tok.ID] = *tok
	return nil
}

func (t *tx) UpdateToken(ctx context.Context, tok resolver.Token) error {
	if _, ok := t.d.tokens[tok.ID]; !ok {
		return resolver.ErrNotFound
	}
	t.d.tokens[tok.ID] = tok
	return nil
}

func (t *tx) InsertRule(ctx context.Context, r *resolver.Rule) error {
	for _, o := range t.d.rules {
		if o.Prefix == r.Prefix {
			return resolver.ErrKeyTaken
		}
	}
	r.ID = t.id()
	t.d.rules[r.ID] = *r
	return nil
}

func (t *tx) DeleteRule(ctx context.Context, id int64) error {
	delete(t.d.rules, id)
	return nil
}

func (t *tx) SetSetting(ctx context.Context, name, value string) error {
	t.d.settings[name] = value
	return nil
}

func (t *tx) Append(ctx context.Context, e *resolver.Entry) error {
	e.Data = slices.Clone(e.Data)
	resolver.Seal(t.d.head(), e)
	t.d.log = append(t.d.log, *e)
	return nil
}

var _ resolver.Store = (*Store)(nil)
