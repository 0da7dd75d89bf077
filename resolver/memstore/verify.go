package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// The location index of this store is no table of its own: it is the
// locations' keys of the records (byLocation, duplicates read them), so
// its rows are those keys, once per record, and every row is listed.

// locationKeys returns the rows the index holds for r.
func locationKeys(r resolver.Record) []string {
	var ks []string
	for _, l := range r.Locations {
		ks = append(ks, l.Key)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

func (d *data) locationCount() int64 {
	var n int64
	for _, r := range d.records {
		n += int64(len(locationKeys(r)))
	}
	return n
}

func (d *data) locationRows(after *resolver.LocationRow, limit int) []resolver.LocationRow {
	var out []resolver.LocationRow
	for id, r := range d.records {
		for _, k := range locationKeys(r) {
			row := resolver.LocationRow{Key: k, RecordID: id, Listed: true}
			if after == nil || compareRows(row, *after) > 0 {
				out = append(out, row)
			}
		}
	}
	slices.SortFunc(out, compareRows)
	return out[:min(len(out), max(limit, 0))]
}

func compareRows(a, b resolver.LocationRow) int {
	return cmp.Or(strings.Compare(a.Key, b.Key), cmp.Compare(a.RecordID, b.RecordID))
}

func (d *data) accessState() resolver.AccessState {
	st := resolver.AccessState{
		Head:        d.head().Seq,
		Authorities: sortedValues(d.authorities, func(a resolver.Authority) int64 { return a.ID }),
		Tokens:      sortedValues(d.tokens, func(t resolver.Token) int64 { return t.ID }),
		Rules:       sortedValues(d.rules, func(r resolver.Rule) int64 { return r.ID }),

		AdminTokenHash:     d.settings[resolver.AdminTokenSetting],
		LocationKeyVersion: d.settings[resolver.LocationKeySetting],
	}
	for i := range st.Authorities {
		st.Authorities[i].Prefixes = slices.Clone(st.Authorities[i].Prefixes)
	}
	return st
}

// LocationCount implements resolver.Reader.
func (s *Store) LocationCount(ctx context.Context) (int64, error) {
	return s.view().locationCount(), nil
}

// LocationRows implements resolver.Reader.
func (s *Store) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	return s.view().locationRows(after, limit), nil
}

// AccessState implements resolver.Reader.
func (s *Store) AccessState(ctx context.Context) (resolver.AccessState, error) {
	return s.view().accessState(), nil
}

// LocationCount implements resolver.Reader inside the transaction.
func (t *tx) LocationCount(ctx context.Context) (int64, error) {
	return t.d.locationCount(), nil
}

// LocationRows implements resolver.Reader inside the transaction.
func (t *tx) LocationRows(ctx context.Context, after *resolver.LocationRow, limit int) ([]resolver.LocationRow, error) {
	return t.d.locationRows(after, limit), nil
}

// AccessState implements resolver.Reader inside the transaction.
func (t *tx) AccessState(ctx context.Context) (resolver.AccessState, error) {
	return t.d.accessState(), nil
}
