package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// maxRetries bounds how often Update runs fn again after a serialization
// failure or a deadlock.
const maxRetries = 5

// Update implements resolver.Store. The transaction runs at READ
// COMMITTED and starts by locking the head row, which every writer locks
// before it writes (an import's early transaction, UpdateBeforeTurn,
// stores its new records first): writers take turns across all processes
// on the database, so a transaction's reads see everything committed
// before it began writing, the history's Seq has no gaps, and the
// Service's check-then-write rules hold between processes as they do in
// one. Uniqueness does not depend on it: the unique indexes enforce it
// whatever the order.
//
// When fn changed anything, the commit bumps the directory's version and
// sends one notification (NOTIFY, delivered after the commit and in
// commit order) with the version and the lookup keys the change touched,
// which the other processes' caches drop (see Watch).
func (s *Store) Update(ctx context.Context, fn func(resolver.Tx) error) error {
	return s.run(ctx, false, func(t *tx) error { return fn(t) })
}

// UpdateBeforeTurn implements resolver.TurnTaker: the transaction locks
// the head row only when fn calls TakeTurn, or when it first writes
// anything but InsertRecords' rows. Until then it holds no lock another
// writer waits for, and its rows, uncommitted, are seen by nobody; a
// writer that stores one of its keys meanwhile waits for it at the
// unique index (and a deadlock between the two, the other writer holding
// the head lock, is detected by the server and retried here).
func (s *Store) UpdateBeforeTurn(ctx context.Context, fn func(resolver.EarlyTx) error) error {
	return s.run(ctx, true, func(t *tx) error { return fn(t) })
}

