package sqlite

import (
	"context"
	"strings"
	"testing"
)

// TestHistoryPlans: a page of a record's history is a range of the
// history_record index (record_id, seq), forwards or backwards, in the
// index's order: no scan of the history, no sort. A record changed a
// hundred thousand times is read a page at a time.
func TestHistoryPlans(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, tc := range map[string]struct {
		q    query
		args []any
	}{
		"qHistory":       {qHistory, []any{7, 0, 10}},
		"qHistoryBefore": {qHistoryBefore, []any{7, 100, 1 << 62, 10}},
	} {
		plan := queryPlan(t, st, sqlText[tc.q], tc.args...)
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "USING INDEX history_record (record_id=? AND seq") || strings.Contains(all, "TEMP B-TREE") {
			t.Errorf("%s does not read a range of history_record in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// TestStaleSuccessorsPlan: the records whose successor key is to be
// computed (a version NULL or below this build's) are read from the
// partial index ensureStaleIndex makes, in its order: INDEXED BY fails the
// statement ("no query solution") unless the query's condition implies the
// index's.
func TestStaleSuccessorsPlan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := queryPlan(t, st, sqlText[qStaleSuccessorsCurrent], 0, 10)
	all := strings.Join(plan, "\n")
	if !strings.Contains(all, "USING INDEX "+staleSuccessorIndex) || strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("qStaleSuccessorsCurrent does not read %s in its order:\n%s", staleSuccessorIndex, all)
	}
	t.Logf("qStaleSuccessorsCurrent:\n  %s", strings.Join(plan, "\n  "))
}

// TestRecordsByLocationPlan: the records listing a location past a
// cursor are a range of the location index's primary key (key, record_id)
// in its order, starting at the cursor, each record found by its rowid: no
// scan, no sort, so that LIMIT stops the range however many records list
// the location, and a page far into them does not read those before it.
func TestRecordsByLocationPlan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, q := range map[string]query{"qRecordsByLocation": qRecordsByLocation, "qRecordsByLocationActive": qRecordsByLocationActive} {
		plan := queryPlan(t, st, sqlText[q], "https://popular.example/", 5000, 101)
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "SEARCH l USING PRIMARY KEY (key=? AND record_id>?)") || !strings.Contains(all, "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)") ||
			strings.Contains(all, "TEMP B-TREE") || strings.Contains(all, "SCAN") {
			t.Errorf("%s does not read a range of the location index in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// TestDuplicateURNsPlan: the records of a duplicate location are read as
// those of TestRecordsByLocationPlan are, a range of the location index
// in its order that LIMIT stops, however many records list the location.
func TestDuplicateURNsPlan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, q := range map[string]query{"qDuplicateURNs": qDuplicateURNs, "qDuplicateURNsActive": qDuplicateURNsActive} {
		plan := queryPlan(t, st, sqlText[q], "https://popular.example/", 101)
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "SEARCH l USING PRIMARY KEY (key=?)") || !strings.Contains(all, "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)") ||
			strings.Contains(all, "TEMP B-TREE") || strings.Contains(all, "SCAN") {
			t.Errorf("%s does not read a range of the location index in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}
