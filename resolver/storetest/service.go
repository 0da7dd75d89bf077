package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// RunService checks the Service's rules over a store made by b.
func RunService(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"Authentication", testAuthentication},
		{"Authorities", testAuthorityRules},
		{"PutCreatesReplacesIdempotent", testPut},
		{"PutRejectsBadInput", testPutInvalid},
		{"Ownership", testOwnership},
		{"Aliases", testAliases},
		{"WithdrawnNamesAreNeverReused", testWithdraw},
		{"EquivalentNamesRace", testRace},
		{"PreconditionsRace", testPreconditions},
		{"PutMany", testPutMany},
		{"AsOf", testAsOf},
		{"ClockGoesBackwards", testClockBackwards},
		{"HistoryVerifies", testVerify},
		{"StateVerifies", testVerifyState},
		{"StateEditsAreFound", testVerifyTamper},
		{"AccessVerifies", testVerifyAccess},
		{"AccessEditsAreFound", testVerifyAccessTamper},
		{"AdminTokenIsPinned", testVerifyAdminToken},
		{"EnvironmentAdminTokenIsRecorded", testVerifyAdminEnvironment},
		{"AdminTokenRotates", testAdminTokenRotation},
		{"LocationKeyVersionIsPinned", testVerifyLocationKeyVersion},
		{"LocationIndexVerifies", testVerifyLocations},
		{"Migrate", testMigrate},
		{"Predecessors", testPredecessors},
		{"ManyPredecessors", testManyPredecessors},
		{"MigrateSuccessorKeys", testMigrateSuccessors},
		{"MigrateMissingSuccessorKeys", testMigrateMissingSuccessorKeys},
		{"SuccessorKeyEditsAreFound", testVerifySuccessorKey},
		{"ByLocationAndDuplicates", testByLocation},
		{"Tokens", testTokens},
		{"Rules", testRules},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

// clock is a settable time source for the Service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond) // every change gets its own instant
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// env is a Service over a fresh store with one authority ("Example",
// owning urn:example:a and urn:isbn:) and one more ("Other", urn:example:b).
type env struct {
	t      *testing.T
	store  resolver.Store
	svc    *resolver.Service
	clock  *clock
	admin  resolver.Principal
	a, b   resolver.Principal
	aID    int64
	aToken string
}

const adminToken = "test-admin-token"

func newEnv(t *testing.T, b Backend) *env {
	e := &env{t: t, store: b.New(t), clock: &clock{t: t0}}
	e.svc = resolver.New(e.store, resolver.Options{AdminToken: adminToken, Clock: e.clock.Now})
	e.admin = e.auth(adminToken)
	a, tok, err := e.svc.CreateAuthority(ctx(t), e.admin, "Example", []string{"urn:example:a", "urn:isbn:"})
	if err != nil {
		t.Fatal(err)
	}
	e.aID, e.aToken, e.a = a.ID, tok, e.auth(tok)
	_, tok, err = e.svc.CreateAuthority(ctx(t), e.admin, "Other", []string{"urn:example:b"})
	if err != nil {
		t.Fatal(err)
	}
	e.b = e.auth(tok)
	return e
}

func (e *env) auth(tok string) resolver.Principal {
	e.t.Helper()
	p, err := e.svc.Authenticate(ctx(e.t), tok)
	if err != nil {
		e.t.Fatalf("Authenticate: %v", err)
	}
	return p
}

func input(urls ...string) resolver.RecordInput {
	in := resolver.RecordInput{}
	for _, u := range urls {
		in.Locations = append(in.Locations, resolver.Location{URL: u})
	}
	return in
}

func (e *env) put(p resolver.Principal, name string, in resolver.RecordInput) (resolver.Record, bool) {
	e.t.Helper()
	r, created, err := e.svc.Put(ctx(e.t), p, name, in)
	if err != nil {
		e.t.Fatalf("Put %s: %v", name, err)
	}
	return r, created
}

func (e *env) lookup(name string) (resolver.Record, error) {
	return e.svc.Lookup(ctx(e.t), urn.MustParse(name))
}

// wantKind checks err's Kind, and for a conflict the record it names.
func wantKind(t *testing.T, what string, err error, k resolver.Kind, record ...string) *resolver.Error {
	t.Helper()
	if got := resolver.KindOf(err); got != k {
		t.Fatalf("%s: %v (kind %v), want kind %v", what, err, got, k)
	}
	var re *resolver.Error
	if !errors.As(err, &re) {
		t.Fatalf("%s: %T is not a *resolver.Error", what, err)
	}
	if len(record) > 0 && re.Record != record[0] {
		t.Fatalf("%s: conflict names %q, want %q", what, re.Record, record[0])
	}
	return re
}

func (e *env) history(name string) []resolver.Entry {
	e.t.Helper()
	var all []resolver.Entry
	for after := int64(0); ; {
		_, h, err := e.svc.History(ctx(e.t), urn.MustParse(name), after, 2)
		if err != nil {
			e.t.Fatal(err)
		}
		all = append(all, h...)
		if len(h) < 2 {
			return all
		}
		after = h[len(h)-1].Seq
	}
}

func testAuthentication(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	_, err := e.svc.Authenticate(c, "")
	wantKind(t, "empty token", err, resolver.KindUnauthorized)
	_, err = e.svc.Authenticate(c, "urikit_not-a-token")
	wantKind(t, "unknown token", err, resolver.KindUnauthorized)
	if e.a.Admin || e.a.AuthorityID != e.aID || !e.admin.Admin {
		t.Fatalf("principals: %+v %+v", e.a, e.admin)
	}

	// A generated admin token: made once, stored hashed, works afterwards.
	s := resolver.New(e.store, resolver.Options{})
	tok, err := s.EnsureAdminToken(c)
	if err != nil || tok == "" {
		t.Fatalf("EnsureAdminToken: %q %v", tok, err)
	}
	if again, err := resolver.New(e.store, resolver.Options{}).EnsureAdminToken(c); err != nil || again != "" {
		t.Fatalf("second EnsureAdminToken made another token: %q %v", again, err)
	}
	if p, err := resolver.New(e.store, resolver.Options{}).Authenticate(c, tok); err != nil || !p.Admin {
		t.Fatalf("generated admin token: %+v %v", p, err)
	}
	v, err := e.store.Setting(c, "admin-token-sha256")
	if err != nil || v == tok || len(v) != 64 {
		t.Fatalf("the admin token is not stored as a hash: %q %v", v, err)
	}
}

