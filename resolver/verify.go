package resolver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/urikit/urikit/urn"
)

// verifyPage is how many history entries, or record IDs, Verify reads at a
// time: what it holds in memory, whatever the size of the directory.
const verifyPage = 1000

// VerifyReport says what VerifyAll checked.
type VerifyReport struct {
	Entries int64 // history entries whose number, link and hash were checked
	Records int64 // records whose stored state was compared with the history
	Keys    int64 // keys compared with the names the history gives their record
}

// Verify runs VerifyAll and returns how many history entries it checked;
// progress, when not nil, is called after each page with that number.
func (s *Service) Verify(ctx context.Context, progress func(checked int64)) (int64, error) {
	var p func(VerifyReport)
	if progress != nil {
		p = func(r VerifyReport) { progress(r.Entries) }
	}
	rep, err := s.VerifyAll(ctx, p)
	return rep.Entries, err
}

// VerifyAll checks the directory against its history, in two passes that
// each hold one page of it in memory:
//
//  1. the chain: every entry's number, its link to the hash of the entry
//     before it and its own hash. A *ChainError names the first entry that
//     does not fit: an entry edited, removed or reordered in the database.
//  2. the state: every record as stored against the last history entry
//     about it, whose data is the record as that change left it, and every
//     key against the names and aliases the history gives its record. A
//     *StateError names the first record that does not fit: a record or a
//     key edited, added or removed in the database, which the chain alone
//     never sees since such an edit leaves the history as it was.
//
// Entries appended while VerifyAll runs (on a live directory) are chained
// on before their records are compared, so the second pass relies only on
// entries the first has verified. progress, when not nil, is called after
// each page.
func (s *Service) VerifyAll(ctx context.Context, progress func(VerifyReport)) (VerifyReport, error) {
	var v Verifier
	var rep VerifyReport
	report := func() {
		rep.Entries = v.Count()
		if progress != nil {
			progress(rep)
		}
	}
	if err := s.verifyChain(ctx, &v, -1, report); err != nil {
		rep.Entries = v.Count()
		return rep, err
	}
	// IDs are positive; starting below them also reads any record or key
	// that someone stored under zero or a negative ID.
	var after int64 = -1 << 63
	for {
		page, err := s.store.RecordStates(ctx, after, verifyPage)
		if err != nil {
			return rep, storeError(err)
		}
		if len(page) == 0 {
			return rep, nil
		}
		for _, st := range page {
			if st.Latest.Seq > v.Head().Seq {
				if err := s.verifyChain(ctx, &v, st.Latest.Seq, nil); err != nil {
					rep.Entries = v.Count()
					return rep, err
				}
			}
			if err := s.verifyState(ctx, st); err != nil {
				rep.Entries = v.Count()
				return rep, err
			}
			if st.HasRecord {
				rep.Records++
			}
			rep.Keys += int64(len(st.Keys))
		}
		after = page[len(page)-1].ID
		report()
	}
}

// verifyChain checks the entries after the last one v saw, up to and
// including entry upTo (to the end of the history when upTo < 0).
func (s *Service) verifyChain(ctx context.Context, v *Verifier, upTo int64, report func()) error {
	for upTo < 0 || v.Head().Seq < upTo {
		batch, err := s.store.Log(ctx, v.Head().Seq, verifyPage)
		if err != nil {
			return storeError(err)
		}
		if len(batch) == 0 {
			if upTo >= 0 {
				return &ChainError{Seq: v.Head().Seq + 1, Reason: fmt.Sprintf("missing, though a record's last change is entry %d", upTo)}
			}
			return nil
		}
		for _, e := range batch {
			if err := v.Next(e); err != nil {
				return err
			}
		}
		if report != nil {
			report()
		}
	}
	return nil
}

// StateError tells where the directory's current state departs from its
// history: a record or key as stored is not what the history's entries
// say it is.
type StateError struct {
	RecordID int64
	URN      string // the record's name, as stored or else as the history gives it
	Seq      int64  // the history entry compared with; 0 when there is none
	Reason   string // what differs
}

func (e *StateError) Error() string {
	name := e.URN
	if name == "" {
		name = "no name"
	}
	return fmt.Sprintf("record %d (%s): %s", e.RecordID, name, e.Reason)
}

// IsChainError reports whether err says the history was tampered with.
func IsChainError(err error) bool {
	var c *ChainError
	return errors.As(err, &c)
}

