package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/urikit/urikit/resolver"
)

// errTxDone is returned by a Tx used after its Update returned.
var errTxDone = errors.New("sqlite: transaction used after Update returned")

// tx is one Update: every statement runs on the writer connection, inside
// the BEGIN IMMEDIATE that Update opened, so it holds SQLite's write lock
// from start to end and nobody else (thread or process) writes meanwhile.
// That lock is what serializes Append, and it also makes the two caches
// below safe: nothing but this tx can change authorities or the history
// while it runs.
type tx struct {
	reader
	w    *writer // the connection of the bulk methods
	done bool
	// broken, when set, is why the transaction must not commit: a bulk
	// call failed and could not take back what it wrote (tx.undo).
	broken error

	// auths caches Authorities for the transaction: the Service reads them
	// for every record it writes, and an import writes thousands of records
	// in one transaction. Dropped by every write to an authority.
	auths []resolver.Authority
	// head is the last entry of the history once read or appended.
	head    resolver.Entry
	hasHead bool
}

func (t *tx) check() error {
	if t.done {
		return errTxDone
	}
	return nil
}

// Authorities implements resolver.Reader, from the transaction's cache.
func (t *tx) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	if t.auths == nil {
		a, err := t.reader.Authorities(ctx)
		if err != nil {
			return nil, err
		}
		if a == nil {
			a = []resolver.Authority{}
		}
		t.auths = a
	} else if err := t.check(); err != nil {
		return nil, err
	}
	out := make([]resolver.Authority, len(t.auths))
	for i, a := range t.auths {
		a.Prefixes = slices.Clone(a.Prefixes)
		out[i] = a
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Head implements resolver.Reader, from the transaction's cache.
func (t *tx) Head(ctx context.Context) (resolver.Entry, error) {
	if err := t.check(); err != nil {
		return resolver.Entry{}, err
	}
	if !t.hasHead {
		h, err := t.reader.Head(ctx)
		if err != nil {
			return resolver.Entry{}, err
		}
		t.head, t.hasHead = h, true
	}
	return cloneEntry(t.head), nil
}

func cloneEntry(e resolver.Entry) resolver.Entry {
	e.Data = slices.Clone(e.Data)
	e.Prev = slices.Clone(e.Prev)
	e.Hash = slices.Clone(e.Hash)
	return e
}

// exec runs a write statement and returns the number of rows it changed.
func (t *tx) exec(ctx context.Context, what string, q query, args ...any) (sql.Result, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	res, err := t.q[q].ExecContext(ctx, args...)
	if err != nil {
		return nil, storeErr(ctx, what, err)
	}
	return res, nil
}

func affected(ctx context.Context, what string, res sql.Result) (int64, error) {
	n, err := res.RowsAffected()
	return n, storeErr(ctx, what, err)
}

// recordArgs are the values of a record's columns after its ID, as schema
// 2 stores them: key NULL when it equals urn, successor and reason NULL
// when empty, the status as its code; and, since schema 3, the
// successor's key and its version, NULL when there is no key (none of a
// new record's: a bulk call writes them as literals, see constantColumns). They are of the types the driver
// binds as they are, so that the bulk path can hand them to it directly.
func recordArgs(r *resolver.Record) ([]driver.Value, error) {
	return appendRecordArgs(make([]driver.Value, 0, bulkCols[bulkRecords]), r, &recordBoxes{})
}

// recordBoxes keeps the interface values of the columns that the records
// of a batch mostly share (see box).
type recordBoxes struct{ redirect, authority, created, updated box }

func appendRecordArgs(a []driver.Value, r *resolver.Record, b *recordBoxes) ([]driver.Value, error) {
	status, ok := statusCode(r.Status)
	if !ok {
		return nil, fmt.Errorf("sqlite: record %s: the status %q cannot be stored", r.URN, r.Status)
	}
	return append(a, r.URN, unlessEqual(r.Key, r.URN), status, b.redirect.int(int64(r.Redirect)), unlessEqual(r.Successor, ""),
		unlessEqual(r.Reason, ""), b.authority.int(r.AuthorityID), b.created.int(micros(r.Created)), b.updated.int(micros(r.Updated)),
		encodeBody(r), unlessEqual(r.SuccessorKey, ""), successorVersion(r)), nil
}

// successorVersion is the successor_version of r: NULL when it has no
// successor (the partial index of stale successor keys leaves it out).
func successorVersion(r *resolver.Record) driver.Value {
	if r.SuccessorVersion == 0 {
		return nil
	}
	return int64(r.SuccessorVersion)
}

// box is the interface value of one column in the rows of a bulk call,
// reused while the value stays the same: converting an int64 (above 255)
// or a string to an interface allocates, and most columns of an import
// batch hold one value in every row (its time, authority, actor...).
type box struct{ v driver.Value }

func (b *box) int(v int64) driver.Value {
	if x, ok := b.v.(int64); !ok || x != v {
		b.v = v
	}
	return b.v
}

func (b *box) str(v string) driver.Value {
	if x, ok := b.v.(string); !ok || x != v {
		b.v = v
	}
	return b.v
}

// appendKeyArgs appends the values of a key's columns (keyInsertCols).
// recordID is the key's RecordID as an interface value (nil: box it);
// own says that the key is its record's key (records.key).
func appendKeyArgs(a []driver.Value, k *resolver.Key, recordID driver.Value, own bool) ([]driver.Value, error) {
	role, ok := roleCode(k.Role)
	if !ok {
		return nil, fmt.Errorf("sqlite: key %s: the role %q cannot be stored", k.Key, k.Role)
	}
	if role == roleName && own {
		role = roleOwnName
	}
	if recordID == nil {
		recordID = k.RecordID
	}
	return append(a, k.Key, unlessEqual(k.Spelling, k.Key), recordID, role, int64(k.Version)), nil
}

// unlessEqual is s, or NULL when s equals what its column's NULL stands for.
func unlessEqual(s, null string) driver.Value {
	if s == null {
		return nil
	}
	return s
}

// anys converts driver values for the variadic arguments of database/sql.
func anys(v []driver.Value) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

func (t *tx) insertLocations(ctx context.Context, r *resolver.Record) error {
	for _, l := range r.Locations {
		if _, err := t.exec(ctx, "indexing a location", qInsertLocation, l.Key, r.ID); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) InsertRecord(ctx context.Context, rec *resolver.Record) error {
	args, err := recordArgs(rec)
	if err != nil {
		return err
	}
	res, err := t.exec(ctx, "inserting a record", qInsertRecord, anys(args)...)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return storeErr(ctx, "inserting a record", err)
	}
	rec.ID = id
	return t.insertLocations(ctx, rec)
}

func (t *tx) UpdateRecord(ctx context.Context, rec resolver.Record) error {
	old, err := t.Record(ctx, rec.ID)
	if err != nil {
		return err
	}
	args, err := recordArgs(&rec)
	if err != nil {
		return err
	}
	if _, err := t.exec(ctx, "updating a record", qUpdateRecord, append(anys(args), rec.ID)...); err != nil {
		return err
	}
	if rec.Key != old.Key {
		if _, err := t.exec(ctx, "re-keying a record", qDemoteOwnKey, old.Key, rec.ID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, "re-keying a record", qPromoteOwnKey, rec.Key, rec.ID); err != nil {
			return err
		}
	}
	// The location index changes by what changed: the stored body says
	// which keys the record listed before.
	for _, l := range old.Locations {
		if !slices.ContainsFunc(rec.Locations, func(n resolver.Location) bool { return n.Key == l.Key }) {
			if _, err := t.exec(ctx, "re-indexing locations", qDeleteLocation, l.Key, rec.ID); err != nil {
				return err
			}
		}
	}
	return t.insertLocations(ctx, &rec)
}

func (t *tx) PutKey(ctx context.Context, k resolver.Key) error {
	args, err := appendKeyArgs(nil, &k, nil, false) // qPutKey finds out whether it is the record's own
	if err != nil {
		return err
	}
	res, err := t.exec(ctx, "storing a key", qPutKey, anys(args)...)
	if err != nil {
		return err
	}
	if n, err := affected(ctx, "storing a key", res); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("key %q: %w", k.Key, resolver.ErrKeyTaken)
	}
	return nil
}

