package resolver

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// Action names the kind of change an Entry records.
type Action string

const (
	ActionNameCreate        Action = "name.create"
	ActionNameUpdate        Action = "name.update"
	ActionNameWithdraw      Action = "name.withdraw"
	ActionAuthorityCreate   Action = "authority.create"
	ActionAuthorityTransfer Action = "authority.transfer"
	ActionTokenCreate       Action = "token.create"
	ActionTokenRevoke       Action = "token.revoke"
	ActionRuleAdd           Action = "rule.add"
	ActionRuleRemove        Action = "rule.remove"
	ActionKeysMigrate       Action = "keys.migrate"
	// ActionLocationsMigrate records that Migrate computed the location
	// index's keys again by newer rules (LocationKeyVersion).
	ActionLocationsMigrate Action = "locations.migrate"
	// ActionLocationsRekey records that such a migration began (it
	// re-keyed no record yet), or one page of it: the records whose
	// location keys it computed again, in one transaction, before the
	// locations.migrate entry that ends it. With it every committed write
	// appends an entry, so that the history's head moves with every change
	// to the location index (Verify relies on it).
	ActionLocationsRekey Action = "locations.rekey"
	// ActionAdminToken records the fingerprint of a generated admin
	// token's hash (the setting AdminTokenSetting), so that Verify can
	// tell when the setting no longer holds the token that was issued.
	ActionAdminToken Action = "admin.token"
	// ActionAdminEnvironment records that the admin token is set in the
	// environment (URIKIT_ADMIN_TOKEN) and no hash of one is stored, so
	// that Verify can tell a hash stored later behind the service's back,
	// which would act as admin once the variable is unset.
	ActionAdminEnvironment Action = "admin.environment"
)

// Entry is one change in the directory's history: a single append-only log
// for the whole directory, numbered by Seq without gaps from 1. Name entries
// carry the whole record as it stood after the change (Data), so that a
// record can be read back as of any time.
type Entry struct {
	Seq         int64
	Time        time.Time // UTC, whole microseconds (what every store keeps)
	Action      Action
	Subject     string // the record's name, "authority:ID" or "rule:ID"
	RecordID    int64  // 0 when the entry is not about a record
	AuthorityID int64  // 0 when no authority is concerned
	Actor       string // "admin", "token:ID" or "system"
	Data        json.RawMessage
	Prev        []byte // Hash of entry Seq-1; empty for the first entry
	Hash        []byte // ChainHash(Prev, this entry)
}

// ChangesRecord reports whether entries of this action record a change to
// a record: their Data is the record as it stood after it.
func (a Action) ChangesRecord() bool {
	switch a {
	case ActionNameCreate, ActionNameUpdate, ActionNameWithdraw:
		return true
	}
	return false
}

// Public reports whether anyone may read the Data of entries of this
// action: a change to a record (the record as it stood, which the names
// API shows anyway) or a migration's counts. The entries about
// authorities, tokens, delegation rules and the admin token hold what only
// the admin may read through the API; the public log shows them without
// Data, so that a reader can still follow the chain's links across them
// (but cannot recompute their hashes).
func (a Action) Public() bool {
	switch a {
	case ActionKeysMigrate, ActionLocationsMigrate, ActionLocationsRekey:
		return true
	}
	return a.ChangesRecord()
}

// ChainHash is the hash that links e to the entry before it: SHA-256 over a
// fixed, length-prefixed encoding of every field of e but Hash, ending with
// prev. Any change to a stored entry, or to the order of entries, changes
// the hash of that entry and so breaks the link to the next one. Stores must
// keep Data byte for byte (a JSON column type that re-encodes would break
// the chain).
func ChainHash(prev []byte, e Entry) []byte {
	h := sha256.New()
	var n [8]byte
	num := func(v int64) {
		binary.BigEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	str := func(s []byte) {
		num(int64(len(s)))
		h.Write(s)
	}
	h.Write([]byte("urikit-history-v1"))
	num(e.Seq)
	num(e.Time.UnixMicro())
	str([]byte(e.Action))
	str([]byte(e.Subject))
	num(e.RecordID)
	num(e.AuthorityID)
	str([]byte(e.Actor))
	str(e.Data)
	str(prev)
	return h.Sum(nil)
}

// Seal fills in e.Seq, e.Prev and e.Hash given the entry before it (the
// zero Entry when e is the first). Stores call it inside the transaction
// that appends e, holding whatever lock serializes appends.
//
// An entry's Time is never earlier than last.Time: as-of lookups pick
// entries by time, so times must not go backwards in Seq order, whatever
// the clocks of the processes sharing a database say. The Service already
// stamps each change with max(now, head's time) (so that a record's
// Updated is its entry's Time); Seal enforces the same for any other
// caller, when the store passes last with its Time.
func Seal(last Entry, e *Entry) {
	e.Seq = last.Seq + 1
	e.Time = e.Time.UTC().Truncate(time.Microsecond)
	if e.Time.Before(last.Time) {
		e.Time = last.Time.UTC()
	}
	e.Prev = last.Hash
	e.Hash = ChainHash(last.Hash, *e)
}

// ChainError tells where a history stops fitting together: an entry whose
// number, link or hash does not fit (one edited, removed or reordered), or
// whose time is earlier than the entry's before it.
type ChainError struct {
	Seq    int64
	Reason string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("history entry %d: %s", e.Seq, e.Reason)
}

// Verifier checks a history one entry at a time, in order.
type Verifier struct {
	last  Entry
	count int64
}

// Next checks that e follows the entries seen so far. It returns a
// *ChainError naming e when e's number, link or hash does not fit, or when
// its time is earlier than the time of the entry before it.
//
// The time is checked last: an entry edited without its hash computed
// again is named as changed. One whose hashes were computed again, or
// that a build before Seal kept the order wrote, still links; it breaks
// as-of lookups, which find a record's entry at a time by a binary search
// over Seq (Service.asOf).
func (v *Verifier) Next(e Entry) error {
	switch {
	case e.Seq != v.last.Seq+1:
		return &ChainError{Seq: e.Seq, Reason: fmt.Sprintf("expected entry %d here", v.last.Seq+1)}
	case string(e.Prev) != string(v.last.Hash):
		return &ChainError{Seq: e.Seq, Reason: "does not link to the hash of the entry before it"}
	case string(e.Hash) != string(ChainHash(e.Prev, e)):
		return &ChainError{Seq: e.Seq, Reason: "its hash does not match its content (the entry was changed)"}
	case v.last.Seq > 0 && e.Time.Before(v.last.Time):
		at := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
		return &ChainError{Seq: e.Seq, Reason: fmt.Sprintf("its time %s is earlier than the time of entry %d, %s: "+
			"times must not go backwards in the history's order, which as-of lookups (?as-of=, Accept-Datetime) rely on: "+
			"they find a record's entry by a binary search over the entries' numbers, and for a time between the two "+
			"may answer with the wrong version of a record, or with none", at(e.Time), v.last.Seq, at(v.last.Time))}
	}
	v.last = e
	v.count++
	return nil
}

// Count is the number of entries checked so far.
func (v *Verifier) Count() int64 { return v.count }

// Head is the last entry checked.
func (v *Verifier) Head() Entry { return v.last }
