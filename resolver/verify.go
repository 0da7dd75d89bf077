package resolver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/urikit/urikit/uri"
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
	// Locations counts the rows of the location index found to be the
	// keys of their records' locations.
	Locations int64
	// Authorities, Tokens and Rules count those compared with the
	// history's entries about them.
	Authorities, Tokens, Rules int64
	// UnpinnedTokens counts the tokens created before the history
	// recorded a fingerprint of each token's hash: their hash could not be
	// checked (everything else about them was).
	UnpinnedTokens int64
	// AdminToken tells that the generated admin token's hash was compared
	// with the fingerprint its history entry recorded, or that the history
	// recorded the token as the environment's and no hash is stored (a
	// hash stored after that entry fails Verify). UnpinnedAdminToken
	// tells that a hash is stored but no entry recorded it, so it could not
	// be checked: an older build generated it, or it was written behind the
	// service's back, and nothing in the store tells which.
	AdminToken, UnpinnedAdminToken bool
	// LocationKeyVersion is the LocationKeyVersion of the location index's
	// keys, checked against the history's last locations.migrate entry.
	// When it is not this build's, StaleLocationKeys is set and each key is
	// checked against its index row but not computed again from its URL
	// (this build's rules would give some URLs other keys): Migrate
	// computes older keys again; newer ones are a newer build's.
	LocationKeyVersion int
	StaleLocationKeys  bool
	// LocationMigration is the Seq of a history entry of a migration of
	// the location keys (Migrate, possibly another build's) that was under
	// way, or was interrupted, while VerifyAll read the records: the entry
	// that began it when its mark is set, else the first entry of one
	// after those VerifyAll began with (0: none). A record whose keys are
	// not of this build's rules then has them checked against its rows
	// only, as with StaleLocationKeys: the migration may have keyed it by
	// its own.
	LocationMigration int64
	// OldMetadata counts the records whose metadata a write refuses
	// today: stored before a rule of checkMetadata (MaxMetadataDepth, a
	// member name given twice, or the size limit lowered since). They are
	// not at fault here: they resolve and export as stored, but an import
	// of the export refuses them, and the pages show such metadata compact
	// past a bound. OldMetadataExample names the first found, and why.
	OldMetadata        int64
	OldMetadataExample string
	// OldRules counts the delegation rules whose target a write refuses
	// today (CheckRuleTarget): stored before that check. A name under
	// such a rule is answered 502 delegation-failed, never redirected
	// there. OldRuleExample names the first found, and why.
	OldRules       int64
	OldRuleExample string
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

