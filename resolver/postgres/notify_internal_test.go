package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestPayloads: a transaction's changed keys go out in notifications of at
// most maxPayload bytes, all but the last marked More, every key once;
// more keys than maxNotifications hold, or a key too long for one, make a
// single "everything" notification.
func TestPayloads(t *testing.T) {
	payloads := func(keys ...string) []change {
		t.Helper()
		tx := &tx{keys: map[string]bool{}, version: 7}
		for _, k := range keys {
			tx.keys[k] = true
		}
		out, err := tx.payloads(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cs := make([]change, len(out))
		for i, p := range out {
			if len(p) > maxPayload {
				t.Errorf("notification %d has %d bytes", i, len(p))
			}
			if err := json.Unmarshal([]byte(p), &cs[i]); err != nil {
				t.Fatal(err)
			}
			if cs[i].Version != 7 || cs[i].More != (i < len(out)-1) {
				t.Errorf("notification %d of %d: %s", i, len(out), p)
			}
		}
		return cs
	}
	keysOf := func(n int) []string {
		ks := make([]string, n)
		for i := range ks {
			ks[i] = fmt.Sprintf("urn:example:bench:%09d", i)
		}
		return ks
	}

	if cs := payloads("urn:example:a"); len(cs) != 1 || cs[0].All || len(cs[0].Keys) != 1 {
		t.Errorf("one key: %+v", cs)
	}
	// As many keys as maxNotifications hold: listed, each once.
	perNote := (maxPayload - 64) / (len(`"urn:example:bench:000000000"`) + 1)
	ks := keysOf(maxNotifications*perNote - 1)
	cs := payloads(ks...)
	if len(cs) != maxNotifications {
		t.Errorf("%d keys: %d notifications, want %d", len(ks), len(cs), maxNotifications)
	}
	seen := map[string]int{}
	for _, c := range cs {
		if c.All {
			t.Fatalf("%d keys: everything, want the keys", len(ks))
		}
		for _, k := range c.Keys {
			seen[k]++
		}
	}
	for _, k := range ks {
		if seen[k] != 1 {
			t.Fatalf("key %s sent %d times", k, seen[k])
		}
	}
	// An import's batch: one notification, everything.
	if cs := payloads(keysOf(10000)...); len(cs) != 1 || !cs[0].All || len(cs[0].Keys) != 0 {
		t.Errorf("10,000 keys: %d notifications, want one with all", len(cs))
	}
	if cs := payloads("urn:example:a", "urn:example:"+strings.Repeat("x", maxPayload)); len(cs) != 1 || !cs[0].All {
		t.Errorf("a key too long: %+v", cs)
	}
}
