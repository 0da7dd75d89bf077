package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// testVerifyAccess: a directory whose authorities, tokens and rules went
// through every change the Service makes (created, a token added and
// revoked, an authority transferred, rules added and removed) verifies,
// and the report counts them; a token whose history entry predates the
// hash's fingerprint (an older build's) is read and counted apart.
func testVerifyAccess(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	tok, _, err := e.svc.AddToken(c, e.a, e.aID, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RevokeToken(c, e.a, e.aID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.AddToken(c, e.admin, e.aID, "carol"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.TransferAuthority(c, e.admin, e.aID, "New owner"); err != nil {
		t.Fatal(err)
	}
	r1, err := e.svc.AddRule(c, e.admin, "urn:nbn:", "https://nbn.example/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddRule(c, e.admin, "urn:nbn:de:", "https://de.example/"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RemoveRule(c, e.admin, r1.ID); err != nil {
		t.Fatal(err)
	}
	e.put(e.b, "urn:example:b1", input("https://example.org/b1"))
	rep, err := e.svc.VerifyAll(c, nil)
	// Tokens: a's first, bob, carol, the new owner's; b's first.
	if err != nil || rep.Authorities != 2 || rep.Tokens != 5 || rep.Rules != 1 || rep.UnpinnedTokens != 0 {
		t.Fatalf("VerifyAll: %+v, %v", rep, err)
	}
	// The entries record a fingerprint of each token's hash, never the
	// hash itself.
	log, err := e.store.Log(c, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	tokens := 0
	for _, en := range log {
		if en.Action != resolver.ActionTokenCreate && en.Action != resolver.ActionTokenRevoke {
			continue
		}
		tokens++
		var j map[string]any
		if err := json.Unmarshal(en.Data, &j); err != nil || len(fmt.Sprint(j["fingerprint"])) != 64 {
			t.Errorf("entry %d: %s", en.Seq, en.Data)
		}
		for _, tk := range accessState(t, e.store).Tokens {
			if strings.Contains(string(en.Data), fmt.Sprintf("%x", tk.Hash)) {
				t.Errorf("entry %d holds the hash of token %d", en.Seq, tk.ID)
			}
		}
	}
	if tokens != 5+3 { // five created; bob revoked, then a's first and carol by the transfer
		t.Errorf("%d token entries", tokens)
	}

	// A token as an older build recorded it: its public form only.
	update(t, e.store, func(tx resolver.Tx) error {
		old := resolver.Token{AuthorityID: e.aID, Label: "from before", Hash: resolver.HashToken("urikit_old"), Created: t0}
		if err := tx.InsertToken(c, &old); err != nil {
			return err
		}
		data, err := json.Marshal(old)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), "fingerprint") {
			t.Errorf("the public form of a token has its fingerprint: %s", data)
		}
		return tx.Append(c, &resolver.Entry{Time: t0, Action: resolver.ActionTokenCreate, Subject: "authority:" + strconv.FormatInt(e.aID, 10),
			AuthorityID: e.aID, Actor: "admin", Data: data})
	})
	if rep, err := e.svc.VerifyAll(c, nil); err != nil || rep.Tokens != 6 || rep.UnpinnedTokens != 1 {
		t.Fatalf("VerifyAll with a token of an older build: %+v, %v", rep, err)
	}
}

func accessState(t *testing.T, s resolver.Store) resolver.AccessState {
	t.Helper()
	st, err := s.AccessState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// testVerifyAccessTamper: authorities, tokens and rules changed without
// going through the Service (through the store's Tx, as SQL in the
// database would) are an *AccessError naming what was changed and how:
// each of these edits is real (the forged token authenticates, the widened
// authority writes names, the rule delegates lookups), and the history
// still verifies.
func testVerifyAccessTamper(t *testing.T, b Backend) {
	c := ctx(t)
	type tamper struct {
		name string
		edit func(t *testing.T, e *env) int64 // returns the ID of what it changed
		kind string
		want []string
	}
	tokenOf := func(t *testing.T, e *env, authority int64, label string) resolver.Token {
		t.Helper()
		toks, err := e.store.Tokens(c, authority)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range toks {
			if tk.Label == label {
				return tk
			}
		}
		t.Fatalf("authority %d has no token %q", authority, label)
		return resolver.Token{}
	}
	for _, tc := range []tamper{
		{"TokenForged", func(t *testing.T, e *env) int64 {
			tk := resolver.Token{AuthorityID: e.aID, Label: "mallory", Hash: resolver.HashToken("urikit_forged"), Created: t0}
			update(t, e.store, func(tx resolver.Tx) error { return tx.InsertToken(c, &tk) })
			if p, err := e.svc.Authenticate(c, "urikit_forged"); err != nil || p.AuthorityID != e.aID {
				t.Fatalf("the forged token: %+v %v", p, err)
			}
			return tk.ID
		}, "token", []string{`label "mallory"`, "no history entry created it", "acts for authority"}},
		{"TokenRevived", func(t *testing.T, e *env) int64 {
			tk, secret, err := e.svc.AddToken(c, e.a, e.aID, "bob")
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.RevokeToken(c, e.a, e.aID, tk.ID); err != nil {
				t.Fatal(err)
			}
			tk = tokenOf(t, e, e.aID, "bob")
			tk.Revoked = time.Time{}
			update(t, e.store, func(tx resolver.Tx) error { return tx.UpdateToken(c, tk) })
			if _, err := e.svc.Authenticate(c, secret); err != nil {
				t.Fatalf("the revived token: %v", err)
			}
			return tk.ID
		}, "token", []string{"it is valid in the tokens table, but history entry", "revoked it at"}},
		{"TokenHashReplaced", func(t *testing.T, e *env) int64 {
			tk := tokenOf(t, e, e.aID, "Example")
			tk.Hash = resolver.HashToken("urikit_mine")
			update(t, e.store, func(tx resolver.Tx) error { return tx.UpdateToken(c, tk) })
			if _, err := e.svc.Authenticate(c, "urikit_mine"); err != nil {
				t.Fatalf("the replaced token: %v", err)
			}
			return tk.ID
		}, "token", []string{"its hash in the tokens table is not the one history entry", "accepts a secret other than the one issued"}},
		{"TokenMoved", func(t *testing.T, e *env) int64 {
			tk := tokenOf(t, e, e.b.AuthorityID, "Other") // b's, moved to a
			tk.AuthorityID = e.aID
			update(t, e.store, func(tx resolver.Tx) error { return tx.UpdateToken(c, tk) })
			return tk.ID
		}, "token", []string{"it belongs to authority", "in the tokens table but to authority"}},
		{"AuthorityWidened", func(t *testing.T, e *env) int64 {
			a, err := e.store.Authority(c, e.b.AuthorityID)
			if err != nil {
				t.Fatal(err)
			}
			a.Prefixes = append(a.Prefixes, "urn:nbn:")
			update(t, e.store, func(tx resolver.Tx) error { return tx.UpdateAuthority(c, a) })
			if _, _, err := e.svc.Put(c, e.b, "urn:nbn:de:101-hijacked", input("https://example.org/x")); err != nil {
				t.Fatalf("a name under the widened prefix: %v", err)
			}
			return a.ID
		}, "authority", []string{`its prefixes are ["urn:example:b" "urn:nbn:"] in the authorities table but ["urn:example:b"] in history entry`}},
		{"AuthorityForged", func(t *testing.T, e *env) int64 {
			a := resolver.Authority{Name: "Mallory", Prefixes: []string{"urn:nbn:"}, Created: t0, Updated: t0}
			update(t, e.store, func(tx resolver.Tx) error { return tx.InsertAuthority(c, &a) })
			return a.ID
		}, "authority", []string{`"Mallory"`, "no history entry created it"}},
		{"AuthorityRenamed", func(t *testing.T, e *env) int64 {
			a, err := e.store.Authority(c, e.aID)
			if err != nil {
				t.Fatal(err)
			}
			a.Name = "Someone else"
			update(t, e.store, func(tx resolver.Tx) error { return tx.UpdateAuthority(c, a) })
			return a.ID
		}, "authority", []string{`its name is "Someone else" in the authorities table but "Example"`}},
		{"RuleAdded", func(t *testing.T, e *env) int64 {
			r := resolver.Rule{Prefix: "urn:example:a", Target: "https://evil.example/", Created: t0}
			update(t, e.store, func(tx resolver.Tx) error { return tx.InsertRule(c, &r) })
			if got, ok, err := e.svc.Rule(c, urn.MustParse("urn:example:a1")); err != nil || !ok || got.Target != r.Target {
				t.Fatalf("the added rule: %+v %v %v", got, ok, err)
			}
			return r.ID
		}, "rule", []string{"urn:example:a to https://evil.example/", "no history entry added it"}},
		{"RuleRemoved", func(t *testing.T, e *env) int64 {
			r, err := e.svc.AddRule(c, e.admin, "urn:nbn:de:", "https://de.example/")
			if err != nil {
				t.Fatal(err)
			}
			update(t, e.store, func(tx resolver.Tx) error { return tx.DeleteRule(c, r.ID) })
			return r.ID
		}, "rule", []string{"added it (urn:nbn:de: to https://de.example/), but the rules table has no row for it"}},
		{"RuleRetargeted", func(t *testing.T, e *env) int64 {
			r, err := e.svc.AddRule(c, e.admin, "urn:nbn:de:", "https://de.example/")
			if err != nil {
				t.Fatal(err)
			}
			n := resolver.Rule{Prefix: r.Prefix, Target: "https://evil.example/", Created: r.Created}
			update(t, e.store, func(tx resolver.Tx) error {
				if err := tx.DeleteRule(c, r.ID); err != nil {
					return err
				}
				return tx.InsertRule(c, &n)
			})
			return n.ID // a new ID: the Tx replaces a rule by removing and adding
		}, "rule", []string{"urn:nbn:de: to https://evil.example/", "no history entry added it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, b)
			e.put(e.a, "urn:example:a1", input("https://example.org/1"))
			if _, err := e.svc.Verify(c, nil); err != nil {
				t.Fatalf("before: %v", err)
			}
			id := tc.edit(t, e)
			n, err := e.svc.Verify(c, nil)
			var ae *resolver.AccessError
			if !errors.As(err, &ae) || !resolver.IsAccessError(err) || resolver.IsChainError(err) || resolver.IsStateError(err) {
				t.Fatalf("Verify after the edit: %d entries, %v", n, err)
			}
			if head, _ := e.store.Head(c); n != head.Seq {
				t.Errorf("the chain was checked to entry %d of %d", n, head.Seq)
			}
			if ae.Kind != tc.kind || ae.ID != id {
				t.Errorf("names %s %d, want %s %d: %v", ae.Kind, ae.ID, tc.kind, id, err)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("%s %d", tc.kind, id)) {
				t.Errorf("%q does not start with what it is about", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			// Never a token's secret or hash, whatever the edit.
			for _, tk := range accessState(t, e.store).Tokens {
				if strings.Contains(err.Error(), fmt.Sprintf("%x", tk.Hash)) {
					t.Errorf("%q shows the hash of token %d", err, tk.ID)
				}
			}
			for _, secret := range []string{"urikit_forged", "urikit_mine", e.aToken} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("%q shows a secret", err)
				}
			}
		})
	}
}

// testVerifyLocations: the location index of a directory whose records
// list locations in every way (several, equivalent ones that share a
// row, one shared with another record, changed by an update) verifies
// and is counted row by row; a location whose key is not its URL's normal
// form, indexed under that key (through the store's Tx), is a
// *StateError naming the record, the location and both keys, after L2N
// answers the record for a URL it does not list.
func testVerifyLocations(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a1", input("https://example.org/1", "HTTPS://EXAMPLE.ORG:443/1", "https://mirror.example/1"))
	e.put(e.a, "urn:example:a2", input("https://example.org/1", "https://example.org/2"))
	e.put(e.a, "urn:example:a3", input("https://example.org/3"))
	r3, _ := e.put(e.a, "urn:example:a3", input("https://example.org/3-moved", "http://example.org/3"))
	rep, err := e.svc.VerifyAll(c, nil)
	if err != nil || rep.Records != 3 || rep.Locations != 2+2+2 {
		t.Fatalf("VerifyAll: %+v, %v", rep, err)
	}
	if n, err := e.store.LocationCount(c); err != nil || n != 6 {
		t.Fatalf("LocationCount: %d, %v", n, err)
	}
	// On a live directory, what others commit while VerifyAll runs is no
	// difference: a token added after the authorities were read, a record
	// added after the records were (the count of the index then goes with
	// a history that moved, and the index is read through).
	var calls int
	rep, err = e.svc.VerifyAll(c, func(r resolver.VerifyReport) {
		calls++
		switch {
		case calls == 1:
			if _, _, err := e.svc.AddToken(c, e.a, e.aID, "meanwhile"); err != nil {
				t.Error(err)
			}
		case r.Records > 0 && calls < 100:
			calls = 100
			e.put(e.a, "urn:example:a4", input("https://example.org/4"))
		}
	})
	// The record comes after the page that was read: a later page has it.
	if err != nil || calls < 100 || rep.Records != 4 || rep.Tokens != 2 {
		t.Fatalf("VerifyAll with writes meanwhile: %+v, %d calls, %v", rep, calls, err)
	}
	update(t, e.store, func(tx resolver.Tx) error {
		r3.Locations[1].Key = "https://evil.example/"
		return tx.UpdateRecord(c, r3)
	})
	if recs, err := e.svc.ByLocation(c, "https://evil.example/"); err != nil || len(recs) != 1 || recs[0].ID != r3.ID {
		t.Fatalf("L2N after the edit: %+v %v", recs, err)
	}
	_, err = e.svc.Verify(c, nil)
	var se *resolver.StateError
	if !errors.As(err, &se) || se.RecordID != r3.ID || se.URN != "urn:example:a3" {
		t.Fatalf("Verify after the edit: %v", err)
	}
	want := `locations[1] ("http://example.org/3") is indexed under "https://evil.example/", but its URL normalizes to "http://example.org/3"`
	if !strings.Contains(se.Reason, want) {
		t.Errorf("%q lacks %q", se.Reason, want)
	}
}

// testVerifyReads: the reads Verify makes of a store beyond RecordStates'
// records and keys: the location index, a record's rows of it, and the
// authorities, tokens and rules, each in one snapshot with the head.
func testVerifyReads(t *testing.T, b Backend) {
	s := b.New(t)
	c := ctx(t)
	// Keys are URLs here: the contract is about what is stored.
	r1 := insert(t, s, sampleRecord("urn:example:r1", "https://b.example/", "https://a.example/"))
	r2 := sampleRecord("urn:example:r2", "https://a.example/", "https://c.example/")
	r2.Locations[1].Key = r2.Locations[0].Key // two locations, one row
	r2 = insert(t, s, r2)
	insert(t, s, sampleRecord("urn:example:r3")) // no location
	sts, err := s.RecordStates(c, 0, 10)
	if err != nil || len(sts) != 3 {
		t.Fatalf("RecordStates: %+v %v", sts, err)
	}
	for i, want := range [][]string{{"https://a.example/", "https://b.example/"}, {"https://a.example/"}, nil} {
		if !slices.Equal(sts[i].Locations, want) {
			t.Errorf("record %d: Locations %q, want %q", sts[i].ID, sts[i].Locations, want)
		}
	}
	if n, err := s.LocationCount(c); err != nil || n != 3 {
		t.Fatalf("LocationCount: %d %v", n, err)
	}
	wantRows := []resolver.LocationRow{
		{Key: "https://a.example/", RecordID: r1.ID, Listed: true},
		{Key: "https://a.example/", RecordID: r2.ID, Listed: true},
		{Key: "https://b.example/", RecordID: r1.ID, Listed: true},
	}
	var got []resolver.LocationRow
	var after *resolver.LocationRow
	for range 10 {
		page, err := s.LocationRows(c, after, 2)
		if err != nil || len(page) > 2 {
			t.Fatalf("LocationRows: %+v %v", page, err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
		after = &page[len(page)-1]
	}
	if !slices.Equal(got, wantRows) {
		t.Fatalf("LocationRows: %+v\nwant %+v", got, wantRows)
	}
	// An update moves the record's rows.
	update(t, s, func(tx resolver.Tx) error {
		r1.Locations = r1.Locations[:1]
		return tx.UpdateRecord(c, r1)
	})
	if n, err := s.LocationCount(c); err != nil || n != 2 {
		t.Fatalf("LocationCount after an update: %d %v", n, err)
	}
	if sts, err := s.RecordStates(c, 0, 1); err != nil || !slices.Equal(sts[0].Locations, []string{"https://b.example/"}) {
		t.Fatalf("RecordStates after an update: %+v %v", sts, err)
	}

	// Authorities, tokens of every authority, rules, with the head.
	a := resolver.Authority{Name: "A", Prefixes: []string{"urn:example:a", "urn:isbn:"}, Created: t0, Updated: t0}
	bAuth := resolver.Authority{Name: "B", Prefixes: []string{"urn:example:b"}, Created: t0, Updated: t0}
	var toks []resolver.Token
	var rule resolver.Rule
	update(t, s, func(tx resolver.Tx) error {
		for _, au := range []*resolver.Authority{&a, &bAuth} {
			if err := tx.InsertAuthority(c, au); err != nil {
				return err
			}
		}
		for i, owner := range []int64{bAuth.ID, a.ID, bAuth.ID} {
			tk := resolver.Token{AuthorityID: owner, Label: fmt.Sprint("t", i), Hash: resolver.HashToken(fmt.Sprint("secret", i)), Created: t0}
			if i == 1 {
				tk.Revoked = t0
			}
			if err := tx.InsertToken(c, &tk); err != nil {
				return err
			}
			toks = append(toks, tk)
		}
		rule = resolver.Rule{Prefix: "urn:nbn:", Target: "https://nbn.example/", Created: t0}
		if err := tx.InsertRule(c, &rule); err != nil {
			return err
		}
		return tx.Append(c, &resolver.Entry{Time: t0, Action: resolver.ActionRuleAdd, Subject: "rule:1", Actor: "admin", Data: []byte(`{}`)})
	})
	st, err := s.AccessState(c)
	if err != nil {
		t.Fatal(err)
	}
	if st.Head != 1 || len(st.Authorities) != 2 || st.Authorities[0].ID != a.ID || !slices.Equal(st.Authorities[0].Prefixes, a.Prefixes) ||
		st.Authorities[1].ID != bAuth.ID || !st.Authorities[1].Updated.Equal(t0) || len(st.Tokens) != 3 || len(st.Rules) != 1 {
		t.Fatalf("AccessState: %+v", st)
	}
	if r := st.Rules[0]; r.ID != rule.ID || r.Prefix != rule.Prefix || r.Target != rule.Target || !r.Created.Equal(t0) {
		t.Fatalf("AccessState's rule: %+v, want %+v", r, rule)
	}
	for i, tk := range st.Tokens {
		w := toks[i]
		if tk.ID != w.ID || tk.AuthorityID != w.AuthorityID || tk.Label != w.Label || string(tk.Hash) != string(w.Hash) ||
			!tk.Created.Equal(w.Created) || !tk.Revoked.Equal(w.Revoked) {
			t.Errorf("token %d: %+v, want %+v", i, tk, w)
		}
	}
	// Inside a transaction, as outside, and with its own writes.
	update(t, s, func(tx resolver.Tx) error {
		if err := tx.DeleteRule(c, rule.ID); err != nil {
			return err
		}
		st, err := tx.AccessState(c)
		if err == nil && (len(st.Rules) != 0 || len(st.Tokens) != 3 || st.Head != 1) {
			t.Errorf("AccessState in a tx: %+v", st)
		}
		if n, err := tx.LocationCount(c); err != nil || n != 2 {
			t.Errorf("LocationCount in a tx: %d %v", n, err)
		}
		if rows, err := tx.LocationRows(c, nil, 10); err != nil || len(rows) != 2 {
			t.Errorf("LocationRows in a tx: %+v %v", rows, err)
		}
		return err
	})
}