// VerifyAll checks the directory against its history, in passes that
// each hold one page of it in memory (and the authorities, tokens and
// rules, which are few):
//
//  1. the chain: every entry's number, its link to the hash of the entry
//     before it and its own hash, and that its time is not earlier than
//     that entry's (Seal keeps that order, which as-of lookups rely on). A
//     *ChainError names the first entry that does not fit: an entry
//     edited, removed or reordered in the database, or one whose time goes
//     back (an older build's history, or hashes computed again by hand).
//  2. who may do what: the authorities, tokens and delegation rules as
//     stored against what the history's entries about them make when
//     replayed (every such entry holds the item as the change left it,
//     a token's hash as a fingerprint in the entries written since the
//     history began to record it), and the generated admin token's hash
//     against its admin.token entry. An *AccessError names the first that
//     does not fit: a token added, revived or given another hash, an
//     authority's prefixes widened or narrowed, a rule added, removed or
//     pointed elsewhere, the admin token's hash replaced or removed.
//  3. the state: every record as stored against the last history entry
//     about it, whose data is the record as that change left it; every
//     key against the names and aliases the history gives its record, and
//     every alias it ever had still reserved to it; and the location index (L2N, L2L), which must hold exactly the keys of
//     each record's locations, each of them the scheme-based normal form
//     of its URL (RFC 3986 §6.2.3). A *StateError names the first record
//     that does not fit: a record, key or index row edited, added or
//     removed in the database, which the chain alone never sees since
//     such an edit leaves the history as it was.
//
// Pass 3 reads the index's rows of each record by key; rows under other
// keys (a URL added to the index for a record, a row of no record) show
// as a count of rows larger than the ones found, and then the index is
// read through, in key order, to name the first of them. The count is
// only trusted when the history's head did not move during the pass, so
// that the pages and the count are of the same directory: every write
// appends an entry, a location-key migration one a page (locations.rekey).
//
// Entries appended while VerifyAll runs (on a live directory) are chained
// on before their records are compared, so the later passes rely only on
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
	fail := func(err error) (VerifyReport, error) {
		rep.Entries = v.Count()
		return rep, err
	}
	// Read before the chain, so that the chain's pass replays the history
	// up to the entry the snapshot comes with.
	access, err := s.store.AccessState(ctx)
	if err != nil {
		return rep, storeError(err)
	}
	replay := newAccessReplay(access.Head)
	// The records whose history ever gave them an alias, noted as the
	// chain is read: only theirs can have dropped one (verifyState).
	aliased := map[int64]bool{}
	if err := s.verifyChain(ctx, &v, replay, aliased, -1, report); err != nil {
		return fail(err)
	}
	if v.Head().Seq < access.Head {
		return fail(&ChainError{Seq: v.Head().Seq + 1, Reason: fmt.Sprintf("missing, though the history's head is entry %d", access.Head)})
	}
	counts, err := replay.compare(access)
	rep.Authorities, rep.Tokens, rep.Rules, rep.UnpinnedTokens = counts.authorities, counts.tokens, counts.rules, counts.unpinned
	rep.OldRules, rep.OldRuleExample = counts.oldRules, counts.oldRuleExample
	rep.AdminToken, rep.UnpinnedAdminToken = counts.admin, counts.unpinnedAdmin
	rep.LocationKeyVersion = counts.locationVersion
	if err != nil {
		return fail(err)
	}
	locKey := s.loc.key
	if rep.StaleLocationKeys = rep.LocationKeyVersion != s.loc.version; rep.StaleLocationKeys {
		locKey = nil
	}
	// migrating looks for a migration of the location keys under way (its
	// mark, which must be what the history's entry that began it says), or
	// one that ended since the keys' version was read; it sets
	// rep.LocationMigration.
	migrating := func() error {
		if rep.LocationMigration != 0 {
			return nil
		}
		seq, err := s.locationMigration(ctx, rep.LocationKeyVersion, access.Head, replay.locationsSeq)
		if err != nil {
			return err
		}
		if seq > v.Head().Seq {
			if err := s.verifyChain(ctx, &v, replay, aliased, seq, nil); err != nil {
				return err
			}
		}
		rep.LocationMigration = seq
		return nil
	}
	if err := migrating(); err != nil {
		return fail(err)
	}

	start, err := s.store.Head(ctx)
	if err != nil {
		return rep, storeError(err)
	}
	// Before the records: a key edited in says more about what was done
	// than what the record it names then lacks.
	if err := s.verifyStrayKeys(ctx); err != nil {
		return fail(err)
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
			break
		}
		for _, st := range page {
			if st.Latest.Seq > v.Head().Seq {
				if err := s.verifyChain(ctx, &v, replay, aliased, st.Latest.Seq, nil); err != nil {
					return fail(err)
				}
			}
			if err := s.verifyState(ctx, st, aliased[st.ID], locKey); err != nil {
				// A migration may have keyed this record again by
				// other rules than this build's: then its keys are
				// checked against its rows only.
				if locKey == nil {
					return fail(err)
				}
				if merr := migrating(); merr != nil {
					return fail(merr)
				}
				if rep.LocationMigration == 0 || s.verifyState(ctx, st, aliased[st.ID], nil) != nil {
					return fail(err)
				}
			}
			if st.HasRecord {
				rep.Records++
				if _, err := checkMetadata(st.Record.Metadata, s.opts.MaxMetadataBytes); err != nil {
					if rep.OldMetadata++; rep.OldMetadataExample == "" {
						rep.OldMetadataExample = st.Record.URN + ": " + err.Error()
					}
				}
			}
			rep.Keys += int64(len(st.Keys))
			rep.Locations += int64(len(st.Locations))
		}
		after = page[len(page)-1].ID
		report()
	}
	rows, err := s.store.LocationCount(ctx)
	if err != nil {
		return rep, storeError(err)
	}
	end, err := s.store.Head(ctx)
	if err != nil {
		return rep, storeError(err)
	}
	if end.Seq == start.Seq && rows == rep.Locations {
		return rep, nil
	}
	if err := s.verifyLocationRows(ctx, report); err != nil {
		return fail(err)
	}
	return rep, nil
}

