package resolver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/uri"
)

// FuzzAccessReplay: Verify's replay of the history's entries about
// authorities, tokens and rules, and its comparison with the tables. The
// entries the Service writes (whatever names, labels, prefixes and targets
// they hold) replay into exactly the state stored with them; a change to
// any one field of what is stored is an *AccessError about that item and
// naming the field, that never shows a token's hash; and an entry holding
// anything at all is replayed or refused with an *AccessError, never a
// panic.
func FuzzAccessReplay(f *testing.F) {
	f.Add("Example", "urn:example:", "carol", "https://nbn.example/", []byte(`{"id":1}`), uint8(0), uint8(0))
	f.Add("É \u2028", "urn:nbn:de:101-", "", "http://h/p", []byte(`{"id":"x"}`), uint8(5), uint8(13))
	f.Add("a", "urn:x", "<b>", "https://x/%20", []byte("\xff"), uint8(9), uint8(7))
	f.Fuzz(func(t *testing.T, name, prefix, label, target string, junk []byte, action, edit uint8) {
		// Anything an entry may hold is replayed or refused, never a panic.
		actions := []Action{ActionAuthorityCreate, ActionAuthorityTransfer, ActionTokenCreate, ActionTokenRevoke, ActionRuleAdd, ActionRuleRemove}
		r := newAccessReplay(100)
		err := r.apply(Entry{Seq: 1, Action: actions[int(action)%len(actions)], Subject: "rule:1", Data: junk})
		if err != nil && !IsAccessError(err) {
			t.Fatalf("apply of %q: %T %v", junk, err, err)
		}

		for _, s := range []string{name, prefix, label, target} {
			if !isText(s) {
				return // the Service stores UTF-8 text without NUL only
			}
		}
		at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
		a := Authority{ID: 3, Name: name, Prefixes: []string{prefix, prefix + "x"}, Created: at, Updated: at}
		b := Authority{ID: 4, Name: name + "b", Prefixes: []string{"urn:other:"}, Created: at, Updated: at.Add(time.Second)}
		tk := Token{ID: 5, AuthorityID: 3, Label: label, Hash: HashToken("secret-" + label), Created: at}
		gone := Token{ID: 6, AuthorityID: 4, Label: "gone", Hash: HashToken("other"), Created: at, Revoked: at.Add(time.Minute)}
		ru := Rule{ID: 7, Prefix: prefix, Target: target, Created: at}
		removed := Rule{ID: 8, Prefix: prefix + "y", Target: target, Created: at}

		// The entries as the Service writes them (appendAuthority,
		// appendToken, AddRule, RemoveRule), in a history's order.
		var log []Entry
		add := func(action Action, v any) {
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			log = append(log, Entry{Seq: int64(len(log) + 1), Action: action, Data: data})
		}
		add(ActionAuthorityCreate, a)
		add(ActionAuthorityCreate, Authority{ID: 4, Name: "before", Prefixes: b.Prefixes, Created: at, Updated: at})
		add(ActionAuthorityTransfer, b)
		add(ActionTokenCreate, tk.entryJSON())
		live := gone
		live.Revoked = time.Time{}
		add(ActionTokenCreate, live.entryJSON())
		add(ActionTokenRevoke, gone.entryJSON())
		add(ActionRuleAdd, ru)
		add(ActionRuleAdd, removed)
		add(ActionRuleRemove, removed)
		r = newAccessReplay(int64(len(log)))
		for _, e := range log {
			if err := r.apply(e); err != nil {
				t.Fatalf("entry %d (%s): %v", e.Seq, e.Action, err)
			}
		}
		st := AccessState{Head: int64(len(log)), Authorities: []Authority{a, b}, Tokens: []Token{tk, gone}, Rules: []Rule{ru}}
		n, err := r.compare(st)
		// A target a rule change refuses today is counted, not a fault.
		want := accessCounts{authorities: 2, tokens: 2, rules: 1, locationVersion: 1}
		if terr := CheckRuleTarget(target); terr != nil {
			want.oldRules = 1
			want.oldRuleExample = fmt.Sprintf("rule 7, %s → %s: %v", prefix, target, terr)
		}
		if err != nil || n != want {
			t.Fatalf("the Service's own entries: %+v %v", n, err)
		}

		// One field changed in the tables.
		mut := AccessState{Head: st.Head, Authorities: slices.Clone(st.Authorities), Tokens: slices.Clone(st.Tokens), Rules: slices.Clone(st.Rules)}
		var kind, field string
		var id int64
		switch edit % 13 {
		case 0:
			mut.Authorities[0].Prefixes = append(slices.Clone(a.Prefixes), "urn:stolen:")
			kind, id, field = "authority", 3, "its prefixes are"
		case 1:
			mut.Authorities[1].Name += "!"
			kind, id, field = "authority", 4, "its name is"
		case 2:
			mut.Authorities[1].Updated = at
			kind, id, field = "authority", 4, "updated is"
		case 3:
			mut.Authorities = append(mut.Authorities, Authority{ID: 9, Name: "forged", Prefixes: []string{"urn:nbn:"}})
			kind, id, field = "authority", 9, "no history entry created it"
		case 4:
			mut.Authorities = mut.Authorities[:1]
			kind, id, field = "authority", 4, "has no row for it"
		case 5:
			mut.Tokens[0].Hash = HashToken("mine")
			kind, id, field = "token", 5, "its hash"
		case 6:
			mut.Tokens[1].Revoked = time.Time{}
			kind, id, field = "token", 6, "it is valid in the tokens table"
		case 7:
			mut.Tokens[0].AuthorityID = 4
			kind, id, field = "token", 5, "it belongs to authority 4"
		case 8:
			mut.Tokens[0].Label += "!"
			kind, id, field = "token", 5, "its label is"
		case 9:
			mut.Tokens = append(mut.Tokens, Token{ID: 10, AuthorityID: 3, Label: "mallory", Hash: HashToken("forged")})
			kind, id, field = "token", 10, "no history entry created it"
		case 10:
			mut.Rules[0].Target += "evil/"
			kind, id, field = "rule", 7, "its target is"
		case 11:
			mut.Rules = append(mut.Rules, removed)
			kind, id, field = "rule", 8, "no history entry added it"
		case 12:
			mut.Rules = nil
			kind, id, field = "rule", 7, "has no row for it"
		}
		_, err = r.compare(mut)
		var ae *AccessError
		if !errors.As(err, &ae) || ae.Kind != kind || ae.ID != id || !strings.Contains(ae.Reason, field) {
			t.Fatalf("edit %d: %v, want %s %d: %q", edit%13, err, kind, id, field)
		}
		for _, tok := range append(mut.Tokens, tk, gone) {
			if strings.Contains(err.Error(), fmt.Sprintf("%x", tok.Hash)) || strings.Contains(err.Error(), string(tok.Hash)) {
				t.Fatalf("%q shows a token's hash", err)
			}
		}
	})
}