func testAuthorityRules(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	_, _, err := e.svc.CreateAuthority(c, e.a, "Mine", []string{"urn:mine:"})
	wantKind(t, "maintainer creates an authority", err, resolver.KindForbidden)
	for _, p := range []string{"urn:EXAMPLE:", "urn:example:a-1", "URN:isbn:978", "urn:example:"} {
		_, _, err = e.svc.CreateAuthority(c, e.admin, "Overlap", []string{p})
		wantKind(t, "overlapping prefix "+p, err, resolver.KindConflict)
	}
	re := wantKind(t, "bad prefix", func() error {
		_, _, err := e.svc.CreateAuthority(c, e.admin, "Bad", []string{"urn:nbn:de:a b"})
		return err
	}(), resolver.KindInvalid)
	if re.Field != "prefixes[0]" || re.Offset != 12 {
		t.Fatalf("bad prefix error: field %q offset %d, want prefixes[0] at 12", re.Field, re.Offset)
	}
	a, _, err := e.svc.CreateAuthority(c, e.admin, "NBN", []string{"URN:NBN:de:101-%2f"})
	if err != nil || !slices.Equal(a.Prefixes, []string{"urn:nbn:de:101-%2F"}) {
		t.Fatalf("canonical prefix: %+v %v", a.Prefixes, err)
	}
	list, err := e.svc.Authorities(c, e.admin)
	if err != nil || len(list) != 3 {
		t.Fatalf("Authorities: %d %v", len(list), err)
	}
	_, err = e.svc.Authorities(c, e.a)
	wantKind(t, "maintainer lists authorities", err, resolver.KindForbidden)
}

func testPut(t *testing.T, b Backend) {
	e := newEnv(t, b)
	in := input("https://example.org/a", "ftp://mirror.example/a")
	in.Aliases = []string{"urn:example:a-alias"}
	in.Metadata = json.RawMessage(` {"title": "A"} `)
	r, created := e.put(e.a, "urn:example:a-1", in)
	if !created || r.ID == 0 || r.URN != "urn:example:a-1" || r.Redirect != 303 || r.Status != resolver.Active ||
		string(r.Metadata) != `{"title":"A"}` || r.AuthorityID != e.aID {
		t.Fatalf("created record: %+v", r)
	}
	got, err := e.lookup("URN:EXAMPLE:a-1")
	if err != nil || got.ID != r.ID || got.Locations[0].URL != "https://example.org/a" || got.Locations[1].URL != "ftp://mirror.example/a" {
		t.Fatalf("Lookup: %+v %v", got, err)
	}
	// The same PUT again is idempotent and writes no history.
	if _, created := e.put(e.a, "urn:example:a-1", in); created {
		t.Fatal("a repeated PUT created a record")
	}
	if h := e.history("urn:example:a-1"); len(h) != 1 {
		t.Fatalf("idempotent PUT wrote history: %d entries", len(h))
	}
	// An equivalent spelling replaces the record; the first spelling stays.
	in2 := input("https://example.org/a2")
	in2.Redirect = 307
	r2, created := e.put(e.a, "urn:Example:a-1", in2)
	if created || r2.ID != r.ID || r2.URN != "urn:example:a-1" || r2.Redirect != 307 || len(r2.Locations) != 1 {
		t.Fatalf("replace: created=%v %+v", created, r2)
	}
	if got, _ := e.lookup("urn:example:a-1"); got.Locations[0].URL != "https://example.org/a2" || !got.Created.Equal(r.Created) || !got.Updated.After(r.Updated) {
		t.Fatalf("after replace: %+v", got)
	}
	h := e.history("urn:example:a-1")
	if len(h) != 2 || h[0].Action != resolver.ActionNameCreate || h[1].Action != resolver.ActionNameUpdate || h[1].Actor != e.a.Actor() {
		t.Fatalf("history: %+v", h)
	}
	// ISBNs are found by their namespace's equivalence.
	e.put(e.a, "urn:isbn:9780395363416", input("https://books.example/1"))
	if got, err := e.lookup("urn:ISBN:0-395-36341-1"); err != nil || got.URN != "urn:isbn:9780395363416" {
		t.Fatalf("ISBN-10 spelling: %+v %v", got, err)
	}
	_, err = e.lookup("urn:example:a-none")
	wantKind(t, "unknown name", err, resolver.KindNotFound)
}