func (s *Store) run(ctx context.Context, early bool, fn func(*tx) error) error {
	if err := s.usable(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var err error
	for attempt := 1; ; attempt++ {
		var version int64
		version, err = s.update(ctx, early, fn)
		if err == nil {
			raise(&s.committed, version)
			if c, ok := ctx.Value(commitKey{}).(*Commit); ok {
				c.note(version)
			}
			return nil
		}
		if !retryCode(err) || attempt == maxRetries || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
	return mapErr(err)
}

func (s *Store) update(ctx context.Context, early bool, fn func(*tx) error) (int64, error) {
	ptx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, err
	}
	defer ptx.Rollback(context.WithoutCancel(ctx))
	t := &tx{reader: reader{ptx}, tx: ptx, keys: map[string]bool{}, recs: map[int64]bool{}}
	if !early {
		if err := t.TakeTurn(ctx); err != nil {
			return 0, err
		}
	}
	if err := fn(t); err != nil {
		return 0, err
	}
	if !t.wrote {
		return t.version, ptx.Commit(ctx)
	}
	if err := t.TakeTurn(ctx); err != nil { // (an early one that wrote only rows)
		return 0, err
	}
	t.version++
	payloads, err := t.payloads(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := ptx.Exec(ctx, `WITH h AS (UPDATE head SET seq = $1, hash = $2, version = $3 WHERE id = 1)
		SELECT pg_notify($4, p) FROM unnest($5::text[]) WITH ORDINALITY AS u(p, n) ORDER BY n`,
		t.seq, nonNil(t.hash), t.version, channel, payloads); err != nil {
		return 0, err
	}
	return t.version, ptx.Commit(ctx)
}

// TakeTurn implements resolver.EarlyTx: it locks the head row, which
// every writer locks before it writes anything but an early
// transaction's rows, and reads the history's head and the directory's
// version under the lock.
func (t *tx) TakeTurn(ctx context.Context) error {
	if t.turned {
		return nil
	}
	if err := t.tx.QueryRow(ctx, `SELECT seq, hash, version FROM head WHERE id = 1 FOR UPDATE`).Scan(&t.seq, &t.hash, &t.version); err != nil {
		return err
	}
	if len(t.hash) == 0 {
		t.hash = nil
	}
	t.turned = true
	t.authsOK = false // read before the turn: read again
	return nil
}

// write marks the transaction as one that changes something, after
// taking its turn.
func (t *tx) write(ctx context.Context) error {
	t.wrote = true
	return t.TakeTurn(ctx)
}

// channel is the NOTIFY channel of committed changes.
const channel = "urikit_changes"

// maxPayload keeps a notification under PostgreSQL's limit (8000 bytes).
const maxPayload = 7000

// maxNotifications is the most notifications one transaction sends. A
// bigger one (an import's batch: 10,000 records, some forty of them)
// sends "everything may have changed" instead: every listener empties
// its cache once rather than parse thousands of keys most of which it
// never held, and the server queues one message rather than dozens,
// which cost the import's commits a twentieth of its time.
const maxNotifications = 4

// change is a notification's payload. A transaction that changed more
// keys than one notification holds sends several, in order, all but the
// last with More set: a listener counts the version as reached only with
// the last.
type change struct {
	Version int64    `json:"v"`
	Keys    []string `json:"k,omitempty"`
	More    bool     `json:"more,omitempty"`
	All     bool     `json:"all,omitempty"`    // everything may have changed
	Schema  int      `json:"schema,omitempty"` // a migration: the schema's new version
}

// payloads lists the lookup keys whose answer the transaction changed —
// the keys it put or deleted, and every key of the records it updated —
// in notifications of at most maxPayload bytes.
func (t *tx) payloads(ctx context.Context) ([]string, error) {
	if len(t.recs) > 0 {
		ids := make([]int64, 0, len(t.recs))
		for id := range t.recs {
			ids = append(ids, id)
		}
		rows, err := t.tx.Query(ctx, `SELECT key FROM keys WHERE record_id = ANY($1::bigint[])`, ids)
		if err != nil {
			return nil, err
		}
		ks, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			t.keys[k] = true
		}
	}
	// Chunks of keys, each under maxPayload once encoded; a key too long
	// for a notification of its own, or more keys than maxNotifications
	// hold, make the change "everything".
	all := []string{fmt.Sprintf(`{"v":%d,"all":true}`, t.version)}
	var chunks [][]string
	var cur []string
	size := 0
	for k := range t.keys {
		n, err := jsonLen(k)
		if err != nil {
			return nil, err
		}
		if n > maxPayload-64 {
			return all, nil
		}
		if size+n+1 > maxPayload-64 {
			if len(chunks)+1 == maxNotifications {
				return all, nil
			}
			chunks, cur, size = append(chunks, cur), nil, 0
		}
		cur, size = append(cur, k), size+n+1
	}
	chunks = append(chunks, cur)
	out := make([]string, len(chunks))
	for i, ks := range chunks {
		b, err := json.Marshal(change{Version: t.version, Keys: ks, More: i < len(chunks)-1})
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// jsonLen is the length of k encoded as a JSON string by encoding/json:
// its length and the quotes when no byte needs escaping (printable
// ASCII but the quote, the backslash and <, > and &, which encoding/json
// escapes for HTML), as a lookup key nearly always is.
func jsonLen(k string) (int, error) {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, err := json.Marshal(k)
			return len(b), err
		}
	}
	return len(k) + 2, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// tx is one Update transaction.
type tx struct {
	reader
	tx      pgx.Tx
	seq     int64  // the history's last Seq, as this transaction leaves it
	hash    []byte // and its Hash
	version int64
	turned  bool // the head row is locked: seq, hash and version are read
	wrote   bool
	keys    map[string]bool      // lookup keys changed
	recs    map[int64]bool       // records changed (their keys are looked up at commit)
	auths   []resolver.Authority // read once per transaction (every Put asks)
	authsOK bool
	// last is the entry t.seq names, once read or appended (last.Seq ==
	// t.seq while it is current): the Service stamps every change with
	// max(now, the head's time), and Append seals against it.
	last resolver.Entry
}

func (t *tx) exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if err := t.write(ctx); err != nil {
		return 0, err
	}
	tag, err := t.tx.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (t *tx) RecordByKey(ctx context.Context, key string) (resolver.Record, resolver.Role, error) {
	return t.recordByKey(ctx, key)
}
func (t *tx) Record(ctx context.Context, id int64) (resolver.Record, error) { return t.record(ctx, id) }
func (t *tx) Keys(ctx context.Context, id int64) ([]resolver.Key, error)    { return t.keyList(ctx, id) }
func (t *tx) RecordsByLocation(ctx context.Context, k string, after int64, limit int, withdrawn bool) ([]resolver.Record, error) {
	return t.recordsByLocation(ctx, k, after, limit, withdrawn)
}
func (t *tx) Records(ctx context.Context, after int64, limit int) ([]resolver.Record, error) {
	return t.recordsAfter(ctx, after, limit)
}
func (t *tx) StaleKeys(ctx context.Context, v int, after string, limit int) ([]resolver.Key, error) {
	return t.staleKeys(ctx, v, after, limit)
}
func (t *tx) Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]resolver.RecordName, error) {
	return t.predecessors(ctx, keys, after, limit)
}
func (t *tx) StaleSuccessors(ctx context.Context, v int, after int64, limit int) ([]resolver.Record, error) {
	return t.staleSuccessors(ctx, v, after, limit)
}
func (t *tx) DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]resolver.Duplicate, error) {
	return t.duplicateLocations(ctx, after, limit, withdrawn)
}
func (t *tx) Authority(ctx context.Context, id int64) (resolver.Authority, error) {
	return t.authority(ctx, id)
}