func (t *tx) DeleteKey(ctx context.Context, key string) error {
	_, err := t.exec(ctx, "deleting a key", qDeleteKey, key)
	return err
}

func prefixesJSON(p []string) string {
	if p == nil {
		p = []string{}
	}
	b, _ := json.Marshal(p) // a []string always marshals
	return string(b)
}

func (t *tx) InsertAuthority(ctx context.Context, a *resolver.Authority) error {
	t.auths = nil
	res, err := t.exec(ctx, "inserting an authority", qInsertAuthority, a.Name, prefixesJSON(a.Prefixes), micros(a.Created), micros(a.Updated))
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return storeErr(ctx, "inserting an authority", err)
	}
	a.ID = id
	return nil
}

func (t *tx) UpdateAuthority(ctx context.Context, a resolver.Authority) error {
	t.auths = nil
	res, err := t.exec(ctx, "updating an authority", qUpdateAuthority, a.Name, prefixesJSON(a.Prefixes), micros(a.Created), micros(a.Updated), a.ID)
	if err != nil {
		return err
	}
	if n, err := affected(ctx, "updating an authority", res); err != nil {
		return err
	} else if n == 0 {
		return resolver.ErrNotFound
	}
	return nil
}

func revokedArg(tok *resolver.Token) any {
	if tok.Revoked.IsZero() {
		return nil
	}
	return micros(tok.Revoked)
}