func testPutInvalid(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	cases := []struct {
		name   string
		in     resolver.RecordInput
		field  string
		offset int
	}{
		{"urn:example:a 1", input("http://x/"), "urn", 13},
		{"urn:example:a1?+s=I2L", input("http://x/"), "urn", 14},
		{"urn:example:a1#frag", input("http://x/"), "urn", 14},
		{"urn:example:a1", input(), "locations", -1},
		{"urn:example:a1", input("http://x/", "not a uri"), "locations[1].url", 3},
		{"urn:example:a1", input("http://x/ y"), "locations[0].url", 9},
		{"urn:example:a1", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/", Type: "text/"}}}, "locations[0].type", -1},
		{"urn:example:a1", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/"}}, Redirect: 200}, "redirect", -1},
		{"urn:example:a1", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/"}}, Metadata: json.RawMessage(`[1]`)}, "metadata", -1},
		{"urn:example:a1", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/"}}, Aliases: []string{"URN:EXAMPLE:a1"}}, "aliases[0]", -1},
		{"urn:example:a1", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://x/"}}, Aliases: []string{"urn:x"}}, "aliases[0]", 5},
		{"urn:isbn:9780395363417", input("http://x/"), "urn", -1}, // bad check digit
		// Schemes whose URI is content run or rendered by the browser,
		// in any case of letters.
		{"urn:example:a1", input("javascript:alert(document.domain)"), "locations[0].url", 0},
		{"urn:example:a1", input("http://x/", "JavaScript:alert(1)"), "locations[1].url", 0},
		{"urn:example:a1", input("VBScript:MsgBox(1)"), "locations[0].url", 0},
		{"urn:example:a1", input("data:text/html,%3Cscript%3Ealert(1)%3C/script%3E"), "locations[0].url", 0},
		{"urn:example:a1", input("DATA:image/svg+xml;base64,PHN2Zz48L3N2Zz4="), "locations[0].url", 0},
	}
	for _, tc := range cases {
		_, _, err := e.svc.Put(c, e.a, tc.name, tc.in)
		re := wantKind(t, fmt.Sprintf("Put(%q, %+v)", tc.name, tc.in), err, resolver.KindInvalid)
		if re.Field != tc.field || re.Offset != tc.offset {
			t.Errorf("Put(%q): field %q offset %d, want %q %d (%v)", tc.name, re.Field, re.Offset, tc.field, tc.offset, err)
		}
	}
	res, err := e.svc.PutMany(c, e.a, []resolver.NamedInput{
		{URN: "urn:example:a2", RecordInput: input("javascript:alert(1)")},
		{URN: "urn:example:a3", RecordInput: input("http://ok/")},
	})
	if err != nil || resolver.KindOf(res[0].Err) != resolver.KindInvalid || res[1].Err != nil {
		t.Fatalf("PutMany with a javascript: location: %+v %v", res, err)
	}
	if recs, _ := e.store.Records(c, 0, 10); len(recs) != 1 || recs[0].URN != "urn:example:a3" {
		t.Fatalf("invalid PUTs stored %d records", len(recs))
	}
	_, err = e.svc.Withdraw(c, e.a, "urn:example:a3", "", "javascript:alert(1)")
	if re := wantKind(t, "a javascript: successor", err, resolver.KindInvalid); re.Field != "successor" {
		t.Errorf("a javascript: successor: field %q", re.Field)
	}
	// Schemes that merely begin like one of them are locations like any.
	e.put(e.a, "urn:example:a4", input("javascripts://x/", "database:x", "datax:y"))

	// A record stored before the rule keeps its location and resolves as
	// it did; the next write must replace the location; a withdrawal,
	// which changes no location, goes through.
	InsertLegacy(t, e.store, resolver.Record{URN: "urn:example:a-old", AuthorityID: e.aID,
		Locations: []resolver.Location{{URL: "javascript:alert(1)"}}})
	if got, err := e.lookup("urn:example:a-old"); err != nil || got.Locations[0].URL != "javascript:alert(1)" {
		t.Fatalf("a record stored before the rule: %+v %v", got, err)
	}
	_, _, err = e.svc.Put(c, e.a, "urn:example:a-old", input("javascript:alert(1)"))
	wantKind(t, "the same javascript: location again", err, resolver.KindInvalid)
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a-old", "unsafe", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatal(err)
	}
}

func testOwnership(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a1", input("http://x/"))
	_, _, err := e.svc.Put(c, e.b, "urn:example:a1", input("http://evil/"))
	wantKind(t, "other authority replaces", err, resolver.KindForbidden)
	_, err = e.svc.Withdraw(c, e.b, "urn:example:a1", "", "")
	wantKind(t, "other authority withdraws", err, resolver.KindForbidden)
	_, _, err = e.svc.Put(c, e.b, "urn:example:a2", input("http://evil/"))
	wantKind(t, "other authority creates under a's prefix", err, resolver.KindForbidden)
	_, _, err = e.svc.Put(c, e.admin, "urn:example:a2", input("http://x/"))
	wantKind(t, "admin writes a name", err, resolver.KindForbidden)
	_, _, err = e.svc.Put(c, e.a, "urn:nobody:x", input("http://x/"))
	wantKind(t, "name nobody owns", err, resolver.KindForbidden)
	in := input("http://x/")
	in.Aliases = []string{"urn:example:b-stolen"}
	_, _, err = e.svc.Put(c, e.a, "urn:example:a3", in)
	wantKind(t, "alias under another authority", err, resolver.KindForbidden)
	if got, _ := e.lookup("urn:example:a1"); got.Locations[0].URL != "http://x/" {
		t.Fatalf("a refused write changed the record: %+v", got)
	}
	if _, err := e.lookup("urn:example:a2"); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("a refused write created a record: %v", err)
	}
}

func testAliases(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	in := input("http://x/")
	in.Aliases = []string{"urn:example:a-old", "urn:example:a-other"}
	r, _ := e.put(e.a, "urn:example:a1", in)
	if got, err := e.lookup("URN:example:a-old"); err != nil || got.ID != r.ID {
		t.Fatalf("alias lookup: %v", err)
	}
	// A name equivalent to another record's alias, or an alias equivalent
	// to another record's name, is a conflict naming that record.
	_, _, err := e.svc.Put(c, e.a, "urn:example:a-old", input("http://y/"))
	wantKind(t, "name = other's alias", err, resolver.KindConflict, "urn:example:a1")
	in2 := input("http://y/")
	in2.Aliases = []string{"urn:EXAMPLE:a1"}
	_, _, err = e.svc.Put(c, e.a, "urn:example:a2", in2)
	wantKind(t, "alias = other's name", err, resolver.KindConflict, "urn:example:a1")
	// A dropped alias is retired: it resolves to nothing, stays reserved.
	in.Aliases = []string{"urn:example:a-other"}
	e.put(e.a, "urn:example:a1", in)
	_, err = e.lookup("urn:example:a-old")
	wantKind(t, "retired alias", err, resolver.KindNotFound)
	in2.Aliases = []string{"urn:example:a-old"}
	_, _, err = e.svc.Put(c, e.a, "urn:example:a2", in2)
	wantKind(t, "retired alias given to another record", err, resolver.KindConflict, "urn:example:a1")
	_, _, err = e.svc.Put(c, e.a, "urn:example:a-old", input("http://y/"))
	wantKind(t, "retired alias as a name", err, resolver.KindConflict, "urn:example:a1")
	// ... and may come back to its own record.
	in.Aliases = []string{"urn:example:a-old"}
	e.put(e.a, "urn:example:a1", in)
	if got, err := e.lookup("urn:example:a-old"); err != nil || got.ID != r.ID {
		t.Fatalf("alias given back: %v", err)
	}
	_, err = e.svc.Withdraw(c, e.a, "urn:example:a-old", "", "")
	wantKind(t, "withdraw through an alias", err, resolver.KindConflict, "urn:example:a1")
}

func testWithdraw(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	in := input("http://x/")
	in.Aliases = []string{"urn:example:a-alias"}
	e.put(e.a, "urn:example:a1", in)
	_, err := e.svc.Withdraw(c, e.a, "urn:example:a1", "", "not a uri")
	wantKind(t, "bad successor", err, resolver.KindInvalid)
	// Its own successor: its name by any equivalent spelling (RFC 8141
	// §3.1: case, components), or one of its aliases. Nothing is written
	// (the history below has two entries).
	for _, succ := range []string{"urn:example:a1", "URN:Example:a1#next", "urn:example:a1?+r", "urn:example:a-alias"} {
		_, err = e.svc.Withdraw(c, e.a, "urn:example:a1", "", succ)
		if re := wantKind(t, "successor "+succ, err, resolver.KindInvalid); re.Field != "successor" {
			t.Fatalf("successor %s: field %q", succ, re.Field)
		}
	}
	w, err := e.svc.Withdraw(c, e.a, "URN:example:a1", "merged", "urn:example:a2")
	if err != nil || w.Status != resolver.Withdrawn || w.Successor != "urn:example:a2" || w.Reason != "merged" {
		t.Fatalf("Withdraw: %+v %v", w, err)
	}
	for _, name := range []string{"urn:example:a1", "urn:example:a-alias"} {
		if got, err := e.lookup(name); err != nil || got.Status != resolver.Withdrawn {
			t.Fatalf("withdrawn %s: %+v %v", name, got, err)
		}
	}
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a1", "merged", "urn:example:a2"); err != nil {
		t.Fatalf("repeating a withdrawal: %v", err)
	}
	if h := e.history("urn:example:a1"); len(h) != 2 {
		t.Fatalf("a repeated withdrawal wrote history: %+v", h)
	}
	// Withdrawing again restates the notice: the successor named later,
	// corrected, or dropped; every notice stays in the history.
	notices := []struct{ reason, successor string }{
		{"merged", "urn:example:a4"},
		{"duplicate record", "urn:example:a4"},
		{"", ""},
		{"merged", "https://example.org/a2"},
	}
	for _, n := range notices {
		w, err := e.svc.Withdraw(c, e.a, "urn:example:a-alias", n.reason, n.successor)
		if err == nil {
			t.Fatalf("withdraw through an alias: %+v", w)
		}
		w, err = e.svc.Withdraw(c, e.a, "URN:EXAMPLE:a1", n.reason, n.successor)
		if err != nil || w.Status != resolver.Withdrawn || w.Reason != n.reason || w.Successor != n.successor || w.URN != "urn:example:a1" {
			t.Fatalf("restate the notice as %+v: %+v %v", n, w, err)
		}
		got, err := e.lookup("urn:example:a-alias")
		if err != nil || got.Status != resolver.Withdrawn || got.Reason != n.reason || got.Successor != n.successor {
			t.Fatalf("after restating the notice as %+v, the alias finds %+v %v", n, got, err)
		}
	}
	_, err = e.svc.Withdraw(c, e.a, "urn:example:a1", "", "urn:example:a-alias")
	wantKind(t, "a restated notice naming the record itself", err, resolver.KindInvalid)
	_, err = e.svc.Withdraw(c, e.b, "urn:example:a1", "taken over", "urn:example:b9")
	wantKind(t, "another authority restates the notice", err, resolver.KindForbidden)
	h := e.history("urn:example:a1")
	if len(h) != 2+len(notices) {
		t.Fatalf("history after restating the notice %d times: %d entries", len(notices), len(h))
	}
	for i, n := range notices {
		var r resolver.Record
		en := h[2+i]
		if en.Action != resolver.ActionNameWithdraw || json.Unmarshal(en.Data, &r) != nil || r.Reason != n.reason || r.Successor != n.successor || r.Status != resolver.Withdrawn {
			t.Fatalf("history entry %d: %s %s", 2+i, en.Action, en.Data)
		}
		// The name as it stood then carried that notice.
		then, _, err := e.svc.LookupAsOf(c, urn.MustParse("urn:example:a1"), en.Time)
		if err != nil || then.Reason != n.reason || then.Successor != n.successor {
			t.Fatalf("as of entry %d: %+v %v", 2+i, then, err)
		}
	}
	_, _, err = e.svc.Put(c, e.a, "urn:Example:a1", input("http://new/"))
	wantKind(t, "reuse of a withdrawn name", err, resolver.KindConflict, "urn:example:a1")
	in2 := input("http://new/")
	in2.Aliases = []string{"urn:example:a-alias"}
	_, _, err = e.svc.Put(c, e.a, "urn:example:a3", in2)
	wantKind(t, "reuse of a withdrawn record's alias", err, resolver.KindConflict, "urn:example:a1")
	_, err = e.svc.Withdraw(c, e.a, "urn:example:a9", "", "")
	wantKind(t, "withdraw unknown", err, resolver.KindNotFound)
	if h[1].Action != resolver.ActionNameWithdraw {
		t.Fatalf("history: %+v", h)
	}
	// The history of restated notices is sound, and the store agrees
	// with its last entry.
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

// secondHandle returns a second handle on st's database when the backend
// has one (Backend.Again), so that a second Service stands for another
// process; else st itself.
func secondHandle(t *testing.T, b Backend, st resolver.Store) resolver.Store {
	if b.Again != nil {
		return b.Again(t, st)
	}
	return st
}

func testRace(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	// Two services stand for two processes.
	svcs := []*resolver.Service{e.svc, resolver.New(secondHandle(t, b, e.store), resolver.Options{AdminToken: adminToken})}
	spellings := []string{"urn:isbn:9780395363416", "urn:ISBN:0-395-36341-1", "URN:isbn:978-0-395-36341-6", "urn:isbn:0395363411"}
	for round := range 5 {
		var created atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := input(fmt.Sprintf("http://x/%d/%d", round, w))
				_, c1, err := svcs[w%2].Put(c, e.a, spellings[w%len(spellings)], in)
				if err != nil {
					errs <- err
					return
				}
				if c1 {
					created.Add(1)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("racing Put: %v", err)
		}
		want := int32(0)
		if round == 0 {
			want = 1
		}
		if created.Load() != want {
			t.Fatalf("round %d: %d records created by racing equivalent PUTs, want %d", round, created.Load(), want)
		}
	}
	recs, _ := e.store.Records(c, 0, 100)
	if len(recs) != 1 {
		t.Fatalf("%d records after racing equivalent names, want 1", len(recs))
	}
}

func testPutMany(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a-taken", input("http://x/"))
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a-taken", "", ""); err != nil {
		t.Fatal(err)
	}
	batch := []resolver.NamedInput{
		{URN: "urn:example:a1", RecordInput: input("http://1/")},
		{URN: "urn:example:a 2", RecordInput: input("http://2/")},       // invalid
		{URN: "urn:example:b1", RecordInput: input("http://3/")},        // not a's
		{URN: "urn:Example:a-taken", RecordInput: input("http://4/")},   // withdrawn
		{URN: "urn:example:a5", RecordInput: input("http://5/")},        // fine
		{URN: "urn:example:a1", RecordInput: input("http://1/", "h:x")}, // replaces the first
	}
	res, err := e.svc.PutMany(c, e.a, batch)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds := []resolver.Kind{0, resolver.KindInvalid, resolver.KindForbidden, resolver.KindConflict, 0, 0}
	for i, r := range res {
		if (r.Err == nil) != (wantKinds[i] == 0) || r.Err != nil && resolver.KindOf(r.Err) != wantKinds[i] {
			t.Errorf("result %d: %v, want kind %v", i, r.Err, wantKinds[i])
		}
	}
	if !res[0].Created || res[5].Created || !res[4].Created {
		t.Errorf("created flags: %v %v %v", res[0].Created, res[4].Created, res[5].Created)
	}
	if got, err := e.lookup("urn:example:a1"); err != nil || len(got.Locations) != 2 {
		t.Fatalf("a1 after batch: %+v %v", got, err)
	}
	recs, _ := e.store.Records(c, 0, 100)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	_, err = e.svc.PutMany(c, e.admin, batch[:1])
	if err != nil {
		t.Fatal(err)
	}
	// The operator (urikit import --data) writes for the owning authority.
	res, err = e.svc.PutMany(c, resolver.Operator, []resolver.NamedInput{
		{URN: "urn:example:b9", RecordInput: input("http://b/")},
		{URN: "urn:nobody:x", RecordInput: input("http://n/")},
	})
	if err != nil || res[0].Err != nil || res[0].Record.AuthorityID == e.aID || resolver.KindOf(res[1].Err) != resolver.KindForbidden {
		t.Fatalf("operator batch: %+v %v", res, err)
	}
}

func testAsOf(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	day := func(d int) time.Time { return time.Date(2027, 1, d, 12, 0, 0, 0, time.UTC) } // after newEnv's entries (t0)
	e.clock.Set(day(1))
	in := input("http://v1/")
	e.put(e.a, "urn:example:a1", in)
	e.clock.Set(day(3))
	in.Aliases = []string{"urn:example:a-alias"}
	in.Locations[0].URL = "http://v2/"
	e.put(e.a, "urn:example:a1", in)
	e.clock.Set(day(5))
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a1", "gone", ""); err != nil {
		t.Fatal(err)
	}
	name := urn.MustParse("urn:example:a1")
	for _, tc := range []struct {
		at     time.Time
		url    string
		status resolver.Status
	}{
		{day(2), "http://v1/", resolver.Active},
		{day(4), "http://v2/", resolver.Active},
		{day(6), "http://v2/", resolver.Withdrawn},
	} {
		r, ent, err := e.svc.LookupAsOf(c, name, tc.at)
		if err != nil || r.Locations[0].URL != tc.url || r.Status != tc.status || ent.Time.After(tc.at) {
			t.Errorf("as of %v: %+v %v %v", tc.at, r.Locations, r.Status, err)
		}
	}
	_, _, err := e.svc.LookupAsOf(c, name, day(1).Add(-time.Hour))
	wantKind(t, "before the name existed", err, resolver.KindNotFound)
	_, _, err = e.svc.LookupAsOf(c, urn.MustParse("urn:example:a-alias"), day(2))
	wantKind(t, "alias before it was one", err, resolver.KindNotFound)
	if r, _, err := e.svc.LookupAsOf(c, urn.MustParse("urn:example:a-alias"), day(4)); err != nil || r.URN != "urn:example:a1" {
		t.Errorf("alias as of day 4: %+v %v", r, err)
	}
}

// testClockBackwards: two Services on one store (two instances on one
// database, through a second handle when the backend has one), the second
// with a clock an hour behind, and then the first's clock stepped back.
// Every change is stamped no earlier than the entry before it, the
// record's Updated is its entry's Time, and as-of lookups still find each
// version.
func testClockBackwards(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	other := secondHandle(t, b, e.store)
	behind := &clock{t: t0.Add(-time.Hour)}
	svc2 := resolver.New(other, resolver.Options{AdminToken: adminToken, Clock: behind.Now})

	e.clock.Set(t0.Add(time.Hour))
	v1, _ := e.put(e.a, "urn:example:a1", input("http://v1/"))
	in := input("http://v2/")
	v2, _, err := svc2.Put(c, e.a, "urn:example:a1", in) // an hour behind
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := svc2.Put(c, e.a, "urn:example:a2", input("http://x/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc2.AddRule(c, e.admin, "urn:nbn:de:", "https://dnb.example/"); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(t0.Add(-24 * time.Hour)) // stepped back a day
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a2", "gone", ""); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.PutMany(c, e.a, []resolver.NamedInput{
		{URN: "urn:example:a3", RecordInput: input("http://3/")},
		{URN: "urn:example:a1", RecordInput: input("http://v3/")},
	})
	if err != nil || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("PutMany: %+v %v", res, err)
	}

	log, err := e.store.Log(c, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(log); i++ {
		if log[i].Time.Before(log[i-1].Time) {
			t.Fatalf("entry %d (%s) at %v, before entry %d at %v", log[i].Seq, log[i].Action, log[i].Time, log[i-1].Seq, log[i-1].Time)
		}
	}
	first := log[0].Time
	for _, en := range log {
		if en.RecordID == 0 {
			continue
		}
		var snap resolver.Record
		if err := json.Unmarshal(en.Data, &snap); err != nil {
			t.Fatal(err)
		}
		if !snap.Updated.Equal(en.Time) {
			t.Errorf("entry %d at %v records a change made at %v", en.Seq, en.Time, snap.Updated)
		}
	}
	if !v2.Updated.Equal(v1.Updated) || !r2.Created.Equal(v1.Updated) {
		t.Errorf("writes an hour behind stamped %v and %v, want the head's %v", v2.Updated, r2.Created, v1.Updated)
	}
	if first.After(v1.Updated) || !log[len(log)-1].Time.Equal(v1.Updated) {
		t.Errorf("times from %v to %v, want all at or before %v and the last at it", first, log[len(log)-1].Time, v1.Updated)
	}
	// As of the time of the first version, the latest of the entries
	// stamped then is the answer; as of a minute before, nothing.
	r, ent, err := e.svc.LookupAsOf(c, urn.MustParse("urn:example:a1"), v1.Updated)
	if err != nil || r.Locations[0].URL != "http://v3/" || !ent.Time.Equal(v1.Updated) {
		t.Errorf("as of %v: %+v %v", v1.Updated, r.Locations, err)
	}
	_, _, err = e.svc.LookupAsOf(c, urn.MustParse("urn:example:a1"), v1.Updated.Add(-time.Minute))
	wantKind(t, "as of before the name existed", err, resolver.KindNotFound)
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatal(err)
	}
}