// Authorities reads the authorities once per transaction: the Service
// asks for every record of a batch, and nobody else changes them while
// this transaction holds the head lock (its own changes reset the copy,
// and so does TakeTurn, for what an early transaction read before it).
func (t *tx) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	if !t.authsOK {
		as, err := t.authorities(ctx)
		if err != nil {
			return nil, err
		}
		t.auths, t.authsOK = as, true
	}
	out := make([]resolver.Authority, len(t.auths))
	for i, a := range t.auths {
		a.Prefixes = slices.Clone(a.Prefixes)
		out[i] = a
	}
	return out, nil
}
func (t *tx) TokenByHash(ctx context.Context, h []byte) (resolver.Token, error) {
	return t.tokenByHash(ctx, h)
}
func (t *tx) Tokens(ctx context.Context, id int64) ([]resolver.Token, error) {
	return t.tokens(ctx, id)
}
func (t *tx) Rules(ctx context.Context) ([]resolver.Rule, error) { return t.rules(ctx) }
func (t *tx) History(ctx context.Context, id, after int64, limit int) ([]resolver.Entry, error) {
	return t.history(ctx, id, after, limit)
}
func (t *tx) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	return t.historyBefore(ctx, id, before, until, limit)
}
func (t *tx) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	return t.log(ctx, after, limit)
}
func (t *tx) Head(ctx context.Context) (resolver.Entry, error) {
	if err := t.TakeTurn(ctx); err != nil {
		return resolver.Entry{}, err
	}
	if t.seq == 0 {
		return resolver.Entry{}, nil
	}
	if t.last.Seq != t.seq {
		// Read after the head row was locked, in a statement of its own:
		// at READ COMMITTED it sees the entry the last writer committed
		// (a join in the locking statement would read an older snapshot).
		e, err := scanEntry(t.tx.QueryRow(ctx, `SELECT `+entryCols+` FROM log WHERE seq = $1`, t.seq))
		if err != nil {
			return resolver.Entry{}, notFound(err)
		}
		t.last = e
	}
	return cloneEntry(t.last), nil
}

func cloneEntry(e resolver.Entry) resolver.Entry {
	e.Data = slices.Clone(e.Data)
	e.Prev = slices.Clone(e.Prev)
	e.Hash = slices.Clone(e.Hash)
	return e
}
func (t *tx) Setting(ctx context.Context, name string) (string, error) { return t.setting(ctx, name) }

// recordArgs are a record's columns after id, in the order of recordCols.
func recordArgs(r *resolver.Record) []any {
	n := len(r.Locations)
	urls, types, labels, keys := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, l := range r.Locations {
		urls[i], types[i], labels[i], keys[i] = l.URL, l.Type, l.Label, l.Key
	}
	aliases := r.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	// NULL where the column would repeat another (schema 2).
	var key, labelsArg, keysArg any = r.Key, labels, keys
	if r.Key == r.URN {
		key = nil
	}
	if !hasLabels(r.Locations) {
		labelsArg = nil
	}
	if keysAreURLs(r.Locations) {
		keysArg = nil
	}
	// successor_key and successor_version are NULL when there is none
	// (schema 3; the partial indexes hold only the others).
	var succKey, succVersion any
	if r.SuccessorKey != "" {
		succKey = r.SuccessorKey
	}
	if r.SuccessorVersion != 0 {
		succVersion = r.SuccessorVersion
	}
	return []any{r.URN, key, aliases, urls, types, labelsArg, keysArg, nonNil(r.Metadata), string(r.Status),
		r.Redirect, r.Successor, r.Reason, r.AuthorityID, r.Created, r.Updated, succKey, succVersion}
}