// StrayKeyFinder is implemented by a store whose RecordStates may leave out
// keys that it cannot find by record ID without reading the whole keys
// table. SQLite finds a record's own name key by records.key, and so does
// not find a key of that role that is not its record's own: one edited in
// with SQL, which resolves to the record all the same.
type StrayKeyFinder interface {
	// StrayKeys returns up to limit of the keys RecordStates leaves out,
	// in key order: one pass over the keys table.
	StrayKeys(ctx context.Context, limit int) ([]Key, error)
}

// verifyStrayKeys fails when the store holds a key that RecordStates
// did not give (StrayKeyFinder).
func (s *Service) verifyStrayKeys(ctx context.Context) error {
	f, ok := s.store.(StrayKeyFinder)
	if !ok {
		return nil
	}
	ks, err := f.StrayKeys(ctx, 1)
	if err != nil || len(ks) == 0 {
		return storeError(err)
	}
	k := ks[0]
	switch rec, err := s.store.Record(ctx, k.RecordID); {
	case err == nil:
		return &StateError{RecordID: k.RecordID, URN: rec.URN, Reason: fmt.Sprintf("the keys table holds %q as the key of its name, "+
			"but the records table gives its name the key %q: the name %s resolves to the record, though the record does not say so",
			k.Key, rec.Key, k.Spelling)}
	case errors.Is(err, ErrNotFound):
		return &StateError{RecordID: k.RecordID, Reason: fmt.Sprintf("the keys table holds %q as the name of this record ID, which no record has", k.Key)}
	default:
		return storeError(err)
	}
}

// locationMigration returns the Seq of the entry that began the migration
// of the location keys under way, after checking it against the mark
// LocationKeyMigrationSetting: a mark that no entry of the history backs,
// which would stop Verify from computing keys again, is an *AccessError.
// The entry must have begun a migration to the mark's version, after the
// last locations.migrate entry (at ended), and from the version VerifyAll
// read (stored) unless it came after the entries VerifyAll read then
// (after). With no mark, it returns the Seq of the first entry after after
// that a migration appended, if any: one went by since VerifyAll read the
// keys' version. 0: none.
func (s *Service) locationMigration(ctx context.Context, stored int, after, ended int64) (int64, error) {
	m, err := readMigrationMark(ctx, s.store)
	if isBadMark(err) {
		return 0, &AccessError{Kind: "location keys", Reason: err.Error() + ": no migration wrote it"}
	}
	if err != nil {
		return 0, storeError(err)
	}
	if m.version != 0 {
		// The entry is read before the chain is checked up to it:
		// VerifyAll's caller checks it next (migrating).
		es, err := s.store.Log(ctx, m.seq-1, 1)
		if err != nil {
			return 0, storeError(err)
		}
		var j locationsRekeyJSON
		if len(es) == 0 || es[0].Seq != m.seq || es[0].Action != ActionLocationsRekey || json.Unmarshal(es[0].Data, &j) != nil ||
			j.Rekeyed != 0 || j.Version != m.version || m.seq < ended || j.From != stored && m.seq <= after {
			return 0, &AccessError{Kind: "location keys", Seq: m.seq, Reason: fmt.Sprintf("the setting %s is %q, but history entry %d "+
				"did not begin a migration of keys of version %d to version %d that is under way: a migration mark that no "+
				"migration wrote, which would stop Verify from computing keys again", LocationKeyMigrationSetting, m, m.seq, stored, m.version)}
		}
		return m.seq, nil
	}
	for {
		page, err := s.store.Log(ctx, after, verifyPage)
		if err != nil || len(page) == 0 {
			return 0, storeError(err)
		}
		for _, e := range page {
			if e.Action == ActionLocationsMigrate || e.Action == ActionLocationsRekey {
				return e.Seq, nil
			}
		}
		after = page[len(page)-1].Seq
	}
}