func testVerify(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	for i := range 5 {
		e.put(e.a, fmt.Sprintf("urn:example:a%d", i), input("http://x/"))
	}
	n, err := e.svc.Verify(c, nil)
	head, _ := e.store.Head(c)
	if err != nil || n != head.Seq || n < 9 {
		t.Fatalf("Verify: %d entries (head %d), %v", n, head.Seq, err)
	}
}

// testVerifyState: a directory that went through every kind of change
// (bulk and single puts, aliases added, dropped and re-added, a
// withdrawal, a key migration, equivalent spellings) verifies, state and
// all, and the report counts every record and key; records and keys are
// read a page at a time.
func testVerifyState(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	var batch []resolver.NamedInput
	for i := range 1203 { // more than one page of Verify
		batch = append(batch, resolver.NamedInput{URN: fmt.Sprintf("urn:example:a-bulk-%04d", i), RecordInput: input(fmt.Sprintf("https://example.org/%d", i))})
	}
	if res, err := e.svc.PutMany(c, e.a, batch); err != nil || res[0].Err != nil {
		t.Fatalf("PutMany: %v", err)
	}
	in := input("https://example.org/book", "https://mirror.example/book")
	in.Metadata = json.RawMessage(`{"t":"<b>&amp;</b>\u2028", "n": [1, 2]}`)
	in.Aliases = []string{"urn:example:a-alias1", "urn:example:a-alias2"}
	e.put(e.a, "urn:ISBN:0-395-36341-1", in)
	in.Aliases = []string{"urn:example:a-alias2"} // alias1 retired
	e.put(e.a, "urn:isbn:978-0-395-36341-6", in)  // an equivalent spelling replaces it
	in.Aliases = []string{"urn:example:a-alias1", "urn:example:a-alias2"}
	e.put(e.a, "urn:isbn:9780395363416", in) // alias1 back
	in.Aliases = nil
	e.put(e.a, "urn:isbn:9780395363416", in) // both retired
	e.put(e.a, "urn:example:a-gone", input("https://example.org/gone"))
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a-gone", "gone", "urn:isbn:9780395363416"); err != nil {
		t.Fatal(err)
	}
	rep, err := e.svc.VerifyAll(c, nil)
	head, _ := e.store.Head(c)
	if err != nil || rep.Entries != head.Seq || rep.Records != 1205 || rep.Keys != 1205+2 {
		t.Fatalf("VerifyAll: %+v (head %d), %v", rep, head.Seq, err)
	}
	var pages int
	if _, err := e.svc.VerifyAll(c, func(resolver.VerifyReport) { pages++ }); err != nil || pages < 4 {
		t.Fatalf("VerifyAll reported %d pages, %v", pages, err)
	}
	// RecordStates itself: IDs in order, pages that join up, each state
	// whole.
	sts, err := e.store.RecordStates(c, 0, 1000)
	if err != nil || len(sts) != 1000 {
		t.Fatalf("RecordStates: %d, %v", len(sts), err)
	}
	rest, err := e.store.RecordStates(c, sts[999].ID, 1000)
	if err != nil || len(rest) != 205 {
		t.Fatalf("RecordStates, second page: %d, %v", len(rest), err)
	}
	all := append(slices.Clone(sts), rest...)
	for i, st := range all {
		if i > 0 && st.ID <= all[i-1].ID {
			t.Fatalf("IDs out of order at %d: %d after %d", i, st.ID, all[i-1].ID)
		}
		if !st.HasRecord || st.Record.ID != st.ID || st.Latest.RecordID != st.ID || len(st.Keys) == 0 || st.Keys[0].RecordID != st.ID {
			t.Fatalf("state %d: %+v", i, st)
		}
		if !slices.IsSortedFunc(st.Keys, func(a, b resolver.Key) int { return strings.Compare(a.Key, b.Key) }) {
			t.Fatalf("keys of %d not in key order: %+v", st.ID, st.Keys)
		}
	}
	book, _ := e.lookup("urn:isbn:9780395363416")
	for _, st := range rest {
		if st.ID == book.ID && (len(st.Keys) != 3 || st.Latest.Action != resolver.ActionNameUpdate || st.Record.URN != "urn:ISBN:0-395-36341-1") {
			t.Fatalf("the book's state: %+v", st)
		}
	}
	if sts, err := e.store.RecordStates(c, rest[len(rest)-1].ID, 10); err != nil || len(sts) != 0 {
		t.Fatalf("after the last: %+v %v", sts, err)
	}
	// Inside a transaction, as outside.
	update(t, e.store, func(tx resolver.Tx) error {
		in, err := tx.RecordStates(c, 0, 3)
		if err == nil && (len(in) != 3 || in[0].ID != sts[0].ID || len(in[0].Keys) != len(sts[0].Keys)) {
			t.Errorf("RecordStates in a tx: %+v", in)
		}
		return err
	})
}

