package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/urikit/urikit/urn"
)

// MigrateReport says what Migrate did.
type MigrateReport struct {
	Checked   int      // keys whose version was older than urn.KeyVersion
	Rekeyed   int      // keys that changed
	Conflicts []string // spellings whose new key another record holds (left as they were)
	// SuccessorsChecked counts the withdrawn records whose successor's key
	// (Record.SuccessorKey) was of an older urn.KeyVersion or had not been
	// computed (resolver.SuccessorStale), and SuccessorsRekeyed those whose
	// key changed (a URL successor's key stays "").
	SuccessorsChecked, SuccessorsRekeyed int
	// LocationsFrom is the LocationKeyVersion the location index's keys
	// were of when Migrate computed them again by this build's rules; 0
	// when they were current. LocationRecords counts the records it read
	// for that, LocationsRekeyed those whose keys changed.
	LocationsFrom, LocationRecords, LocationsRekeyed int
	// LocationsNewer is the store's LocationKeyVersion when it is newer
	// than this build's (0 otherwise): a newer build migrated the keys,
	// and this one refuses writes that store location keys.
	LocationsNewer int
	// LocationsTakenOver is the LocationKeyVersion of another build whose
	// migration of the location keys began while this one's ran (0 when
	// none did): this one stopped, and the other one finishes the work.
	LocationsTakenOver int
	// LocationsInterrupted is the LocationKeyVersion of a migration that
	// was interrupted and left its mark in a store whose keys are of this
	// build's version (0 when none did): Migrate keyed every record again
	// by this build's rules (LocationsFrom is then this build's version).
	LocationsInterrupted int
	// LocationsNewerUnderWay is the LocationKeyVersion of a newer build
	// whose migration of the location keys is under way, or was
	// interrupted (its mark), which Migrate left alone (0 when none):
	// MigrateOver takes it over.
	LocationsNewerUnderWay int
	// LocationsOlder is the store's LocationKeyVersion when it is older
	// than this build's after Migrate (0 otherwise): another build's
	// migration took this one over, or recorded its older version first.
	// This build refuses writes that store location keys until a
	// migration by it (or a newer build) ends.
	LocationsOlder int
}

// Migrate computes again, with the rules of this build's urn package, every
// key stored under an older urn.KeyVersion, so that lookups keep finding
// records after the equivalence rules change. A key whose new value another
// record already holds is left as it was and reported: two records have
// become equivalent, and people must decide which one stays. Then, when
// the location index's keys are of an older LocationKeyVersion, it
// computes them again too, so that L2N and L2L keep finding records by
// their URLs.
func (s *Service) Migrate(ctx context.Context) (MigrateReport, error) { return s.migrate(ctx, false) }

// MigrateOver is Migrate that also takes over a migration of the location
// keys to a newer build's rules, under way or interrupted (its mark), and
// keys every record by this build's: what urikit migrate does, for an
// operator who rolled a newer build back, or knows that its migration
// stopped. Migrate leaves such a migration alone, so that an instance of an
// older build started during a rolling upgrade does not undo it.
func (s *Service) MigrateOver(ctx context.Context) (MigrateReport, error) {
	return s.migrate(ctx, true)
}

func (s *Service) migrate(ctx context.Context, takeOver bool) (MigrateReport, error) {
	rep, err := s.migrateKeys(ctx)
	if err != nil {
		return rep, err
	}
	// A successor's key follows the same rules as the names': a successor
	// named by a spelling the new rules make equivalent to a record's name
	// links to it from now on (and one they no longer do, not).
	rep.SuccessorsChecked, rep.SuccessorsRekeyed, err = s.migrateSuccessors(ctx)
	if err != nil {
		return rep, err
	}
	err = s.migrateLocations(ctx, &rep, takeOver)
	if err == nil && rep.LocationsFrom == 0 {
		var v int
		switch v, err = storedLocationVersion(ctx, s.store); {
		case err != nil:
		case v > s.loc.version:
			rep.LocationsNewer = v
		case v < s.loc.version && rep.LocationsTakenOver != s.loc.version:
			// (Taken over by another instance of this build: that
			// one records this build's version.)
			rep.LocationsOlder = v
		}
	}
	return rep, storeError(err)
}

// migrateKeys is the name keys' part of Migrate.
func (s *Service) migrateKeys(ctx context.Context) (MigrateReport, error) {
	var rep MigrateReport
	// Every committed batch moved keys, also when a later one fails: the
	// lookups cached under the old keys go in any case.
	defer s.Invalidate()
	// A key's new value may be the old value of a key later in key order,
	// which has not moved yet when the first is tried: that is no
	// conflict, and the next pass moves it. Passes go on while they move
	// keys and leave some in conflict; each moves at least one stale key
	// for good, so they end.
	for pass := 0; ; pass++ {
		p, err := s.migratePass(ctx)
		if pass == 0 {
			rep.Checked = p.Checked
		}
		rep.Rekeyed += p.Rekeyed
		rep.Conflicts = p.Conflicts
		if err != nil {
			return rep, err
		}
		if p.Rekeyed == 0 || len(p.Conflicts) == 0 {
			break
		}
	}
	return rep, nil
}

