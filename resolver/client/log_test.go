package client

import (
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
)

// TestLogCheckerWithheld: an entry about a record must come with its data;
// only the actions the server may withhold may come without.
func TestLogCheckerWithheld(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	entry := func(prev []byte, seq int64, action, subject string, record int64, data string) LogEntry {
		e := resolver.Entry{Seq: seq, Time: at, Action: resolver.Action(action), Subject: subject, RecordID: record, Actor: "admin", Data: []byte(data)}
		h := resolver.ChainHash(prev, e)
		return LogEntry{HistoryEntry: HistoryEntry{Seq: seq, Time: at, Action: action, Subject: subject, Actor: "admin", Record: record,
			Data: []byte(data), Prev: prev, Hash: h}}
	}
	first := entry(nil, 1, "authority.create", "authority:1", 0, `{"id":1}`)
	first.Data, first.Withheld = nil, true
	for _, tc := range []struct {
		name            string
		action, subject string
		record          int64
		ok              bool
	}{
		{"a token's entry", "token.create", "authority:1", 0, true},
		{"a rule's entry", "rule.add", "rule:1", 0, true},
		{"a change to a record", "name.create", "urn:example:a", 3, false},
		{"a migration", "keys.migrate", "keys", 0, false},
		{"a record's id", "rule.add", "rule:1", 3, false},
		{"a name as subject", "rule.add", "URN:example:a", 0, false},
	} {
		c := NewLogChecker()
		if err := c.Check(first); err != nil {
			t.Fatalf("%s: the first entry: %v", tc.name, err)
		}
		e := entry(first.Hash, 2, tc.action, tc.subject, tc.record, `{}`)
		e.Data, e.Withheld = nil, true
		if err := c.Check(e); (err == nil) != tc.ok {
			t.Errorf("%s withheld: %v", tc.name, err)
		}
	}
	// Shown in full, every entry's hash is checked.
	c := NewLogChecker()
	e := entry(nil, 1, "name.create", "urn:example:a", 3, `{"urn":"urn:example:a"}`)
	e.Data = []byte(`{"urn":"urn:example:b"}`)
	if err := c.Check(e); err == nil {
		t.Error("an edited entry passed")
	}
}