// verifyLocationRows reads the whole location index, a page at a time,
// for a row whose record does not list its key: VerifyAll found more rows
// than its records account for (or could not tell, the directory having
// changed under it). Each row is checked against its record as read with
// it, so a change committed meanwhile is no difference.
func (s *Service) verifyLocationRows(ctx context.Context, report func()) error {
	var after *LocationRow
	for {
		rows, err := s.store.LocationRows(ctx, after, verifyPage)
		if err != nil {
			return storeError(err)
		}
		if len(rows) == 0 {
			return nil
		}
		for _, r := range rows {
			if r.Listed {
				continue
			}
			rec, err := s.store.Record(ctx, r.RecordID)
			switch {
			case errors.Is(err, ErrNotFound):
				return &StateError{RecordID: r.RecordID, Reason: fmt.Sprintf("the location index holds %q for this record ID, which no record has", r.Key)}
			case err != nil:
				return storeError(err)
			}
			if slices.ContainsFunc(rec.Locations, func(l Location) bool { return l.Key == r.Key }) {
				continue // the record was changed since the row was read: it lists the key now
			}
			return &StateError{RecordID: r.RecordID, URN: rec.URN, Reason: fmt.Sprintf(
				"the location index holds %q for it, which is the key of none of its locations: L2N and L2L answer it for a URL it does not list", r.Key)}
		}
		after = &rows[len(rows)-1]
		report()
	}
}

