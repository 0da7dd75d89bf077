package resolver

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors a Store returns. Stores wrap them (errors.Is finds them) and
// the Service turns them into *Error for its callers.
var (
	// ErrNotFound: no such record, key, authority, token, rule or setting.
	ErrNotFound = errors.New("not found")
	// ErrKeyTaken: a key, prefix-unique value or record name that must be
	// unique is already stored. Stores report the database's own unique
	// violation as this, so that a race between processes ends the same way
	// as a check in one process.
	ErrKeyTaken = errors.New("already taken")
	// ErrUnavailable: the database cannot be reached or does not answer in
	// time. The HTTP layer answers 503.
	ErrUnavailable = errors.New("store unavailable")
	// ErrReserved: the name is an alias a record here once had. It stays
	// reserved to that record and resolves to nothing (KindNotFound), but
	// it is this directory's: it is never handed on to another resolver.
	ErrReserved = errors.New("reserved")
)

// NewerSchemaError is the ErrUnavailable of a store whose database a
// newer urikit has migrated to a schema this build does not know: it
// refuses every call until it is upgraded. Unlike the other causes of a
// 503 (a connection error names hosts, users and databases), its text is
// made of version numbers and what to do, so the Service and the HTTP
// layer show it to every caller: whoever sees the 503 learns what the
// operator must do.
type NewerSchemaError struct {
	Database, Build int // the database's schema version and this build's
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("the database's schema is now version %d, newer than this urikit's %d: upgrade urikit", e.Database, e.Build)
}

// Is makes a NewerSchemaError an ErrUnavailable (errors.Is).
func (e *NewerSchemaError) Is(target error) bool { return target == ErrUnavailable }

// Store is where the directory's data lives. It keeps data and enforces
// uniqueness; it makes no policy decision (that is Service's work). Every
// method is safe for concurrent use, by any number of processes sharing the
// same database.
type Store interface {
	Reader

	// Update runs fn in one read-write transaction and commits when fn
	// returns nil. Writes are serialized with respect to the history: a
	// store holds the lock that makes Tx.Append's Seq gap-free for the whole
	// transaction. fn may be called again when the store retries a
	// transaction that lost a race (serialization failure), so it must have
	// no effect outside tx. When Update returns nil the change is durable.
	Update(ctx context.Context, fn func(Tx) error) error

	// Close releases the store's resources.
	Close() error
}

// RecordName is a record by its ID and canonical name (Record.ID and
// Record.URN), all that a listing of names needs of it.
type RecordName struct {
	ID  int64
	URN string
}

