package sqlite

import (
	"context"
	"strings"
	"testing"
)

// TestVerifyPlans: the statements Verify pages with read the location
// index by its primary key, never a scan of the whole table (which, with
// one page per thousand records, would read the index tens of thousands
// of times over on a directory of ten million names).
func TestVerifyPlans(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, q := range map[string]string{
		"qLocationsFound":    qLocationsFound,
		"qLocationRows":      qLocationRows,
		"qLocationRowsFirst": qLocationRowsFirst,
		"qRecordStates":      qRecordStates,
		"qOtherKeys":         qOtherKeys,
		"qStrayKeys":         qStrayKeys,
	} {
		args := []any{`["1 https://example.org/"]`, nil, 10}
		if name == "qRecordStates" || name == "qOtherKeys" {
			args = []any{0, 10}
		} else if name == "qStrayKeys" {
			args = []any{10}
		} else if name == "qLocationRows" {
			args = []any{"https://example.org/", 1, 10}
		} else if name == "qLocationsFound" {
			args = args[:1]
		}
		plan := queryPlan(t, st, q, args...)
		all := strings.Join(plan, "\n")
		switch name {
		case "qLocationsFound", "qLocationRows":
			// One descent per pair, or a range of the primary key.
			if !strings.Contains(all, "USING PRIMARY KEY (key=? AND record_id=?)") && !strings.Contains(all, "USING PRIMARY KEY ((key,record_id)>(?,?))") {
				t.Errorf("%s does not search the index by its primary key:\n%s", name, all)
			}
		case "qStrayKeys":
			// One pass over the keys in their order, each record by its
			// rowid.
			if strings.Contains(all, "TEMP B-TREE") || !strings.Contains(all, "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)") {
				t.Errorf("%s sorts or scans the records:\n%s", name, all)
			}
			t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
			continue
		case "qLocationRowsFirst":
			// A scan in the primary key's order, which LIMIT stops.
			if strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("%s sorts:\n%s", name, all)
			}
		}
		if name != "qLocationRowsFirst" && strings.Contains(all, "SCAN locations") {
			t.Errorf("%s scans the location index:\n%s", name, all)
		}
		// The keys by the partial index keys_record, or by their primary
		// key: a scan of the table for each page made Verify quadratic.
		if strings.Contains(all, "SCAN keys") || strings.Contains(all, "SCAN k ") || strings.HasSuffix(all, "SCAN k") {
			t.Errorf("%s scans the keys table:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// queryPlan returns the details of EXPLAIN QUERY PLAN for q with args, as
// the reader pool runs it.
func queryPlan(t *testing.T, st *Store, q string, args ...any) []string {
	t.Helper()
	rows, err := st.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestPredecessorsPlan: a page of a record's predecessors is a range of
// the partial index of successor keys, (key, rowid) after the cursor, in
// its order: however many withdrawn records name one successor, a page
// reads no more rows than it returns.
func TestPredecessorsPlan(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := strings.Join(queryPlan(t, st, sqlText[qPredecessors], "urn:example:a", 5, 10), "\n")
	if !strings.Contains(plan, "USING INDEX records_successor (successor_key=? AND rowid>?)") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("qPredecessors does not read a range of records_successor in its order:\n%s", plan)
	}
}
