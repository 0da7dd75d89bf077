package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urikit/urikit/uri"
)

// LocationKeyVersion names the rules by which a location's key (LocationKey,
// Location.Key) is computed: scheme-based normalization (RFC 3986 §6.2.3)
// as package uri does it. It changes whenever a change to uri gives some
// URL another key. A store keeps the keys in its location index, which L2N
// and L2L search; the setting LocationKeySetting records the version they
// were computed by, and Migrate computes them again when it is older, as it
// does name keys (urn.KeyVersion). A store without the setting has
// version 1's keys: every store written before the setting existed.
//
//   - 1: the first rules.
//
// testdata/location-keys.tsv holds the keys of a corpus of URLs: the test
// that compares them fails when uri's normalization changes, and says to
// raise this version.
const LocationKeyVersion = 1

// LocationKeySetting names the setting that holds the LocationKeyVersion
// of the keys in a store's location index (absent: 1).
const LocationKeySetting = "location-key-version"

// LocationKeyMigrationSetting names the setting that marks the migration
// of the location keys under way: "VERSION:SEQ", the LocationKeyVersion of
// the build that runs it and the Seq of the history entry that began it,
// which no other migration shares (absent or empty: none; one left by a
// migration that was interrupted stays until the next one ends).
const LocationKeyMigrationSetting = "location-key-migration"

// locationRules are the rules a Service computes location keys by: this
// build's, except in tests that play a build with other rules
// (export_test.go).
type locationRules struct {
	version int
	key     func(uri.URI) string
}

var thisBuildsLocationRules = locationRules{LocationKeyVersion, schemeBasedKey}

func schemeBasedKey(u uri.URI) string { return u.Normalize(uri.SchemeBased).String() }

// locationKey checks that raw is an absolute URI (RFC 3986 §4.3, a fragment
// allowed) and returns it with its key by this build's rules: the URI
// after scheme-based normalization (§6.2.3), which is what L2N compares.
func locationKey(field, raw string) (string, string, error) {
	u, err := parseLocation(field, raw)
	if err != nil {
		return "", "", err
	}
	return raw, schemeBasedKey(u), nil
}

// locationKey is the package's locationKey by s's rules.
func (s *Service) locationKey(field, raw string) (string, string, error) {
	u, err := parseLocation(field, raw)
	if err != nil {
		return "", "", err
	}
	return raw, s.loc.key(u), nil
}

// storedLocationVersion reads the LocationKeyVersion of the keys in the
// store's location index.
func storedLocationVersion(ctx context.Context, r Reader) (int, error) {
	v, err := r.Setting(ctx, LocationKeySetting)
	if errors.Is(err, ErrNotFound) || err == nil && v == "" {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	return parseLocationVersion(v)
}

// mayStoreLocationKeys is called, in the transaction, by every write that
// stores location keys computed by s's rules. It refuses when the store's
// keys are of newer rules: a newer build migrated them while this one
// still runs (several instances on one database), and keys of older rules
// written now would hide the record from the newer build's L2N. And it
// records the version in a store that has none yet and holds no record —
// a store this build made — so that it does not pass for version 1.
func (s *Service) mayStoreLocationKeys(ctx context.Context, tx Tx) error {
	v, err := tx.Setting(ctx, LocationKeySetting)
	stored := 1 // what no setting means
	switch {
	case errors.Is(err, ErrNotFound):
		if s.loc.version == 1 {
			return nil
		}
		recs, err := tx.Records(ctx, 0, 1)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return s.pinLocationVersion(ctx, tx, 0)
		}
		// An older store: Migrate computes its keys again.
	case err != nil:
		return err
	case v != "":
		if stored, err = parseLocationVersion(v); err != nil {
			return err
		}
	}
	if stored > s.loc.version {
		return &Error{Kind: KindUnavailable, Offset: -1, Err: ErrUnavailable, Message: fmt.Sprintf("the store's location keys follow "+
			"newer normalization rules (version %d) than this urikit's (%d): a newer urikit migrated them; upgrade this one", stored, s.loc.version)}
	}
	if stored < s.loc.version {
		// Keys of this build's rules in a store of older ones: while a
		// migration runs (or one left its mark), the one that ends keys
		// them again: it reads every record after it began, and what was
		// written since. Otherwise nothing would, and they would hide
		// the record from L2N by the rules the store says it follows.
		m, err := readMigrationMark(ctx, tx)
		if isBadMark(err) {
			return &Error{Kind: KindUnavailable, Offset: -1, Err: ErrUnavailable, Message: err.Error() + ": run urikit migrate"}
		}
		if err != nil || m.version != 0 {
			return err
		}
		return &Error{Kind: KindUnavailable, Offset: -1, Err: ErrUnavailable, Message: fmt.Sprintf("the store's location keys follow "+
			"older normalization rules (version %d) than this urikit's (%d), and no migration is under way: run urikit migrate "+
			"(or start urikit serve again) with this urikit", stored, s.loc.version)}
	}
	return nil
}

