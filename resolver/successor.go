package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/urikit/urikit/urn"
)

// Predecessor and successor links (the Czech national resolver CZIDLO's
// convention): a withdrawn record names what replaces it
// (Successor, RFC 5829's successor-version), and the record it names
// points back at it as a predecessor-version. The link is kept by key,
// not by record ID: a successor may be named before its record exists,
// and counts from the moment that record is registered.

// SuccessorKeyOf returns what a record with successor as its Successor
// stores as SuccessorKey and SuccessorVersion: the successor's key by this
// build's rules when it is a URN ("" when it is not), and urn.KeyVersion;
// "" and 0 when there is no successor. Stores call it too, to fill in the
// columns of records written before they existed.
func SuccessorKeyOf(successor string) (key string, version int) {
	if successor == "" {
		return "", 0
	}
	if u, err := urn.Parse(successor); err == nil {
		return u.Key(), urn.KeyVersion
	}
	return "", urn.KeyVersion
}

// SuccessorStale reports whether r's successor key is to be computed by
// the rules of version (Reader.StaleSuccessors): r has a successor, and no
// key for it (SuccessorVersion 0) or one that older rules computed.
func SuccessorStale(r Record, version int) bool {
	if r.SuccessorVersion == 0 {
		return r.Successor != ""
	}
	return r.SuccessorVersion < version
}

// setSuccessor sets r's successor and the key that indexes it.
func (r *Record) setSuccessor(successor string) {
	r.Successor = successor
	r.SuccessorKey, r.SuccessorVersion = SuccessorKeyOf(successor)
}

// currentKeys returns the keys of r's name and current aliases by this
// build's rules, the name's first: the keys a successor is compared with.
func currentKeys(r Record) []string {
	keys := make([]string, 0, 1+len(r.Aliases))
	for _, s := range append([]string{r.URN}, r.Aliases...) {
		if u, err := urn.Parse(s); err == nil && !slices.Contains(keys, u.Key()) {
			keys = append(keys, u.Key())
		}
	}
	return keys
}

// MaxPredecessors is how many predecessors a record is shown with: the
// first by ID. Any maintainer may name any URN as a successor, so a
// record may be named by thousands of withdrawn names; its answers (and
// their Link headers) stay small whatever others do, and
// Record.MorePredecessors says when some were left out.
const MaxPredecessors = 100

// Predecessors returns the canonical names (URN) of the withdrawn records
// whose successor is a URN equivalent to rec's name or one of its current
// aliases (urn.URN.Key, as lookups compare names), in record order, at
// most MaxPredecessors of them (more reports whether there are others);
// nil when there are none. It is read from the store on every call, not
// from the lookup cache: another record's withdrawal changes it without
// changing rec.
func (s *Service) Predecessors(ctx context.Context, rec Record) (names []string, more bool, err error) {
	names, more, err = predecessorsIn(ctx, s.store, rec)
	return names, more, storeError(err)
}

// PredecessorsAfter returns a page of rec's predecessors (as Predecessors
// finds them): up to limit of those with ID > after, in ID order, and
// whether others follow them. It pages past the MaxPredecessors that a
// record is shown with (GET /api/v1/names/{urn}/predecessors): the ID of
// a page's last record is the next page's after.
func (s *Service) PredecessorsAfter(ctx context.Context, rec Record, after int64, limit int) (page []RecordName, more bool, err error) {
	page, more, err = predecessorPage(ctx, s.store, rec, after, limit)
	return page, more, storeError(err)
}

// WithPredecessors returns rec with its Predecessors and MorePredecessors
// set (Predecessors): the record as GET /api/v1/names/{urn}, I2C and the
// name's page show it, whose ETag covers them. The resolve routes that
// redirect (I2L, I2R) do not read them: they would cost every redirect an
// index lookup.
func (s *Service) WithPredecessors(ctx context.Context, rec Record) (Record, error) {
	err := setPredecessors(ctx, s.store, &rec)
	return rec, storeError(err)
}

// setPredecessors sets rec's Predecessors and MorePredecessors, read
// through r (a store or a transaction).
func setPredecessors(ctx context.Context, r Reader, rec *Record) (err error) {
	rec.Predecessors, rec.MorePredecessors, err = predecessorsIn(ctx, r, *rec)
	return err
}

