package resolver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Loader is implemented by a Store that can be loaded with another store's
// rows as they are (Copy, urikit copy): authorities, tokens and rules with
// their IDs, records with their IDs and every key, and history entries
// with their Seq, time, Prev and Hash, none of it computed again. A Tx
// cannot do that: it hands out IDs itself and seals every entry it
// appends. Loading is meant for an empty store (Copy checks that), and
// makes no policy decision: what is loaded is what the source held.
type Loader interface {
	Store
	// Load runs fn in one read-write transaction, as Update does, and
	// commits when fn returns nil.
	Load(ctx context.Context, fn func(LoadTx) error) error
}

// LoadTx is one Load transaction.
type LoadTx interface {
	Reader
	// LoadAuthority stores a with its ID.
	LoadAuthority(ctx context.Context, a Authority) error
	// LoadToken stores t with its ID, hash, label and revocation.
	LoadToken(ctx context.Context, t Token) error
	// LoadRule stores r with its ID.
	LoadRule(ctx context.Context, r Rule) error
	// SetSetting stores a named value, as Tx.SetSetting does.
	SetSetting(ctx context.Context, name, value string) error
	// LoadRecords stores each record with its ID and its location index
	// (a row for each distinct Location.Key), and keys[i], whose RecordID
	// is recs[i].ID, with their roles, spellings and versions as given:
	// names, aliases and retired aliases alike.
	LoadRecords(ctx context.Context, recs []Record, keys [][]Key) error
	// LoadEntries appends entries to the history as they are, Seq, Prev
	// and Hash included (the caller checks that they chain on from the
	// history's last entry), and makes the last one the history's head.
	LoadEntries(ctx context.Context, entries []Entry) error
	// ReserveIDs makes the IDs the store hands out next greater than the
	// given ones, whatever rows it holds (ID 0: no floor for that table).
	ReserveIDs(ctx context.Context, ids NextIDs) error
}

// NextIDs are the greatest IDs a store has handed out for each kind of row
// (Loader.ReserveIDs). They can be greater than any row it holds: a removed
// rule's ID is never handed out again (the history names rules by ID, as
// "rule:ID", and an entry about a removed rule must not come to name a new
// one).
type NextIDs struct {
	Record, Authority, Token, Rule int64
}

// copiedSettings are the settings Copy carries over: every one the Service
// keeps. None of them is derived from the rows, so the target must have
// them as the source does (Verify holds the admin token's hash and the
// location keys' version to the history).
var copiedSettings = []string{AdminTokenSetting, adminEnvironmentSetting, adminRetiredSetting, LocationKeySetting, LocationKeyMigrationSetting}

// CopyProgress is what Copy has done so far.
type CopyProgress struct {
	Records, Entries int64 // copied so far
	Head             int64 // the Seq of the source's last entry
}

// CopyOptions tune Copy.
type CopyOptions struct {
	// Page is how many records, or history entries, are read and
	// written at a time, each page in a transaction of its own (default
	// 1000): what Copy holds in memory, whatever the size of the source.
	Page int
	// Progress, when set, is called after each page.
	Progress func(CopyProgress)
}

// ErrNotEmpty: the target of a copy holds data already.
var ErrNotEmpty = errors.New("the target store is not empty")

// ErrSourceChanged: the source of a copy was written while it was read.
var ErrSourceChanged = errors.New("the source store was written during the copy")

// Copy copies everything from into to, which must be empty: authorities,
// tokens, rules and the settings, the records with all their keys, and
// the history entry for entry, so that to's head (Seq and Hash) is from's
// and Verify passes on to as it does on from. It reads from a page at a
// time; each page is written in a transaction of its own, so a copy that
// fails leaves to partly loaded (start again on an empty store).
//
// from must not be written meanwhile: the pages are read in snapshots of
// their own, not one, and a write between two would give to a state no
// source ever had. Copy compares from's head at the end with the one it
// began with, and returns ErrSourceChanged when it moved.
func Copy(ctx context.Context, from Store, to Loader, opts CopyOptions) (CopyProgress, error) {
	if opts.Page <= 0 {
		opts.Page = 1000
	}
	var prog CopyProgress
	if err := checkEmpty(ctx, to); err != nil {
		return prog, err
	}
	head, err := from.Head(ctx)
	if err != nil {
		return prog, fmt.Errorf("reading the source's head: %w", err)
	}
	prog.Head = head.Seq
	acc, err := from.AccessState(ctx)
	if err != nil {
		return prog, fmt.Errorf("reading the source's authorities, tokens and rules: %w", err)
	}
	if acc.Head != head.Seq {
		return prog, ErrSourceChanged
	}
	var next NextIDs
	if err := to.Load(ctx, func(tx LoadTx) error { return loadAccess(ctx, from, tx, acc, &next) }); err != nil {
		return prog, fmt.Errorf("copying authorities, tokens, rules and settings: %w", err)
	}
	if err := copyRecords(ctx, from, to, opts, &prog, &next); err != nil {
		return prog, err
	}
	if err := copyHistory(ctx, from, to, opts, &prog, head, &next); err != nil {
		return prog, err
	}
	if err := to.Load(ctx, func(tx LoadTx) error { return tx.ReserveIDs(ctx, next) }); err != nil {
		return prog, fmt.Errorf("setting the target's next IDs: %w", err)
	}
	end, err := from.Head(ctx)
	if err != nil {
		return prog, fmt.Errorf("reading the source's head: %w", err)
	}
	if end.Seq != head.Seq || !bytes.Equal(end.Hash, head.Hash) {
		return prog, fmt.Errorf("%w (its head moved from entry %d to %d)", ErrSourceChanged, head.Seq, end.Seq)
	}
	return prog, nil
}