// pinLocationVersion records in tx that the store's location keys are of
// s's version: the setting, and a locations.migrate entry that Verify holds
// it to.
func (s *Service) pinLocationVersion(ctx context.Context, tx Tx, rekeyed int) error {
	if err := tx.SetSetting(ctx, LocationKeySetting, strconv.Itoa(s.loc.version)); err != nil {
		return err
	}
	// No migration from another version goes on after this: one under
	// way stops at its next transaction (the version it started from is
	// gone), and its mark, which Verify would hold to a migration that
	// can no longer end, goes.
	if err := tx.SetSetting(ctx, LocationKeyMigrationSetting, ""); err != nil {
		return err
	}
	data, err := json.Marshal(locationsMigrateJSON{Version: s.loc.version, Rekeyed: rekeyed})
	if err != nil {
		return err
	}
	now, err := s.stamp(ctx, tx)
	if err != nil {
		return err
	}
	return tx.Append(ctx, &Entry{Time: now, Action: ActionLocationsMigrate, Subject: "locations", Actor: System.Actor(), Data: data})
}

// appendRekey appends a locations.rekey entry of the migration from
// version from to s's: the one that begins it (n is 0), or one for a page
// in which n records' keys changed. A page changes the location index, and
// its entry moves the history's head with it: Verify counts the index's
// rows and trusts the count only when the head did not move meanwhile.
func (s *Service) appendRekey(ctx context.Context, tx Tx, from, n int) (Entry, error) {
	data, err := json.Marshal(locationsRekeyJSON{Version: s.loc.version, From: from, Rekeyed: n})
	if err != nil {
		return Entry{}, err
	}
	now, err := s.stamp(ctx, tx)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Time: now, Action: ActionLocationsRekey, Subject: "locations", Actor: System.Actor(), Data: data}
	return e, tx.Append(ctx, &e)
}

func parseLocationVersion(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("the setting %s is %q, which is no location key version", LocationKeySetting, v)
	}
	return n, nil
}

// locationsMigrateJSON is the data of a locations.migrate entry.
type locationsMigrateJSON struct {
	Version int `json:"version"` // the LocationKeyVersion the keys are now of
	Rekeyed int `json:"rekeyed"` // records whose keys changed
}

// locationsRekeyJSON is the data of a locations.rekey entry.
type locationsRekeyJSON struct {
	Version int `json:"version"` // the LocationKeyVersion the page computed keys by
	From    int `json:"from"`    // the version the store's keys were of
	Rekeyed int `json:"rekeyed"` // records whose keys changed in the page (0: the migration begins)
}

// locationsPage is how many records migrateLocations reads, and at most
// rewrites, at a time.
const locationsPage = 500