// FuzzLocationDiff: Verify's comparison of a record's rows of the location
// index with its locations. The rows the Service writes (one per distinct
// normalized key) agree; a row missing, a row under a key none of the
// locations has, a row twice, and a location whose stored key is not its
// URL's normal form are each a difference that says which.
func FuzzLocationDiff(f *testing.F) {
	f.Add("https://example.org/a", "HTTPS://EXAMPLE.ORG:443/a", "http://mirror/x", uint8(0))
	f.Add("ftp://h/p?q#f", "urn:isbn:1", "https://x/%7e", uint8(1))
	f.Add("http://a/b/../c", "mailto:a@b", "javascript:x", uint8(3))
	f.Fuzz(func(t *testing.T, u1, u2, u3 string, edit uint8) {
		var rec Record
		for _, raw := range []string{u1, u2, u3} {
			u, err := uri.Parse(raw)
			if err != nil {
				continue
			}
			rec.Locations = append(rec.Locations, Location{URL: raw, Key: u.Normalize(uri.SchemeBased).String()})
		}
		if len(rec.Locations) == 0 {
			return
		}
		var rows []string
		for _, l := range rec.Locations {
			rows = append(rows, l.Key)
		}
		slices.Sort(rows)
		rows = slices.Compact(rows)
		if d := diffLocations(rec, rows, schemeBasedKey); d != "" {
			t.Fatalf("the Service's rows: %s", d)
		}
		var want string
		switch edit % 4 {
		case 0:
			gone := rows[0]
			rows, want = rows[1:], "holds no row for locations["
			if !slices.ContainsFunc(rec.Locations, func(l Location) bool { return l.Key == gone }) {
				t.Fatal("a row of no location")
			}
		case 1:
			extra := "zz-not-a-key:" + rows[len(rows)-1]
			rows, want = append(rows, extra), fmt.Sprintf("holds %q for it, which is the key of none of its locations", extra)
			slices.Sort(rows)
		case 2:
			rows, want = append(rows, rows[len(rows)-1]), "for it twice"
			slices.Sort(rows)
		case 3:
			rec.Locations[0].Key += "#forged"
			want = "is indexed under"
		}
		if d := diffLocations(rec, rows, schemeBasedKey); !strings.Contains(d, want) {
			t.Fatalf("edit %d: %q lacks %q", edit%4, d, want)
		}
	})
}