// Reader is the read side, shared by Store (outside a transaction, reading
// the latest committed state) and Tx (reading the transaction's own writes).
type Reader interface {
	// RecordByKey returns the record that holds key (as its name, an
	// alias or a retired alias) and the role key has in it.
	RecordByKey(ctx context.Context, key string) (Record, Role, error)
	// Record returns the record with the given ID.
	Record(ctx context.Context, id int64) (Record, error)
	// Keys returns every key reserved to a record, name first.
	Keys(ctx context.Context, recordID int64) ([]Key, error)
	// RecordsByLocation returns up to limit records with ID > after that
	// list a location whose Key is locKey, the first in ID order: only
	// active ones unless withdrawn is true. Stores read them from the
	// location index in its order (key, record ID), starting past after,
	// and stop at limit, however many records list the location (a page of
	// a popular site's may be listed by thousands, read a page at a time);
	// without withdrawn, a withdrawn record's row is read and passed over,
	// as DuplicateLocations does.
	RecordsByLocation(ctx context.Context, locKey string, after int64, limit int, withdrawn bool) ([]Record, error)
	// Records returns up to limit records with ID > after, in ID order.
	Records(ctx context.Context, after int64, limit int) ([]Record, error)
	// StaleKeys returns up to limit keys whose Version is below version,
	// in key order after the key after.
	StaleKeys(ctx context.Context, version int, after string, limit int) ([]Key, error)
	// Predecessors returns the ID and name of up to limit records with
	// ID > after whose SuccessorKey is one of keys (withdrawn records
	// naming a record by one of its keys as their successor): the first
	// in ID order. Stores find them by an index on (key, ID), reading at
	// most limit rows a key however many records name the same successor,
	// and no more of each than its ID and name: a record is shown with its
	// predecessors on every read, and each key of it (its name and up to
	// MaxAliases aliases) may be named by as many withdrawn records, each
	// of up to a request body's size.
	Predecessors(ctx context.Context, keys []string, after int64, limit int) ([]RecordName, error)
	// StaleSuccessors returns up to limit records with ID > after, in ID
	// order, whose successor key is to be computed (SuccessorStale): one
	// that older rules computed (a SuccessorVersion below version but not
	// 0), or none was (a Successor with a SuccessorVersion of 0: a record
	// withdrawn before the store had the column, or since by a build
	// that did not know it). Stores find them by an index that holds only
	// records with a successor.
	StaleSuccessors(ctx context.Context, version int, after int64, limit int) ([]Record, error)
	// DuplicateLocations returns up to limit location keys listed by more
	// than one record, in key order after the key after. Unless withdrawn
	// is true it counts and returns only active records: a key listed by
	// one active record and any number of withdrawn ones is not a
	// duplicate then (a withdrawn record's locations can no longer be
	// changed, so it is not what someone looking for double registrations
	// can fix). Each Duplicate holds the first MaxByLocation of the
	// records (in ID order) and says (More) when more list the location:
	// stores read at most MaxByLocation+1 rows of the location index a
	// location for them, however many records list it.
	DuplicateLocations(ctx context.Context, after string, limit int, withdrawn bool) ([]Duplicate, error)

	// Authority returns the authority with the given ID.
	Authority(ctx context.Context, id int64) (Authority, error)
	// Authorities returns every authority, in ID order.
	Authorities(ctx context.Context) ([]Authority, error)
	// TokenByHash returns the token whose Hash is hash, revoked or not.
	TokenByHash(ctx context.Context, hash []byte) (Token, error)
	// Tokens returns an authority's tokens, revoked ones too, in ID order.
	Tokens(ctx context.Context, authorityID int64) ([]Token, error)

	// Rules returns every delegation rule, in ID order.
	Rules(ctx context.Context) ([]Rule, error)

	// History returns up to limit entries about one record with Seq >
	// after, in Seq order. A record changed a hundred thousand times has
	// as many entries, each holding the whole record: callers read its
	// history a page at a time, never whole.
	History(ctx context.Context, recordID, after int64, limit int) ([]Entry, error)
	// HistoryBefore returns up to limit entries about one record, newest
	// first: those with Seq below before (every one when before is 0) and
	// Time at or before until (any time when until is zero). With limit 1
	// and a time it is the record's last change as of that time (entries'
	// times never go backwards in Seq order: Seal).
	HistoryBefore(ctx context.Context, recordID, before int64, until time.Time, limit int) ([]Entry, error)
	// Log returns up to limit entries with Seq > after, in Seq order.
	Log(ctx context.Context, after int64, limit int) ([]Entry, error)
	// Head returns the last entry of the history (the zero Entry when the
	// history is empty). Its Seq is the directory's version: it grows with
	// every committed change.
	Head(ctx context.Context) (Entry, error)

	// Setting returns a named value the service keeps (ErrNotFound when
	// unset).
	Setting(ctx context.Context, name string) (string, error)

	// RecordStates returns, in ID order, what is stored under the first
	// limit record IDs above after: every ID that the records table, the
	// history (an entry's RecordID) or the keys table (a key's RecordID)
	// holds, with the record, the last history entry about it and its
	// keys (in key order). One page is read in one snapshot of the
	// database, and one statement (or a fixed few), never one per record:
	// Verify pages through tens of millions of records with it.
	RecordStates(ctx context.Context, after int64, limit int) ([]RecordState, error)
	// LocationCount returns the number of rows of the location index (one
	// per record and location key). A store may count them in parts, each
	// read in a snapshot of its own, so that no call runs long: Verify
	// trusts the count only when the history's head did not move while it
	// was taken.
	LocationCount(ctx context.Context) (int64, error)
	// LocationRows returns up to limit rows of the location index after
	// after (from the first when after is nil), in order of Key (byte
	// order) and then RecordID, each with
	// Listed set when the record with its RecordID, read in the same
	// snapshot, lists a location whose Key is the row's. Verify reads the
	// whole index with it only when LocationCount says that it holds rows
	// RecordStates did not account for.
	LocationRows(ctx context.Context, after *LocationRow, limit int) ([]LocationRow, error)

	// AccessState returns every authority, every token (whatever
	// authority ID it has, revoked ones too) and every delegation rule,
	// each in ID order, with the Seq of the history's last entry, all read
	// in one snapshot: Verify replays the history's entries about them up
	// to that entry and compares. These tables are small.
	AccessState(ctx context.Context) (AccessState, error)
}

// AccessState is who may change what, as a store holds it (AccessState).
type AccessState struct {
	Head        int64 // Seq of the history's last entry in the same snapshot
	Authorities []Authority
	Tokens      []Token
	Rules       []Rule
	// AdminTokenHash is the setting AdminTokenSetting, "" when there is
	// none (no admin token generated: URIKIT_ADMIN_TOKEN, or not started).
	AdminTokenHash string
	// LocationKeyVersion is the setting LocationKeySetting, "" when there
	// is none (the keys are of version 1).
	LocationKeyVersion string
}

// LocationRow is one row of a store's location index, the table L2N, L2L
// and Duplicates read (LocationRows).
type LocationRow struct {
	Key      string // a location's key (Location.Key)
	RecordID int64
	Listed   bool // the record with this ID lists a location with this key
}

// RecordState is what a store holds under one record ID (RecordStates).
// Normally all three parts are there; a part that is missing, or that
// disagrees with the others, was changed without going through the
// Service (Verify reports it).
type RecordState struct {
	ID        int64
	HasRecord bool   // whether the records table holds a record with this ID
	Record    Record // that record, when HasRecord
	Latest    Entry  // the last history entry about the record (Seq 0: none)
	Keys      []Key  // the keys held for this ID, in key order
	// Locations are the keys under which the location index holds this
	// ID, among the keys of the record's locations (Location.Key): each
	// once, in byte order. A store reads its index by key, which is how
	// the index is ordered, and need not look for rows of the ID under
	// other keys; Verify finds those by counting (LocationCount).
	Locations []string
}