// migrateLocations computes again, by s's rules, the location keys of every
// record when the store's are of an older LocationKeyVersion, then records
// the version in the setting and in a locations.migrate history entry
// (which Verify holds the setting to). It sets rep's LocationsFrom (the
// version the keys were of; 0 when they were current, or newer: a newer
// build migrated them, and this one must not take them back),
// LocationRecords, LocationsRekeyed, LocationsTakenOver,
// LocationsInterrupted and LocationsNewerUnderWay.
//
// A migration begins by writing its mark into the setting
// LocationKeyMigrationSetting, and every later transaction of it checks
// that the setting still holds that mark. Another migration that begins
// meanwhile (of another build, or another instance of this one) takes the
// store over: this one stops at its next transaction, and the other, which
// reads every record after it began, keys again what this one did. So the
// pages of two migrations never interleave, whatever their versions, and
// the keys end up of the version recorded. A build whose migration was
// taken over, or overtaken, by an older build's then finds the store's
// keys older than its own, and refuses to store keys until it migrates
// them (mayStoreLocationKeys).
//
// A migration to newer rules than this build's (its mark) is left alone
// unless takeOver is set: Migrate runs at every start of urikit serve, and
// an instance of an older build started during a rolling upgrade must not
// undo it. Nothing tells a migration under way from one that was
// interrupted; urikit migrate, run by an operator who knows, takes either
// over.
func (s *Service) migrateLocations(ctx context.Context, rep *MigrateReport, takeOver bool) error {
	from, err := storedLocationVersion(ctx, s.store)
	if err != nil || from > s.loc.version {
		return err
	}
	// leaveAlone tells, from the mark read (or the error reading it),
	// whether this migration must not begin: a newer build's migration
	// is under way (or was interrupted), and takeOver is not set. A mark
	// that is no VERSION:SEQ stops Migrate with an error that says how to
	// replace it, which MigrateOver does.
	leaveAlone := func(m migrationMark, err error) (bool, error) {
		switch {
		case err != nil && !isBadMark(err):
			return true, err
		case err != nil && !takeOver:
			return true, &Error{Kind: KindUnavailable, Offset: -1, Err: ErrUnavailable, Message: err.Error() + ": urikit migrate replaces it"}
		case m.version > s.loc.version && !takeOver:
			rep.LocationsNewerUnderWay = m.version
			return true, nil
		}
		return false, nil
	}
	other, err := readMigrationMark(ctx, s.store)
	malformed := isBadMark(err)
	if stop, err := leaveAlone(other, err); stop || err != nil {
		return err
	}
	if from == s.loc.version && other.version == 0 && !malformed {
		return nil
	}
	// (When from is this build's version, a migration to other rules was
	// interrupted and left its mark, and may have keyed records by them
	// (or the mark is no mark at all): this build keys every record again
	// by its own, as a migration from its own version, which ends with the
	// mark cleared.)
	// mine checks, in a transaction of the migration, that the keys are
	// still of version from and that no other build took the migration
	// over; when one did, it sets rep.LocationsTakenOver to its version.
	var mark migrationMark // this migration's, once it began
	mine := func(tx Tx) (bool, error) {
		rep.LocationsTakenOver = 0 // fn may run again (Store.Update)
		v, err := storedLocationVersion(ctx, tx)
		if err != nil || v != from {
			return false, err // migrated by another build meanwhile: Migrate reports it
		}
		m, err := readMigrationMark(ctx, tx)
		if err != nil || m == mark {
			return err == nil, err
		}
		rep.LocationsTakenOver = m.version
		return false, nil
	}
	// The entry that begins the migration: the records written after it,
	// by builds of the older rules (each refuses only once the version is
	// recorded), are keyed again at the end.
	began := false
	err = s.store.Update(ctx, func(tx Tx) error {
		began, rep.LocationsNewerUnderWay = false, 0 // fn may run again (Store.Update)
		if v, err := storedLocationVersion(ctx, tx); err != nil || v != from {
			return err
		}
		// A newer build's migration may have begun since the mark was
		// read: under the lock that orders writes, it is read again.
		var err error
		other, err = readMigrationMark(ctx, tx)
		if stop, err := leaveAlone(other, err); stop || err != nil {
			return err
		}
		if from == s.loc.version && other.version == 0 && !isBadMark(err) {
			return nil // another instance ended the interrupted migration meanwhile
		}
		e, err := s.appendRekey(ctx, tx, from, 0)
		if err != nil {
			return err
		}
		mark = migrationMark{version: s.loc.version, seq: e.Seq}
		if err := tx.SetSetting(ctx, LocationKeyMigrationSetting, mark.String()); err != nil {
			return err
		}
		began = true
		return nil
	})
	if err != nil || !began {
		return err
	}
	rep.LocationsFrom = from
	if from == s.loc.version {
		rep.LocationsInterrupted = other.version
	}
	stop := func() error { rep.LocationsFrom, rep.LocationsInterrupted = 0, 0; return nil }
	var after int64
	for {
		recs, err := s.store.Records(ctx, after, locationsPage)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			break
		}
		after = recs[len(recs)-1].ID
		rep.LocationRecords += len(recs)
		var stale []int64
		for _, r := range recs {
			if s.rekeyLocations(&r) {
				stale = append(stale, r.ID)
			}
		}
		if len(stale) == 0 {
			continue
		}
		n, ours := 0, false
		err = s.store.Update(ctx, func(tx Tx) error {
			n = 0 // fn may run again (Store.Update)
			var err error
			if ours, err = mine(tx); err != nil || !ours {
				return err
			}
			for _, id := range stale {
				// Read again under the lock: a write since the page
				// was read stored keys by this build's rules already.
				rec, err := tx.Record(ctx, id)
				if errors.Is(err, ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if !s.rekeyLocations(&rec) {
					continue
				}
				if err := tx.UpdateRecord(ctx, rec); err != nil {
					return err
				}
				n++
			}
			if n == 0 {
				return nil
			}
			_, err = s.appendRekey(ctx, tx, from, n)
			return err
		})
		if err != nil {
			return err
		}
		if !ours {
			return stop()
		}
		rep.LocationsRekeyed += n
	}
	late, ours := 0, false
	err = s.store.Update(ctx, func(tx Tx) error {
		late = 0
		var err error
		if ours, err = mine(tx); err != nil || !ours {
			return err
		}
		// Under the lock that orders every write: the records written
		// since the migration began, by this build or an older one,
		// then the version, after which older builds (from this one on)
		// refuse to write keys.
		for after := mark.seq; ; {
			page, err := tx.Log(ctx, after, locationsPage)
			if err != nil || len(page) == 0 {
				if err != nil {
					return err
				}
				break
			}
			after = page[len(page)-1].Seq
			for _, e := range page {
				if e.RecordID == 0 {
					continue
				}
				rec, err := tx.Record(ctx, e.RecordID)
				if errors.Is(err, ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if s.rekeyLocations(&rec) {
					if err := tx.UpdateRecord(ctx, rec); err != nil {
						return err
					}
					late++
				}
			}
		}
		return s.pinLocationVersion(ctx, tx, rep.LocationsRekeyed+late)
	})
	if err != nil {
		return err
	}
	if !ours {
		return stop()
	}
	rep.LocationsRekeyed += late
	return nil
}

// migrationMark is the value of the setting LocationKeyMigrationSetting.
// The zero value is no migration under way.
type migrationMark struct {
	version int   // the LocationKeyVersion of the build that migrates
	seq     int64 // the Seq of the locations.rekey entry that began it
}

func (m migrationMark) String() string { return fmt.Sprintf("%d:%d", m.version, m.seq) }

// readMigrationMark reads the setting LocationKeyMigrationSetting.
func readMigrationMark(ctx context.Context, r Reader) (migrationMark, error) {
	v, err := r.Setting(ctx, LocationKeyMigrationSetting)
	if errors.Is(err, ErrNotFound) || err == nil && v == "" {
		return migrationMark{}, nil
	}
	if err != nil {
		return migrationMark{}, err
	}
	ver, seq, ok := strings.Cut(v, ":")
	var m migrationMark
	if ok {
		m.version, err = strconv.Atoi(ver)
		if err == nil {
			m.seq, err = strconv.ParseInt(seq, 10, 64)
		}
	}
	if !ok || err != nil || m.version < 1 || m.seq < 1 {
		return migrationMark{}, &badMarkError{v}
	}
	return m, nil
}

// badMarkError is readMigrationMark's error for a mark that is no
// VERSION:SEQ, which no migration wrote; a failure to read it is the
// store's error.
type badMarkError struct{ value string }

func (e *badMarkError) Error() string {
	return fmt.Sprintf("the setting %s is %q, which is no VERSION:SEQ", LocationKeyMigrationSetting, e.value)
}

func isBadMark(err error) bool {
	var bad *badMarkError
	return errors.As(err, &bad)
}

// rekeyLocations sets the keys of rec's locations by s's rules and reports
// whether any changed. A URL that no longer parses keeps its key: stored
// URLs were checked when they were written, and Verify reports one that
// does not parse.
func (s *Service) rekeyLocations(rec *Record) bool {
	changed := false
	for i, l := range rec.Locations {
		u, err := uri.Parse(l.URL)
		if err != nil {
			continue
		}
		if k := s.loc.key(u); k != l.Key {
			rec.Locations[i].Key, changed = k, true
		}
	}
	return changed
}