// testVerifyTamper: a change made to records or keys without going
// through the Service (here through the store's Tx, as SQL in the
// database would) is a *StateError naming the record and what differs;
// the history itself still verifies.
func testVerifyTamper(t *testing.T, b Backend) {
	type tamper struct {
		name string
		edit func(e *env, rec resolver.Record) error // through a Tx of e.store
		want []string
	}
	c := ctx(t)
	withTx := func(e *env, fn func(tx resolver.Tx) error) error { return e.store.Update(c, fn) }
	for _, tc := range []tamper{
		{"LocationChanged", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				r.Locations[1].URL, r.Locations[1].Key = "https://evil.example/", "https://evil.example/"
				return tx.UpdateRecord(c, r)
			})
		}, []string{`locations[1].url is "https://evil.example/" in the records table but "https://mirror.example/book"`}},
		{"WithdrawnBehindItsBack", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				r.Status = resolver.Withdrawn
				return tx.UpdateRecord(c, r)
			})
		}, []string{`status is "withdrawn" in the records table but "active"`}},
		{"MetadataChanged", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				r.Metadata = json.RawMessage(`{"t":"forged"}`)
				return tx.UpdateRecord(c, r)
			})
		}, []string{"metadata is"}},
		{"AliasAdded", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				return tx.PutKey(c, resolver.Key{Key: "urn:example:a-forged", Spelling: "urn:example:a-forged", RecordID: r.ID, Role: resolver.RoleAlias, Version: urn.KeyVersion})
			})
		}, []string{`"urn:example:a-forged"`, "an alias of it, which the history does not"}},
		{"RetiredAliasForged", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				return tx.PutKey(c, resolver.Key{Key: "urn:example:a-squat", Spelling: "urn:example:a-squat", RecordID: r.ID, Role: resolver.RoleRetired, Version: urn.KeyVersion})
			})
		}, []string{`reserves "urn:example:a-squat"`, "never gave it that alias"}},
		{"AliasKeyRemoved", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error { return tx.DeleteKey(c, "urn:example:a-alias") })
		}, []string{`no key for its alias "urn:example:a-alias"`}},
		{"RetiredAliasKeyRemoved", func(e *env, r resolver.Record) error {
			// The alias dropped through the Service stays reserved to the
			// record; deleting its row would free the name for anyone.
			in := input("https://example.org/book", "https://mirror.example/book")
			in.Metadata = json.RawMessage(`{"t":"x"}`)
			e.put(e.a, "urn:example:a1", in)
			if _, err := e.svc.Verify(c, nil); err != nil {
				return fmt.Errorf("verify after the alias was dropped: %w", err)
			}
			return withTx(e, func(tx resolver.Tx) error { return tx.DeleteKey(c, "urn:example:a-alias") })
		}, []string{`gave it the alias "urn:example:a-alias", which it has since dropped`, "could be registered again"}},
		{"NameKeyRemoved", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error { return tx.DeleteKey(c, r.Key) })
		}, []string{"no key for its name"}},
		{"KeyRewritten", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				return tx.PutKey(c, resolver.Key{Key: "urn:example:a-alias", Spelling: "urn:example:a-other", RecordID: r.ID, Role: resolver.RoleAlias, Version: urn.KeyVersion})
			})
		}, []string{`"urn:example:a-other"`}},
		{"RecordWithoutHistory", func(e *env, r resolver.Record) error {
			return withTx(e, func(tx resolver.Tx) error {
				n := r
				n.URN, n.Key, n.Aliases = "urn:example:a-smuggled", "urn:example:a-smuggled", nil
				if err := tx.InsertRecord(c, &n); err != nil {
					return err
				}
				return tx.PutKey(c, resolver.Key{Key: n.Key, Spelling: n.URN, RecordID: n.ID, Role: resolver.RoleName, Version: urn.KeyVersion})
			})
		}, []string{"urn:example:a-smuggled", "no history entry is about this record"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, b)
			in := input("https://example.org/book", "https://mirror.example/book")
			in.Aliases = []string{"urn:example:a-alias"}
			in.Metadata = json.RawMessage(`{"t":"x"}`)
			e.put(e.a, "urn:example:a0", input("https://example.org/0"))
			r, _ := e.put(e.a, "urn:example:a1", in)
			e.put(e.a, "urn:example:a2", input("https://example.org/2"))
			if _, err := e.svc.Verify(c, nil); err != nil {
				t.Fatalf("before: %v", err)
			}
			if err := tc.edit(e, r); err != nil {
				t.Fatal(err)
			}
			n, err := e.svc.Verify(c, nil)
			var se *resolver.StateError
			if !errors.As(err, &se) || !resolver.IsStateError(err) || resolver.IsChainError(err) {
				t.Fatalf("Verify after the edit: %d entries, %v", n, err)
			}
			head, _ := e.store.Head(c)
			if n != head.Seq {
				t.Errorf("the chain was checked to entry %d of %d", n, head.Seq)
			}
			for _, w := range append([]string{"urn:example:a"}, tc.want...) {
				if !strings.Contains(se.Error(), w) {
					t.Errorf("%q lacks %q", se.Error(), w)
				}
			}
			if tc.name != "RecordWithoutHistory" && (se.RecordID != r.ID || se.URN != "urn:example:a1" || se.Seq == 0) {
				t.Errorf("names record %d %q entry %d, want %d urn:example:a1", se.RecordID, se.URN, se.Seq, r.ID)
			}
		})
	}
	// A key under an ID that no record has and no entry is about. SQLite
	// enforces keys.record_id as a foreign key; where the store refuses
	// it, there is nothing for Verify to find.
	t.Run("KeyOfNoRecord", func(t *testing.T) {
		e := newEnv(t, b)
		e.put(e.a, "urn:example:a1", input("https://example.org/1"))
		err := e.store.Update(c, func(tx resolver.Tx) error {
			return tx.PutKey(c, resolver.Key{Key: "urn:example:a-stray", Spelling: "urn:example:a-stray", RecordID: 1 << 40, Role: resolver.RoleName, Version: urn.KeyVersion})
		})
		if err != nil {
			t.Skipf("the store refuses a key of no record: %v", err)
		}
		_, err = e.svc.Verify(c, nil)
		var se *resolver.StateError
		if !errors.As(err, &se) || se.RecordID != 1<<40 || !strings.Contains(se.Reason, "urn:example:a-stray") {
			t.Fatalf("Verify: %v", err)
		}
	})
}

