package postgres_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/urn"
)

// TestStaleSuccessorsPlan: a page of the records whose successor key is
// to be computed reads ranges of the partial index records_successor_stale
// (successor_version, id), one for the records with no version and one
// for each older version, each in ID order, in the generic plan a
// prepared statement ends up with: no scan of the records, no sort. The
// records are as PostgreSQL's schema 3 leaves them: the version NULL in
// every row, with a successor or not.
func TestStaleSuccessorsPlan(t *testing.T) {
	// 200,000 records, one in a hundred withdrawn with a successor: of
	// those, a third with no key, a third with an older one, a third
	// current; every other record has no version.
	conn := planConn(t,
		`INSERT INTO records (urn, aliases, loc_urls, loc_types, metadata, status, redirect, successor, reason, authority_id,
				created, updated, successor_key, successor_version)
			SELECT 'urn:example:' || s, '{}', '{}', '{}', '\x7b7d', 'active', 303,
				CASE WHEN s % 100 = 0 THEN 'urn:example:next' ELSE '' END, '', 1, now(), now(),
				CASE WHEN s % 300 IN (100, 200) THEN 'urn:example:next' END,
				CASE WHEN s % 300 = 100 THEN 1 WHEN s % 300 = 200 THEN `+strconv.Itoa(urn.KeyVersion)+` END
			FROM generate_series(1, 200000) s`,
		`ANALYZE records`,
		`PREPARE unkeyed AS `+postgres.QSuccessorsUnkeyed,
		`PREPARE of_version AS `+postgres.QSuccessorsOfVersion,
		`PREPARE predecessors AS `+postgres.QPredecessors)
	for name, execute := range map[string]string{
		"qSuccessorsUnkeyed":   "unkeyed(1000, 500)",
		"qSuccessorsOfVersion": "of_version(1, 1000, 500)",
	} {
		plan := genericPlan(t, conn, execute)
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "Index Scan using records_successor_stale") || strings.Contains(all, "Sort") {
			t.Errorf("%s does not read a range of records_successor_stale in its order:\n%s", name, all)
		}
		t.Logf("%s:\n  %s", name, strings.Join(plan, "\n  "))
	}
	// The records a record replaces: for each key a range of
	// records_successor_key in ID order, cut at the limit; the sort is of
	// at most limit rows a key, after the cursor. (2,000 records name
	// urn:example:next.)
	plan := genericPlan(t, conn, `predecessors('{urn:example:next,urn:example:other}', 1000, 102)`)
	all := strings.Join(plan, "\n")
	if !strings.Contains(all, "Index Scan using records_successor_key") || strings.Contains(all, "Seq Scan on records") {
		t.Errorf("qPredecessors does not read records_successor_key in its order:\n%s", all)
	}
	t.Logf("qPredecessors:\n  %s", strings.Join(plan, "\n  "))
}