// predecessorsIn is Predecessors read through r.
func predecessorsIn(ctx context.Context, r Reader, rec Record) (names []string, more bool, err error) {
	page, more, err := predecessorPage(ctx, r, rec, 0, MaxPredecessors)
	for _, p := range page {
		names = append(names, p.URN)
	}
	return names, more, err
}

// predecessorPage is PredecessorsAfter read through r.
func predecessorPage(ctx context.Context, r Reader, rec Record, after int64, limit int) (page []RecordName, more bool, err error) {
	// One more than is shown tells whether there are more, and one more
	// again stands in for rec itself, which no build lets name itself as
	// successor but a store edited by hand might.
	ps, err := r.Predecessors(ctx, currentKeys(rec), after, limit+2)
	if err != nil {
		return nil, false, err
	}
	for _, p := range ps {
		if p.ID != rec.ID {
			page = append(page, p)
		}
	}
	if len(page) > limit {
		return page[:limit], true, nil
	}
	return page, false, nil
}

// migrateSuccessors is Migrate's part for successor keys: it computes
// again, by this build's rules, the SuccessorKey of every record whose
// SuccessorVersion is older (as migratePass does for the keys table), so
// that predecessor links follow the equivalence rules lookups use, and
// computes it for every record that has a successor but no key for it
// (SuccessorStale): PostgreSQL's schema 3 leaves them to it, so that the
// records table is not locked while they are computed. A
// batch that changed keys appends a keys.migrate entry, as migratePass
// does, with {"version":…,"successors":N}. It returns the number of
// records read and of keys that changed.
func (s *Service) migrateSuccessors(ctx context.Context) (checked, rekeyed int, err error) {
	var after int64
	for {
		recs, err := s.store.StaleSuccessors(ctx, urn.KeyVersion, after, 500)
		if err != nil {
			return checked, rekeyed, storeError(err)
		}
		if len(recs) == 0 {
			return checked, rekeyed, nil
		}
		after = recs[len(recs)-1].ID
		n := 0
		err = s.store.Update(ctx, func(tx Tx) error {
			n = 0 // fn may run again (Store.Update)
			for _, r := range recs {
				// Read again in the transaction: a restated notice may
				// have changed the successor since the page was read.
				rec, err := tx.Record(ctx, r.ID)
				if err != nil {
					return err
				}
				if !SuccessorStale(rec, urn.KeyVersion) {
					continue
				}
				old := rec.SuccessorKey
				rec.setSuccessor(rec.Successor)
				if err := tx.UpdateRecord(ctx, rec); err != nil {
					return err
				}
				if rec.SuccessorKey != old {
					n++
				}
			}
			if n == 0 {
				return nil
			}
			data, _ := json.Marshal(map[string]int{"version": urn.KeyVersion, "successors": n})
			now, err := s.stamp(ctx, tx)
			if err != nil {
				return err
			}
			return tx.Append(ctx, &Entry{Time: now, Action: ActionKeysMigrate, Subject: "keys", Actor: System.Actor(), Data: data})
		})
		if err != nil {
			return checked, rekeyed, storeError(err)
		}
		checked += len(recs)
		rekeyed += n
	}
}

// diffSuccessorKey returns how rec's stored successor key disagrees with
// its successor, or "" when it agrees: a key computed by this build's
// rules must be the successor's key ("" for a successor that is no URN);
// an older one is left for urikit migrate, as diffKeys leaves older keys.
// A wrong or missing key hides a predecessor link, or shows a false one.
func diffSuccessorKey(rec Record) string {
	switch {
	case rec.Successor == "" && (rec.SuccessorKey != "" || rec.SuccessorVersion != 0):
		return fmt.Sprintf("it has no successor, but the records table holds the successor key %q (version %d)", rec.SuccessorKey, rec.SuccessorVersion)
	case rec.Successor != "" && rec.SuccessorVersion == 0:
		// A build before the column, or a PostgreSQL schema migration,
		// left it to urikit migrate.
		return fmt.Sprintf("the records table holds no successor key for its successor %q: urikit migrate computes it", rec.Successor)
	case rec.SuccessorVersion == urn.KeyVersion:
		if key, _ := SuccessorKeyOf(rec.Successor); key != rec.SuccessorKey {
			return fmt.Sprintf("the records table holds the successor key %q, but the key of its successor %q is %q", rec.SuccessorKey, rec.Successor, key)
		}
	}
	return ""
}