func testMigrate(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	r, _ := e.put(e.a, "urn:ISBN:0-395-36341-1", input("http://x/"))
	e.put(e.a, "urn:example:a1", input("http://y/"))
	// As an older build would have stored it: the lexical key, version 0.
	oldKey := "urn:isbn:0-395-36341-1"
	update(t, e.store, func(tx resolver.Tx) error {
		if err := tx.DeleteKey(c, r.Key); err != nil {
			return err
		}
		rec, err := tx.Record(c, r.ID)
		if err != nil {
			return err
		}
		rec.Key = oldKey
		if err := tx.UpdateRecord(c, rec); err != nil {
			return err
		}
		return tx.PutKey(c, resolver.Key{Key: oldKey, Spelling: r.URN, RecordID: r.ID, Role: resolver.RoleName, Version: 0})
	})
	e.svc.Invalidate()
	if _, err := e.lookup("urn:isbn:9780395363416"); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("the old key should hide the record before migration: %v", err)
	}
	rep, err := e.svc.Migrate(c)
	if err != nil || rep.Checked != 1 || rep.Rekeyed != 1 || len(rep.Conflicts) != 0 {
		t.Fatalf("Migrate: %+v %v", rep, err)
	}
	got, err := e.lookup("urn:isbn:9780395363416")
	if err != nil || got.ID != r.ID || got.Key != r.Key {
		t.Fatalf("after Migrate: %+v %v", got, err)
	}
	if rep, err := e.svc.Migrate(c); err != nil || rep.Checked != 0 {
		t.Fatalf("second Migrate: %+v %v", rep, err)
	}
	if _, err := e.svc.Verify(c, nil); err != nil {
		t.Fatal(err)
	}
}