// checkEmpty refuses a target that holds any history, authority, record,
// rule or setting the copy would write.
func checkEmpty(ctx context.Context, to Store) error {
	h, err := to.Head(ctx)
	if err != nil {
		return fmt.Errorf("reading the target: %w", err)
	}
	acc, err := to.AccessState(ctx)
	if err != nil {
		return fmt.Errorf("reading the target: %w", err)
	}
	recs, err := to.Records(ctx, 0, 1)
	if err != nil {
		return fmt.Errorf("reading the target: %w", err)
	}
	what := ""
	switch {
	case h.Seq != 0:
		what = fmt.Sprintf("its history has %d entries", h.Seq)
	case len(recs) > 0:
		what = "it holds records"
	case len(acc.Authorities) > 0 || len(acc.Tokens) > 0:
		what = "it holds naming authorities"
	case len(acc.Rules) > 0:
		what = "it holds delegation rules"
	case acc.AdminTokenHash != "":
		what = "it holds an admin token"
	}
	if what != "" {
		return fmt.Errorf("%w: %s", ErrNotEmpty, what)
	}
	return nil
}

func loadAccess(ctx context.Context, from Store, tx LoadTx, acc AccessState, next *NextIDs) error {
	for _, a := range acc.Authorities {
		if err := tx.LoadAuthority(ctx, a); err != nil {
			return fmt.Errorf("authority %d: %w", a.ID, err)
		}
		next.Authority = max(next.Authority, a.ID)
	}
	for _, t := range acc.Tokens {
		if err := tx.LoadToken(ctx, t); err != nil {
			return fmt.Errorf("token %d: %w", t.ID, err)
		}
		next.Token = max(next.Token, t.ID)
	}
	for _, r := range acc.Rules {
		if err := tx.LoadRule(ctx, r); err != nil {
			return fmt.Errorf("rule %d: %w", r.ID, err)
		}
		next.Rule = max(next.Rule, r.ID)
	}
	for _, name := range copiedSettings {
		v, err := from.Setting(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the setting %s: %w", name, err)
		}
		if err := tx.SetSetting(ctx, name, v); err != nil {
			return fmt.Errorf("setting %s: %w", name, err)
		}
	}
	return nil
}

// copyRecords copies the records with their keys, a page of RecordStates
// at a time (one statement a page on either store). An ID that holds no
// record (history or keys only, which Verify reports on the source) is
// passed over.
func copyRecords(ctx context.Context, from Store, to Loader, opts CopyOptions, prog *CopyProgress, next *NextIDs) error {
	var after int64
	for {
		states, err := from.RecordStates(ctx, after, opts.Page)
		if err != nil {
			return fmt.Errorf("reading the source's records after ID %d: %w", after, err)
		}
		if len(states) == 0 {
			return nil
		}
		recs := make([]Record, 0, len(states))
		keys := make([][]Key, 0, len(states))
		for _, st := range states {
			if !st.HasRecord {
				continue
			}
			recs = append(recs, st.Record)
			keys = append(keys, st.Keys)
			next.Record = max(next.Record, st.ID)
		}
		if len(recs) > 0 {
			if err := to.Load(ctx, func(tx LoadTx) error { return tx.LoadRecords(ctx, recs, keys) }); err != nil {
				return fmt.Errorf("copying records %d to %d: %w", recs[0].ID, recs[len(recs)-1].ID, err)
			}
		}
		prog.Records += int64(len(recs))
		after = states[len(states)-1].ID
		if opts.Progress != nil {
			opts.Progress(*prog)
		}
	}
}

// copyHistory copies the history up to head, entry for entry, checking
// that each follows the one before (the target's history then chains as
// the source's does, to the same head).
func copyHistory(ctx context.Context, from Store, to Loader, opts CopyOptions, prog *CopyProgress, head Entry, next *NextIDs) error {
	var last Entry
	for last.Seq < head.Seq {
		es, err := from.Log(ctx, last.Seq, min(opts.Page, int(head.Seq-last.Seq)))
		if err != nil {
			return fmt.Errorf("reading the source's history after entry %d: %w", last.Seq, err)
		}
		if len(es) == 0 {
			return fmt.Errorf("%w: its history ends at entry %d, before its head %d", ErrSourceChanged, last.Seq, head.Seq)
		}
		for _, e := range es {
			if e.Seq != last.Seq+1 || !bytes.Equal(e.Prev, last.Hash) {
				return fmt.Errorf("the source's history entry %d does not follow entry %d (run urikit verify on the source)", e.Seq, last.Seq)
			}
			last = e
			next.Rule = max(next.Rule, ruleID(e.Subject))
		}
		if err := to.Load(ctx, func(tx LoadTx) error { return tx.LoadEntries(ctx, es) }); err != nil {
			return fmt.Errorf("copying history entries %d to %d: %w", es[0].Seq, last.Seq, err)
		}
		prog.Entries += int64(len(es))
		if opts.Progress != nil {
			opts.Progress(*prog)
		}
	}
	if !bytes.Equal(last.Hash, head.Hash) {
		return fmt.Errorf("%w: its entry %d is not the head it began with", ErrSourceChanged, head.Seq)
	}
	return nil
}

// ruleID is the ID of the rule an entry's subject names ("rule:ID"), 0
// for any other subject.
func ruleID(subject string) int64 {
	s, ok := strings.CutPrefix(subject, "rule:")
	if !ok {
		return 0
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return id
}