// migratePass is one pass of Migrate over the stale keys, in key order.
func (s *Service) migratePass(ctx context.Context) (MigrateReport, error) {
	var rep MigrateReport
	after := ""
	for {
		keys, err := s.store.StaleKeys(ctx, urn.KeyVersion, after, 500)
		if err != nil {
			return rep, storeError(err)
		}
		if len(keys) == 0 {
			break
		}
		after = keys[len(keys)-1].Key
		rekeyed := 0
		var conflicts []string
		err = s.store.Update(ctx, func(tx Tx) error {
			// fn may run again (Store.Update): it only sets what it
			// reports, and the report is taken once the batch committed.
			rekeyed, conflicts = 0, nil
			for _, k := range keys {
				u, err := urn.Parse(k.Spelling)
				if err != nil {
					continue // stored names always parse; nothing to learn from one that does not
				}
				nk := k
				nk.Key, nk.Version = u.Key(), urn.KeyVersion
				holder, role, err := tx.RecordByKey(ctx, nk.Key)
				held := err == nil
				if err != nil && !errors.Is(err, ErrNotFound) {
					return err
				}
				if nk.Key != k.Key {
					if held && holder.ID != k.RecordID {
						conflicts = append(conflicts, k.Spelling)
						continue
					}
					// k was read before the batch: this transaction may
					// have moved another name of the record onto k.Key
					// since (a name whose new key is an alias's old one).
					// That row is the newer one, and stays.
					if mine, err := stillStored(ctx, tx, k); err != nil {
						return err
					} else if mine {
						if err := tx.DeleteKey(ctx, k.Key); err != nil {
							return err
						}
					}
					rekeyed++
					if k.Role == RoleName {
						rec, err := tx.Record(ctx, k.RecordID)
						if err != nil {
							return err
						}
						rec.Key = nk.Key
						if err := tx.UpdateRecord(ctx, rec); err != nil {
							return err
						}
					}
				}
				// The record may hold nk.Key already: two of its names
				// have become equivalent (an ISBN-10 name and its ISBN-13
				// alias), or this transaction wrote the row already and k
				// is an older copy of it. One row stays, with the role
				// that matters most, so that the name never turns into an
				// alias of its own record.
				if held && roleRank(role) > roleRank(k.Role) {
					continue
				}
				if err := tx.PutKey(ctx, nk); err != nil {
					return err
				}
			}
			if rekeyed == 0 {
				return nil
			}
			data, _ := json.Marshal(map[string]int{"version": urn.KeyVersion, "rekeyed": rekeyed})
			now, err := s.stamp(ctx, tx)
			if err != nil {
				return err
			}
			return tx.Append(ctx, &Entry{Time: now, Action: ActionKeysMigrate, Subject: "keys", Actor: System.Actor(), Data: data})
		})
		if err != nil {
			return rep, storeError(err)
		}
		rep.Checked += len(keys)
		rep.Rekeyed += rekeyed
		rep.Conflicts = append(rep.Conflicts, conflicts...)
	}
	return rep, nil
}

// roleRank orders roles by what they do: a name over an alias, which
// resolves, over a retired alias, which only reserves.
func roleRank(r Role) int {
	switch r {
	case RoleName:
		return 2
	case RoleAlias:
		return 1
	}
	return 0
}

// Duplicates calls fn for every location that several active records
// share, after scheme-based normalization, in key order; with withdrawn,
// for every location several records share, whatever their status (see
// Reader.DuplicateLocations).
func (s *Service) Duplicates(ctx context.Context, withdrawn bool, fn func(Duplicate) error) error {
	after := ""
	for {
		ds, err := s.store.DuplicateLocations(ctx, after, 1000, withdrawn)
		if err != nil {
			return storeError(err)
		}
		if len(ds) == 0 {
			return nil
		}
		for _, d := range ds {
			if err := fn(d); err != nil {
				return err
			}
		}
		after = ds[len(ds)-1].Key
	}
}

// stillStored reports whether the keys table holds k as it was read: the
// same key, spelling and version for the same record.
func stillStored(ctx context.Context, tx Tx, k Key) (bool, error) {
	keys, err := tx.Keys(ctx, k.RecordID)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(keys, func(s Key) bool {
		return s.Key == k.Key && s.Spelling == k.Spelling && s.Version == k.Version
	}), nil
}