func testByLocation(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	e.put(e.a, "urn:example:a1", input("https://example.org/foo", "http://mirror/x"))
	e.put(e.a, "urn:example:a2", input("HTTPS://EXAMPLE.ORG:443/foo"))
	recs, more, err := e.svc.ByLocation(c, "https://Example.ORG/%7efoo/../foo", false)
	if err != nil || len(recs) != 2 || recs[0].URN != "urn:example:a1" || more {
		t.Fatalf("ByLocation: %d, more %v, %v", len(recs), more, err)
	}
	_, _, err = e.svc.ByLocation(c, "no scheme", false)
	wantKind(t, "ByLocation of a non-URI", err, resolver.KindInvalid)
	dups := func(withdrawn bool) []resolver.Duplicate {
		t.Helper()
		var ds []resolver.Duplicate
		if err := e.svc.Duplicates(c, withdrawn, func(d resolver.Duplicate) error { ds = append(ds, d); return nil }); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	if ds := dups(false); len(ds) != 1 || ds[0].Key != "https://example.org/foo" || len(ds[0].URNs) != 2 {
		t.Fatalf("Duplicates: %+v", ds)
	}
	// Once one of the two is withdrawn, the location is shared by one
	// active record: no duplicate, unless withdrawn records are asked for.
	if _, err := e.svc.Withdraw(c, e.a, "urn:example:a2", "moved", ""); err != nil {
		t.Fatal(err)
	}
	if ds := dups(false); len(ds) != 0 {
		t.Fatalf("Duplicates of active records, one withdrawn: %+v", ds)
	}
	if ds := dups(true); len(ds) != 1 || !slices.Equal(ds[0].URNs, []string{"urn:example:a1", "urn:example:a2"}) ||
		!slices.Equal(ds[0].Statuses, []resolver.Status{resolver.Active, resolver.Withdrawn}) {
		t.Fatalf("Duplicates with withdrawn records: %+v", ds)
	}
}

func testTokens(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	tok2, secret2, err := e.svc.AddToken(c, e.a, e.aID, "bob")
	if err != nil || tok2.ID == 0 || secret2 == "" {
		t.Fatalf("AddToken by a maintainer: %+v %v", tok2, err)
	}
	_, _, err = e.svc.AddToken(c, e.b, e.aID, "mallory")
	wantKind(t, "other authority adds a token", err, resolver.KindForbidden)
	bob := e.auth(secret2)
	e.put(bob, "urn:example:a1", input("http://x/"))
	err = e.svc.RevokeToken(c, e.b, e.aID, tok2.ID)
	wantKind(t, "other authority revokes", err, resolver.KindForbidden)
	if err := e.svc.RevokeToken(c, e.a, e.aID, tok2.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Authenticate(c, secret2)
	wantKind(t, "revoked token", err, resolver.KindUnauthorized)
	_, toks, err := e.svc.Authority(c, e.a, e.aID)
	if err != nil || len(toks) != 2 {
		t.Fatalf("Authority: %v %v", toks, err)
	}
	err = e.svc.RevokeToken(c, e.a, e.aID, toks[0].ID)
	wantKind(t, "revoking the last token", err, resolver.KindConflict)
	err = e.svc.RevokeToken(c, e.a, e.aID, 999999)
	wantKind(t, "revoking an unknown token", err, resolver.KindNotFound)

	// A transfer: old tokens stop working, the new owner's works, names
	// and history stay.
	_, _, err = e.svc.TransferAuthority(c, e.a, e.aID, "New owner")
	wantKind(t, "maintainer transfers", err, resolver.KindForbidden)
	a, newSecret, err := e.svc.TransferAuthority(c, e.admin, e.aID, "New owner")
	if err != nil || a.Name != "New owner" {
		t.Fatalf("Transfer: %+v %v", a, err)
	}
	_, err = e.svc.Authenticate(c, e.aToken)
	wantKind(t, "old owner's token after transfer", err, resolver.KindUnauthorized)
	owner := e.auth(newSecret)
	if _, created := e.put(owner, "urn:example:a1", input("http://y/")); created {
		t.Fatal("transfer lost the record")
	}
	if h := e.history("urn:example:a1"); len(h) != 2 {
		t.Fatalf("history after transfer: %d entries", len(h))
	}
}

func testRules(t *testing.T, b Backend) {
	e := newEnv(t, b)
	c := ctx(t)
	_, err := e.svc.AddRule(c, e.a, "urn:nbn:", "https://x/")
	wantKind(t, "maintainer adds a rule", err, resolver.KindForbidden)
	_, err = e.svc.AddRule(c, e.admin, "urn:nbn:", "ftp://x/")
	wantKind(t, "rule to ftp", err, resolver.KindInvalid)
	_, err = e.svc.AddRule(c, e.admin, "nbn:", "https://x/")
	wantKind(t, "rule without urn:", err, resolver.KindInvalid)
	r1, err := e.svc.AddRule(c, e.admin, "URN:NBN:", "https://nbn.example/")
	if err != nil || r1.Prefix != "urn:nbn:" {
		t.Fatalf("AddRule: %+v %v", r1, err)
	}
	r2, err := e.svc.AddRule(c, e.admin, "urn:nbn:de:", "https://de.example/")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.AddRule(c, e.admin, "urn:NBN:de:", "https://other.example/")
	wantKind(t, "duplicate rule", err, resolver.KindConflict)
	for name, want := range map[string]int64{"urn:nbn:de:101-1": r2.ID, "URN:NBN:fi:x": r1.ID, "urn:nbn:DE:x": r1.ID} {
		r, ok, err := e.svc.Rule(c, urn.MustParse(name))
		if err != nil || !ok || r.ID != want {
			t.Errorf("Rule(%s) = %+v %v %v, want rule %d", name, r, ok, err, want)
		}
	}
	if _, ok, _ := e.svc.Rule(c, urn.MustParse("urn:isbn:1")); ok {
		t.Error("a rule matched a name outside every prefix")
	}
	if err := e.svc.RemoveRule(c, e.admin, r2.ID); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "remove twice", e.svc.RemoveRule(c, e.admin, r2.ID), resolver.KindNotFound)
	if rules, _ := e.svc.Rules(c); len(rules) != 1 {
		t.Fatalf("rules: %+v", rules)
	}
}