func (t *tx) InsertToken(ctx context.Context, tok *resolver.Token) error {
	res, err := t.exec(ctx, "inserting a token", qInsertToken, tok.AuthorityID, tok.Label, tok.Hash, micros(tok.Created), revokedArg(tok))
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return storeErr(ctx, "inserting a token", err)
	}
	tok.ID = id
	return nil
}

func (t *tx) UpdateToken(ctx context.Context, tok resolver.Token) error {
	res, err := t.exec(ctx, "updating a token", qUpdateToken, tok.AuthorityID, tok.Label, tok.Hash, micros(tok.Created), revokedArg(&tok), tok.ID)
	if err != nil {
		return err
	}
	if n, err := affected(ctx, "updating a token", res); err != nil {
		return err
	} else if n == 0 {
		return resolver.ErrNotFound
	}
	return nil
}

func (t *tx) InsertRule(ctx context.Context, r *resolver.Rule) error {
	res, err := t.exec(ctx, "inserting a rule", qInsertRule, r.Prefix, r.Target, micros(r.Created))
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return storeErr(ctx, "inserting a rule", err)
	}
	r.ID = id
	return nil
}

func (t *tx) DeleteRule(ctx context.Context, id int64) error {
	_, err := t.exec(ctx, "deleting a rule", qDeleteRule, id)
	return err
}

func (t *tx) SetSetting(ctx context.Context, name, value string) error {
	_, err := t.exec(ctx, "storing a setting", qSetSetting, name, value)
	return err
}

// nonNil makes an empty BLOB of a nil slice: database/sql binds nil as NULL,
// and the history's columns are NOT NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Append seals e against the last entry and stores it. Update's BEGIN
// IMMEDIATE holds the database's write lock for the whole transaction, so
// the last entry cannot change under it: no other writer, in this process
// or another, runs until this transaction ends.
func (t *tx) Append(ctx context.Context, e *resolver.Entry) error {
	last, err := t.Head(ctx)
	if err != nil {
		return err
	}
	resolver.Seal(last, e)
	if _, err := t.exec(ctx, "appending to the history", qAppend, e.Seq, micros(e.Time), string(e.Action), e.Subject,
		e.RecordID, e.AuthorityID, e.Actor, nonNil(e.Data), nonNil(e.Prev), e.Hash); err != nil {
		return err
	}
	t.head, t.hasHead = cloneEntry(*e), true
	return nil
}

var _ resolver.Tx = (*tx)(nil)