// verifyChain checks the entries after the last one v saw, up to and
// including entry upTo (to the end of the history when upTo < 0), and
// replays each into replay.
func (s *Service) verifyChain(ctx context.Context, v *Verifier, replay *accessReplay, aliased map[int64]bool, upTo int64, report func()) error {
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
			if err := replay.apply(e); err != nil {
				return err
			}
			if e.RecordID != 0 && givesAliases(e.Data) {
				aliased[e.RecordID] = true
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

// IsChainError reports whether err says the history does not fit
// together: tampered with, or its times going backwards.
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
//
// locKey computes a location's key from its URL; nil when the store's
// keys are of other rules than this build's (LocationKeyVersion), which
// diffLocations then does not recompute.
func (s *Service) verifyState(ctx context.Context, st RecordState, aliased bool, locKey func(uri.URI) string) error {
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
	if !st.Latest.Action.ChangesRecord() {
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
	// The aliases the record's history ever gave it, read at most once
	// and only when needed: for a retired key, or when the record may have
	// dropped an alias. The history is read a page at a time (a record
	// may have changed a hundred thousand times); what is kept is one item
	// per alias, and every alias it ever had is a key the keys table holds.
	var given []givenAlias
	var read bool
	aliases := func() ([]givenAlias, error) {
		if !read {
			g, err := s.aliasesGiven(ctx, st.ID)
			if err != nil {
				return nil, err
			}
			given, read = g, true
		}
		return given, nil
	}
	everAlias := func(spelling string) (bool, error) {
		given, err := aliases()
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(given, func(g givenAlias) bool { return g.alias == spelling }), nil
	}
	d, err := diffKeys(st.Keys, snap, everAlias)
	if err != nil {
		return err
	}
	if d != "" {
		return fail(st.Record.URN, "%s (history entry %d)", d, st.Latest.Seq)
	}
	// The record's own key, under which a change puts its name again, is
	// its name's key (diffKeys found exactly one).
	if i := slices.IndexFunc(st.Keys, func(k Key) bool { return k.Role == RoleName }); st.Keys[i].Key != st.Record.Key {
		return fail(st.Record.URN, "the records table gives it the key %q, but its name's key is %q (history entry %d)",
			st.Record.Key, st.Keys[i].Key, st.Latest.Seq)
	}
	// The successor's key is what finds the record's predecessor link
	// (Reader.Predecessors); the history does not hold it, the successor
	// does.
	if d := diffSuccessorKey(st.Record); d != "" {
		return fail(st.Record.URN, "%s (history entry %d)", d, st.Latest.Seq)
	}
	// An alias the record no longer has stays reserved to it under its
	// key for ever (never reused, seed 000 guideline 2). A row deleted
	// from the keys table would free the name for anyone, and diffKeys,
	// which reads only the keys there are, cannot see it missing: the
	// history can. Only a record whose history gave it an alias at some
	// time, and that has changed since its creation, can have dropped one:
	// the others cost nothing more.
	if aliased && st.Latest.Action != ActionNameCreate {
		given, err := aliases()
		if err != nil {
			return err
		}
		for _, g := range given {
			if g.seq > st.Latest.Seq || g.alias == snap.URN || slices.Contains(snap.Aliases, g.alias) {
				continue // current aliases: diffKeys checked them
			}
			if !reserves(st.Keys, g.alias) {
				return fail(st.Record.URN, "history entry %d gave it the alias %q, which it has since dropped, but the keys table "+
					"no longer reserves it: the name could be registered again", g.seq, g.alias)
			}
		}
	}
	if d := diffLocations(st.Record, st.Locations, locKey); d != "" {
		return fail(st.Record.URN, "%s", d)
	}
	return nil
}

// givenAlias is an alias a record's history gave it, with the first entry
// that did.
type givenAlias struct {
	alias string
	seq   int64
}

// verifyHistoryChunk is how many entries of a record's history Verify
// reads at a time.
const verifyHistoryChunk = 100

// aliasesGiven returns every alias the history of record id gave it, each
// once, in the order they first appear (by entry, then as the entry lists
// them).
func (s *Service) aliasesGiven(ctx context.Context, id int64) ([]givenAlias, error) {
	var out []givenAlias
	seen := map[string]bool{}
	for after := int64(0); ; {
		es, err := s.store.History(ctx, id, after, verifyHistoryChunk)
		if err != nil {
			return nil, storeError(err)
		}
		for _, e := range es {
			var r Record
			if json.Unmarshal(e.Data, &r) != nil {
				continue
			}
			for _, a := range r.Aliases {
				if !seen[a] {
					seen[a] = true
					out = append(out, givenAlias{alias: a, seq: e.Seq})
				}
			}
			after = e.Seq
		}
		if len(es) < verifyHistoryChunk {
			return out, nil
		}
	}
}

// diffLocations returns the first way in which the location index's rows
// of a record (rows: their keys, in byte order) are not the keys of its
// locations, or "" when they are. A location's key is its URL after
// scheme-based normalization (RFC 3986 §6.2.3), as the Service computes
// it when it stores the record; the check normalizes again rather than
// trusting the key stored with the location, since the index is written
// from that key: a key edited together with its index row would make
// L2N answer the record for a URL it does not list. key computes it; nil
// when the keys are of other rules than this build's, and then only the
// rows are compared with the keys.
func diffLocations(rec Record, rows []string, key func(uri.URI) string) string {
	for i, l := range rec.Locations {
		u, err := uri.Parse(l.URL)
		if err != nil {
			return fmt.Sprintf("locations[%d].url %q is not a URI, so it has no key: %v", i, l.URL, err)
		}
		if key != nil {
			if k := key(u); l.Key != k {
				return fmt.Sprintf("locations[%d] (%q) is indexed under %q, but its URL normalizes to %q", i, l.URL, l.Key, k)
			}
		}
		if _, found := slices.BinarySearch(rows, l.Key); !found {
			return fmt.Sprintf("the location index holds no row for locations[%d] (%q) under its key %q: L2N and L2L do not find it by that URL", i, l.URL, l.Key)
		}
	}
	for i, r := range rows {
		if i > 0 && rows[i-1] == r {
			return fmt.Sprintf("the location index holds %q for it twice", r)
		}
		if !slices.ContainsFunc(rec.Locations, func(l Location) bool { return l.Key == r }) {
			return fmt.Sprintf("the location index holds %q for it, which is the key of none of its locations: "+
				"L2N and L2L answer it for a URL it does not list", r)
		}
	}
	return ""
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

// givesAliases reports whether a history entry's data is a record with
// at least one alias. The records this build writes say "aliases":[] when
// they have none, which is the common case and costs no decoding.
func givesAliases(data []byte) bool {
	i := bytes.Index(data, []byte(`"aliases"`))
	if i < 0 || bytes.HasPrefix(data[i:], []byte(`"aliases":[]`)) && !bytes.Contains(data[i+1:], []byte(`"aliases"`)) {
		return false
	}
	var r struct {
		Aliases []string `json:"aliases"`
	}
	return json.Unmarshal(data, &r) == nil && len(r.Aliases) > 0
}

// reserves reports whether keys hold spelling: under its own spelling,
// or under the key this build computes for it (the key of an alias that
// migration found equal to another's is held by that one's row).
func reserves(keys []Key, spelling string) bool {
	if slices.ContainsFunc(keys, func(k Key) bool { return k.Spelling == spelling }) {
		return true
	}
	u, err := urn.Parse(spelling)
	if err != nil {
		return false
	}
	key := u.Key()
	return slices.ContainsFunc(keys, func(k Key) bool { return k.Key == key })
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