// Tx is one read-write transaction. Its reads see its own writes.
type Tx interface {
	Reader

	// InsertRecord stores a new record and sets rec.ID. It does not store
	// keys: call PutKey for the name and each alias.
	InsertRecord(ctx context.Context, rec *Record) error
	// UpdateRecord replaces the stored record with the same ID, including
	// its location index.
	UpdateRecord(ctx context.Context, rec Record) error
	// PutKey stores k. When k.Key is already stored for the same record it
	// updates its Role, Spelling and Version; when it is stored for another
	// record it returns ErrKeyTaken and changes nothing. The unique index on
	// Key is what makes "exactly one record" true between processes.
	PutKey(ctx context.Context, k Key) error
	// DeleteKey removes a key, used only when migration re-keys a name.
	DeleteKey(ctx context.Context, key string) error

	// InsertAuthority stores a new authority and sets a.ID.
	InsertAuthority(ctx context.Context, a *Authority) error
	// UpdateAuthority replaces the stored authority with the same ID.
	UpdateAuthority(ctx context.Context, a Authority) error
	// InsertToken stores a new token and sets t.ID.
	InsertToken(ctx context.Context, t *Token) error
	// UpdateToken replaces the stored token with the same ID (revocation).
	UpdateToken(ctx context.Context, t Token) error

	// InsertRule stores a new rule and sets r.ID; ErrKeyTaken when a rule
	// with the same prefix exists.
	InsertRule(ctx context.Context, r *Rule) error
	// DeleteRule removes a rule.
	DeleteRule(ctx context.Context, id int64) error

	// SetSetting stores a named value.
	SetSetting(ctx context.Context, name, value string) error

	// Append adds e to the history: the store seals it (Seal) against the
	// last entry, stores it with Data kept byte for byte, and sets e's Seq,
	// Prev and Hash.
	Append(ctx context.Context, e *Entry) error
}

// Shared is implemented by a Store that several processes use at once
// (resolver/postgres). A Service keeps a cache of lookups, which must not
// answer with a record that another process has changed since: a write
// acknowledged through one process is read through any other at once.
// The store passes on every change any process commits (Watch), and says
// before each use of the cache whether it has passed on every change
// committed so far (CacheCurrent). New wires both up.
type Shared interface {
	// Watch registers invalidate, which the store calls, until it is
	// closed, with the lookup keys (Key.Key) of every committed change,
	// and with no keys when everything may have changed.
	Watch(invalidate func(keys ...string))
	// CacheCurrent reports whether every change committed before the
	// call has been passed to the watchers, so that the cache may answer.
	CacheCurrent(ctx context.Context) (bool, error)
}

// BulkTx is implemented by a Tx that writes many new records in a few
// round trips (resolver/postgres, with COPY). PutMany uses it for the
// records of a batch that are plainly new — none of their keys stored or
// used earlier in the batch — and writes the others one by one.
type BulkTx interface {
	Tx
	// TakenKeys returns the keys among keys that are stored, for any
	// record and in any role.
	TakenKeys(ctx context.Context, keys []string) (map[string]bool, error)
	// InsertRecords stores new records, sets their IDs, and stores
	// keys[i] (whose RecordID it sets) for recs[i]. A key already stored
	// is ErrKeyTaken, and then nothing of the call stays.
	InsertRecords(ctx context.Context, recs []*Record, keys [][]Key) error
	// AppendAll appends entries in order, as Append does each.
	AppendAll(ctx context.Context, entries []*Entry) error
}

// TurnTaker is implemented by a Store on which a bulk transaction may
// store a batch's new records before it takes its turn among the writers
// (resolver/postgres). Update's transaction takes its turn first: it
// waits until no other writer holds the turn, which is what keeps the
// history's order and the Service's check-then-write rules between
// processes. PutPrepared on such a store stores the plainly new records
// of its batch first, then takes the turn, checks again what it read
// before, and appends their history; so an import writes two batches at
// once, one storing its rows while the one before appends its history
// and commits, and the database works on both.
type TurnTaker interface {
	// UpdateBeforeTurn runs fn in a transaction, as Update does, except
	// that the transaction has not taken its turn when fn starts. Until
	// fn calls TakeTurn it may read, and store rows with InsertRecords;
	// what it reads may have changed by the turn. Any other write, and
	// Head (which the turn fixes), take the turn first.
	UpdateBeforeTurn(ctx context.Context, fn func(EarlyTx) error) error
}

// EarlyTx is the transaction of UpdateBeforeTurn.
type EarlyTx interface {
	BulkTx
	// TakeTurn waits for the transaction's turn among the writers and
	// takes it. From then on the transaction is as Update's: its reads
	// see every change committed before it, and no other writer commits
	// until it ends. Authorities reads the authorities again.
	TakeTurn(ctx context.Context) error
}