// IsStateError reports whether err says the current state of records or
// keys was changed without going through the history.
func IsStateError(err error) bool {
	var e *StateError
	return errors.As(err, &e)
}

// verifyState compares one record ID's stored state with its history.
func (s *Service) verifyState(ctx context.Context, st RecordState) error {
	fail := func(name string, format string, args ...any) error {
		return &StateError{RecordID: st.ID, URN: name, Seq: st.Latest.Seq, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case !st.HasRecord && st.Latest.Seq == 0:
		spellings := make([]string, len(st.Keys))
		for i, k := range st.Keys {
			spellings[i] = k.Spelling
		}
		return fail("", "the keys table holds %q for this record ID, which neither the records table nor the history knows", spellings)
	case !st.HasRecord:
		return fail(st.Latest.Subject, "history entry %d (%s) is about this record, but the records table has no row for it (deleted in the database?)",
			st.Latest.Seq, st.Latest.Action)
	case st.Latest.Seq == 0:
		return fail(st.Record.URN, "no history entry is about this record: it was added to the records table without going through the history")
	}
	switch st.Latest.Action {
	case ActionNameCreate, ActionNameUpdate, ActionNameWithdraw:
	default:
		return fail(st.Record.URN, "the last history entry about it, %d, is a %s, not a change to a record", st.Latest.Seq, st.Latest.Action)
	}
	// The snapshot is the record's MarshalJSON at the time of the change:
	// when the stored record encodes to the same bytes, they agree (the
	// fast path: encoding costs a third of decoding). Otherwise the
	// snapshot is decoded and compared field by field, which also accepts
	// a snapshot that another build encoded differently, and says what
	// differs.
	snap := st.Record
	if enc, err := st.Record.MarshalJSON(); err != nil || !bytes.Equal(enc, st.Latest.Data) {
		snap = Record{}
		if err := json.Unmarshal(st.Latest.Data, &snap); err != nil {
			return fail(st.Record.URN, "history entry %d holds no record: %v", st.Latest.Seq, err)
		}
		if d := diffRecord(st.Record, snap); d != "" {
			return fail(st.Record.URN, "%s in history entry %d", d, st.Latest.Seq)
		}
	}
	everAlias := func(spelling string) (bool, error) {
		hist, err := s.store.History(ctx, st.ID)
		if err != nil {
			return false, storeError(err)
		}
		for _, e := range hist {
			var r Record
			if json.Unmarshal(e.Data, &r) == nil && slices.Contains(r.Aliases, spelling) {
				return true, nil
			}
		}
		return false, nil
	}
	d, err := diffKeys(st.Keys, snap, everAlias)
	if err != nil {
		return err
	}
	if d != "" {
		return fail(st.Record.URN, "%s (history entry %d)", d, st.Latest.Seq)
	}
	return nil
}

// diffRecord returns the first difference between a record as stored and
// as the history recorded it, or "" when they agree. ID, Key and the
// locations' keys are not part of a snapshot (Record.MarshalJSON).
func diffRecord(got, want Record) string {
	differs := func(field string, g, w any) string {
		return fmt.Sprintf("%s is %s in the records table but %s", field, show(g), show(w))
	}
	switch {
	case got.URN != want.URN:
		return differs("urn", got.URN, want.URN)
	case !slices.Equal(got.Aliases, want.Aliases):
		return differs("aliases", got.Aliases, want.Aliases)
	case len(got.Locations) != len(want.Locations):
		return differs("the number of locations", len(got.Locations), len(want.Locations))
	}
	for i, g := range got.Locations {
		w := want.Locations[i]
		switch {
		case g.URL != w.URL:
			return differs(fmt.Sprintf("locations[%d].url", i), g.URL, w.URL)
		case g.Type != w.Type:
			return differs(fmt.Sprintf("locations[%d].type", i), g.Type, w.Type)
		case g.Label != w.Label:
			return differs(fmt.Sprintf("locations[%d].label", i), g.Label, w.Label)
		}
	}
	switch {
	case !sameJSON(got.Metadata, want.Metadata):
		return differs("metadata", string(got.Metadata), string(want.Metadata))
	case got.Status != want.Status:
		return differs("status", string(got.Status), string(want.Status))
	case got.Redirect != want.Redirect:
		return differs("redirect", got.Redirect, want.Redirect)
	case got.Successor != want.Successor:
		return differs("successor", got.Successor, want.Successor)
	case got.Reason != want.Reason:
		return differs("reason", got.Reason, want.Reason)
	case got.AuthorityID != want.AuthorityID:
		return differs("authority", got.AuthorityID, want.AuthorityID)
	case !got.Created.Equal(want.Created):
		return differs("created", got.Created, want.Created)
	case !got.Updated.Equal(want.Updated):
		return differs("updated", got.Updated, want.Updated)
	}
	return ""
}

func show(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		return fmt.Sprintf("%q", v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// sameJSON compares metadata as stored with metadata as a snapshot holds
// it: the Service stores it compacted, and a snapshot, being encoding/json
// output, also has <, >, &, U+2028 and U+2029 escaped in strings.
func sameJSON(stored, logged []byte) bool {
	norm := func(b []byte) []byte {
		if len(bytes.TrimSpace(b)) == 0 {
			b = []byte("{}")
		}
		var c, e bytes.Buffer
		if json.Compact(&c, b) != nil {
			return b // not JSON: compared as it is, so it differs
		}
		json.HTMLEscape(&e, c.Bytes())
		return e.Bytes()
	}
	return bytes.Equal(norm(stored), norm(logged))
}

// diffKeys returns the first way in which a record's keys do not belong to
// the names the history gives it (snap), or "" when they all do:
//
//   - a name key spells the record's name, an alias key one of its current
//     aliases, and a retired key an alias the record once had (everAlias
//     reads the record's history to tell; only records holding retired
//     keys pay for it);
//   - a key computed by this build's rules (urn.KeyVersion) is the key of
//     its spelling; an older one is left for urikit migrate to compute
//     again (Service.Migrate), as lookups leave it;
//   - the name has its key, and so has each alias: lookups find a record
//     only through them. An alias whose key migration found equal to the
//     name's shares the name's row (Migrate keeps one row), so a row with
//     the alias's key does too.
func diffKeys(keys []Key, snap Record, everAlias func(string) (bool, error)) (string, error) {
	names := 0
	for _, k := range keys {
		if k.Version == urn.KeyVersion {
			u, err := urn.Parse(k.Spelling)
			if err != nil {
				return fmt.Sprintf("key %q spells %q, which is not a URN", k.Key, k.Spelling), nil
			}
			if u.Key() != k.Key {
				return fmt.Sprintf("key %q is not the key of its spelling %q (that is %q)", k.Key, k.Spelling, u.Key()), nil
			}
		}
		switch k.Role {
		case RoleName:
			if k.Spelling != snap.URN {
				return fmt.Sprintf("the keys table names it %q (key %q), but the history names it %q", k.Spelling, k.Key, snap.URN), nil
			}
			names++
		case RoleAlias:
			if !slices.Contains(snap.Aliases, k.Spelling) {
				return fmt.Sprintf("the keys table makes %q (key %q) an alias of it, which the history does not", k.Spelling, k.Key), nil
			}
		case RoleRetired:
			if k.Spelling == snap.URN || slices.Contains(snap.Aliases, k.Spelling) {
				return fmt.Sprintf("the keys table holds %q (key %q) as retired, but the history lists it as the record's name or alias", k.Spelling, k.Key), nil
			}
			was, err := everAlias(k.Spelling)
			if err != nil {
				return "", err
			}
			if !was {
				return fmt.Sprintf("the keys table reserves %q (key %q) to it as a retired alias, but the history never gave it that alias", k.Spelling, k.Key), nil
			}
		default:
			return fmt.Sprintf("key %q has the role %q, which is none of name, alias or retired", k.Key, k.Role), nil
		}
	}
	switch {
	case names == 0:
		return fmt.Sprintf("the keys table holds no key for its name %q: lookups do not find it", snap.URN), nil
	case names > 1:
		return fmt.Sprintf("the keys table holds %d name keys for it", names), nil
	}
	for _, a := range snap.Aliases {
		held := slices.ContainsFunc(keys, func(k Key) bool { return k.Spelling == a && k.Role == RoleAlias })
		if !held {
			if u, err := urn.Parse(a); err == nil {
				key := u.Key()
				held = slices.ContainsFunc(keys, func(k Key) bool { return k.Key == key && k.Role != RoleRetired })
			}
		}
		if !held {
			return fmt.Sprintf("the keys table holds no key for its alias %q: lookups of it do not find the record", a), nil
		}
	}
	return "", nil
}