// hasLabels reports whether a location has a label: if none has, the
// row's loc_labels is NULL.
func hasLabels(ls []resolver.Location) bool {
	return slices.ContainsFunc(ls, func(l resolver.Location) bool { return l.Label != "" })
}

// keysAreURLs reports whether every location's key is its URL, as it is
// for a URL already in normal form: then the row's loc_keys is NULL.
func keysAreURLs(ls []resolver.Location) bool {
	return !slices.ContainsFunc(ls, func(l resolver.Location) bool { return l.Key != l.URL })
}

// spellingArg is keys.spelling's value: NULL when it is the key.
func spellingArg(k resolver.Key) any {
	if k.Spelling == k.Key {
		return nil
	}
	return k.Spelling
}

// locationKeys are the distinct location keys of a record.
func locationKeys(r *resolver.Record) []string {
	seen := make(map[string]bool, len(r.Locations))
	var out []string
	for _, l := range r.Locations {
		if !seen[l.Key] {
			seen[l.Key] = true
			out = append(out, l.Key)
		}
	}
	return out
}

func (t *tx) InsertRecord(ctx context.Context, r *resolver.Record) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	// One statement, one round trip: the record, then its location keys.
	return t.tx.QueryRow(ctx, `WITH r AS (INSERT INTO records (urn, key, aliases, loc_urls, loc_types, loc_labels, loc_keys,
		metadata, status, redirect, successor, reason, authority_id, created, updated, successor_key, successor_version)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id),
	l AS (INSERT INTO locations (key, record_id) SELECT DISTINCT unnest($18::text[]), (SELECT id FROM r))
	SELECT id FROM r`, append(recordArgs(r), locationKeys(r))...).Scan(&r.ID)
}

func (t *tx) UpdateRecord(ctx context.Context, r resolver.Record) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	var oldKeys []string
	err := t.tx.QueryRow(ctx, `WITH old AS (SELECT `+colLocKeys+` AS loc_keys FROM records r WHERE r.id = $1)
		UPDATE records SET urn = $2, key = $3, aliases = $4, loc_urls = $5, loc_types = $6,
		loc_labels = $7, loc_keys = $8, metadata = $9, status = $10, redirect = $11, successor = $12, reason = $13,
		authority_id = $14, created = $15, updated = $16, successor_key = $17, successor_version = $18 WHERE id = $1 RETURNING (SELECT loc_keys FROM old)`,
		append([]any{r.ID}, recordArgs(&r)...)...).Scan(&oldKeys)
	if err != nil {
		return notFound(err)
	}
	t.recs[r.ID] = true
	// The location index follows the record: drop what it no longer
	// lists, add what is new (the primary key (key, record_id) finds
	// both).
	newKeys := locationKeys(&r)
	var gone, added []string
	for _, k := range oldKeys {
		if !slices.Contains(newKeys, k) && !slices.Contains(gone, k) {
			gone = append(gone, k)
		}
	}
	for _, k := range newKeys {
		if !slices.Contains(oldKeys, k) {
			added = append(added, k)
		}
	}
	if len(gone) > 0 {
		if _, err := t.tx.Exec(ctx, `DELETE FROM locations WHERE key = ANY($1::text[]) AND record_id = $2`, gone, r.ID); err != nil {
			return err
		}
	}
	if len(added) > 0 {
		_, err = t.tx.Exec(ctx, `INSERT INTO locations (key, record_id) SELECT unnest($1::text[]), $2::bigint ON CONFLICT DO NOTHING`, added, r.ID)
	}
	return err
}

func (t *tx) PutKey(ctx context.Context, k resolver.Key) error {
	// The conditional upsert changes the row only when it is this
	// record's key; a key held by another record leaves it alone and
	// returns no row. A unique violation from a concurrent insert is
	// ErrKeyTaken too (mapErr).
	if err := t.write(ctx); err != nil {
		return err
	}
	var id int64
	err := t.tx.QueryRow(ctx, `INSERT INTO keys AS k (key, spelling, record_id, role, version) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (key) DO UPDATE SET spelling = excluded.spelling, role = excluded.role, version = excluded.version
		WHERE k.record_id = excluded.record_id
		RETURNING record_id`, k.Key, spellingArg(k), k.RecordID, string(k.Role), k.Version).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: key %s belongs to another record", resolver.ErrKeyTaken, k.Key)
	}
	if err != nil {
		return err
	}
	t.keys[k.Key] = true
	return nil
}

