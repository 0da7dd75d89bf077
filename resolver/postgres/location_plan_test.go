package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver/postgres"
)

// TestRecordsByLocationPlan: the records listing a location past a cursor
// are a range of the location index's primary key (key, record_id) that
// starts at the cursor (its Index Cond), read in its order
// and each record found by its primary key, both in the generic plan a
// prepared statement ends up with and in the custom plans of its first
// executions (which know that one record in ten lists the location): no
// scan of the records or locations, no sort, and a nested loop (a merge
// join scans the records from the lowest ID), so that LIMIT stops the
// range however many records list the location and whichever they are.
func TestRecordsByLocationPlan(t *testing.T) {
	// 100,000 records, each listing a location of its own; one in ten
	// lists https://popular.example/ too, and one in three is withdrawn.
	conn := planConn(t,
		`INSERT INTO records (urn, key, aliases, loc_urls, loc_types, loc_labels, loc_keys, metadata, status, redirect, successor, reason,
				authority_id, created, updated)
			SELECT 'urn:example:' || s, 'urn:example:' || s, '{}', '{}', '{}', '{}', '{}', '\x7b7d',
				CASE WHEN s % 3 = 0 THEN 'withdrawn' ELSE 'active' END, 303, '', '', 1, now(), now()
			FROM generate_series(1, 100000) s`,
		`INSERT INTO locations (key, record_id) SELECT 'https://example.org/' || id, id FROM records`,
		`INSERT INTO locations (key, record_id) SELECT 'https://popular.example/', id FROM records WHERE id % 10 = 0`,
		`ANALYZE records`,
		`ANALYZE locations`,
		`PREPARE by_location AS `+postgres.QRecordsByLocation,
		`PREPARE by_location_active AS `+postgres.QRecordsByLocationActive)
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if _, err := conn.Exec(context.Background(), "SET plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for name, execute := range map[string]string{
			"qRecordsByLocation":       "by_location('https://popular.example/', 50000, 101)",
			"qRecordsByLocationActive": "by_location_active('https://popular.example/', 50000, 101)",
		} {
			plan := genericPlan(t, conn, execute)
			all := strings.Join(plan, "\n")
			if !strings.Contains(all, "Limit") || !strings.Contains(all, "Nested Loop") || !strings.Contains(all, "Index Only Scan using locations_pkey") || !strings.Contains(all, "record_id >") ||
				!strings.Contains(all, "Index Scan using records_pkey") || strings.Contains(all, "Sort") || strings.Contains(all, "Seq Scan") {
				t.Errorf("%s (%s) does not read a range of locations_pkey in its order:\n%s", name, mode, all)
			}
			t.Logf("%s (%s):\n  %s", name, mode, strings.Join(plan, "\n  "))
		}
	}
}

// TestDuplicateLocationsPlan: the records of each duplicate location are
// read as RecordsByLocation reads them, a range of locations_pkey cut by
// its own Limit (one more than a Duplicate holds), each record by its
// primary key: however many records list a popular location, a page of
// duplicates reads at most 101 of its rows for their names.
func TestDuplicateLocationsPlan(t *testing.T) {
	conn := planConn(t,
		`INSERT INTO records (urn, key, aliases, loc_urls, loc_types, loc_labels, loc_keys, metadata, status, redirect, successor, reason,
				authority_id, created, updated)
			SELECT 'urn:example:' || s, 'urn:example:' || s, '{}', '{}', '{}', '{}', '{}', '\x7b7d',
				CASE WHEN s % 3 = 0 THEN 'withdrawn' ELSE 'active' END, 303, '', '', 1, now(), now()
			FROM generate_series(1, 20000) s`,
		`INSERT INTO locations (key, record_id) SELECT 'https://example.org/' || (id / 2), id FROM records`,
		`INSERT INTO locations (key, record_id) SELECT 'https://popular.example/', id FROM records WHERE id % 10 = 0`,
		`ANALYZE records`,
		`ANALYZE locations`,
		`PREPARE dups AS `+postgres.QDuplicateKeys,
		`PREPARE dups_active AS `+postgres.QDuplicateKeysActive)
	for name, execute := range map[string]string{
		"duplicateKeys":       "dups('', 1000, 101)",
		"duplicateKeysActive": "dups_active('', 1000, 101)",
	} {
		plan := genericPlan(t, conn, execute)
		// The names' subquery: a range of locations_pkey whose key is the
		// duplicate's (key = d.key), under a Limit of its own, each
		// record by records_pkey.
		bounded := false
		for i, line := range plan {
			if strings.Contains(line, "Index Cond: (key = ") && strings.Contains(plan[i-1], "Index Only Scan using locations_pkey") {
				bounded = slices.ContainsFunc(planAncestors(plan, i-1), func(a string) bool { return strings.HasPrefix(a, "Limit") })
			}
		}
		if all := strings.Join(plan, "\n"); !bounded || !strings.Contains(all, "Index Scan using records_pkey") {
			t.Errorf("%s does not read each location's records as a bounded range of locations_pkey:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
}

// planAncestors returns the nodes above line i of an EXPLAIN's text (the
// lines less indented before it, nearest first), each trimmed of its
// indentation and arrow.
func planAncestors(plan []string, i int) []string {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ->")) }
	var out []string
	for j, in := i-1, indent(plan[i]); j >= 0; j-- {
		if d := indent(plan[j]); d < in && !strings.Contains(plan[j], ":") {
			out = append(out, strings.TrimLeft(plan[j], " ->"))
			in = d
		}
	}
	return out
}