func (t *tx) DeleteKey(ctx context.Context, key string) error {
	t.keys[key] = true
	_, err := t.exec(ctx, `DELETE FROM keys WHERE key = $1`, key)
	return err
}

func (t *tx) InsertAuthority(ctx context.Context, a *resolver.Authority) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	t.authsOK = false
	return t.tx.QueryRow(ctx, `INSERT INTO authorities (name, prefixes, created, updated) VALUES ($1, $2, $3, $4) RETURNING id`,
		a.Name, nonNilStrings(a.Prefixes), a.Created, a.Updated).Scan(&a.ID)
}

func (t *tx) UpdateAuthority(ctx context.Context, a resolver.Authority) error {
	t.authsOK = false
	n, err := t.exec(ctx, `UPDATE authorities SET name = $2, prefixes = $3, created = $4, updated = $5 WHERE id = $1`,
		a.ID, a.Name, nonNilStrings(a.Prefixes), a.Created, a.Updated)
	if err == nil && n == 0 {
		err = resolver.ErrNotFound
	}
	return err
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (t *tx) InsertToken(ctx context.Context, tok *resolver.Token) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	return t.tx.QueryRow(ctx, `INSERT INTO tokens (authority_id, label, hash, created, revoked) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		tok.AuthorityID, tok.Label, nonNil(tok.Hash), tok.Created, nullTime(tok.Revoked)).Scan(&tok.ID)
}

func (t *tx) UpdateToken(ctx context.Context, tok resolver.Token) error {
	n, err := t.exec(ctx, `UPDATE tokens SET authority_id = $2, label = $3, hash = $4, created = $5, revoked = $6 WHERE id = $1`,
		tok.ID, tok.AuthorityID, tok.Label, nonNil(tok.Hash), tok.Created, nullTime(tok.Revoked))
	if err == nil && n == 0 {
		err = resolver.ErrNotFound
	}
	return err
}

func (t *tx) InsertRule(ctx context.Context, r *resolver.Rule) error {
	if err := t.write(ctx); err != nil {
		return err
	}
	// ON CONFLICT keeps the transaction usable after a taken prefix (the
	// Service turns ErrKeyTaken into a 409 inside the same transaction).
	err := t.tx.QueryRow(ctx, `INSERT INTO rules (prefix, target, created) VALUES ($1, $2, $3)
		ON CONFLICT (prefix) DO NOTHING RETURNING id`, r.Prefix, r.Target, r.Created).Scan(&r.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: a rule for %s exists", resolver.ErrKeyTaken, r.Prefix)
	}
	return err
}

func (t *tx) DeleteRule(ctx context.Context, id int64) error {
	_, err := t.exec(ctx, `DELETE FROM rules WHERE id = $1`, id)
	return err
}

func (t *tx) SetSetting(ctx context.Context, name, value string) error {
	_, err := t.exec(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value)
	return err
}

// Append seals e against the last entry (the head row, locked since the
// transaction began, so no other process appends in between) and stores
// it. The last entry's time comes from Head, which the Service has read
// already in the transaction (no second round trip): e is never earlier.
func (t *tx) Append(ctx context.Context, e *resolver.Entry) error {
	last, err := t.Head(ctx)
	if err != nil {
		return err
	}
	resolver.Seal(resolver.Entry{Seq: t.seq, Hash: t.hash, Time: last.Time}, e)
	if _, err := t.exec(ctx, `INSERT INTO log (`+entryCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		e.Seq, e.Time, string(e.Action), e.Subject, e.RecordID, e.AuthorityID, e.Actor, nonNil(e.Data), nonNil(e.Prev), e.Hash); err != nil {
		return err
	}
	t.seq, t.hash = e.Seq, e.Hash
	t.last = cloneEntry(*e)
	return nil
}

var _ resolver.Tx = (*tx)(nil)
