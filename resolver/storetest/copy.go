package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// RunCopy checks resolver.Copy from a store of one backend into an empty
// store of another (or the same), whose New must return a resolver.Loader:
// the target then holds what the source does, its history ends in the same
// head and verifies, every record reads the same through a Service (as
// the API shows it), with the same keys, retired ones included, the
// tokens authenticate as they did, the rules are the same, and writes go
// on after the copied head with IDs that collide with none of the
// source's (a removed rule's included).
func RunCopy(t *testing.T, from, to Backend) {
	c := ctx(t)
	src := from.New(t)
	s := copySource(t, src)

	dst, ok := to.New(t).(resolver.Loader)
	if !ok {
		t.Fatalf("the target store %T is no resolver.Loader", dst)
	}
	var pages int
	prog, err := resolver.Copy(c, src, dst, resolver.CopyOptions{Page: 2, Progress: func(resolver.CopyProgress) { pages++ }})
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	srcHead, _ := src.Head(c)
	if prog.Head != srcHead.Seq || prog.Entries != srcHead.Seq || prog.Records != int64(len(s.names)) || pages < 3 {
		t.Errorf("Copy's progress %+v after %d pages; the source's head is %d, with %d records", prog, pages, srcHead.Seq, len(s.names))
	}
	dstHead, err := dst.Head(c)
	if err != nil || dstHead.Seq != srcHead.Seq || !bytes.Equal(dstHead.Hash, srcHead.Hash) || !dstHead.Time.Equal(srcHead.Time) {
		t.Fatalf("the target's head is %d %x %v (%v), the source's %d %x %v", dstHead.Seq, dstHead.Hash, dstHead.Time, err, srcHead.Seq, srcHead.Hash, srcHead.Time)
	}
	sameLog(t, src, dst)

	svc := resolver.New(dst, resolver.Options{})
	if rep, err := svc.VerifyAll(c, nil); err != nil || !rep.AdminToken {
		t.Fatalf("VerifyAll on the target: %+v, %v", rep, err)
	}
	for _, n := range s.names {
		a, b := shown(t, s.svc, n), shown(t, svc, n)
		if a != b {
			t.Errorf("%s: the target shows\n%s\nthe source\n%s", n, b, a)
		}
	}
	for _, id := range s.ids {
		ka, _ := src.Keys(c, id)
		kb, err := dst.Keys(c, id)
		if err != nil || !slices.Equal(ka, kb) {
			t.Errorf("record %d's keys: the target holds %+v (%v), the source %+v", id, kb, err, ka)
		}
	}
	if _, err := svc.Lookup(c, urn.MustParse(s.retired)); !errors.Is(err, resolver.ErrReserved) {
		t.Errorf("the retired alias %s on the target: %v, want it reserved", s.retired, err)
	}
	for tok, want := range s.tokens {
		p, err := svc.Authenticate(c, tok)
		if fmt.Sprint(p, err) != fmt.Sprint(want.p, want.err) {
			t.Errorf("token %q: the target authenticates %+v, %v; the source %+v, %v", want.label, p, err, want.p, want.err)
		}
	}
	ra, _ := s.svc.Rules(c)
	rb, err := svc.Rules(c)
	if err != nil || fmt.Sprint(ra) != fmt.Sprint(rb) {
		t.Errorf("rules: the target %v (%v), the source %v", rb, err, ra)
	}
	aa, _ := src.AccessState(c)
	ab, _ := dst.AccessState(c)
	if fmt.Sprint(aa) != fmt.Sprint(ab) {
		t.Errorf("access: the target %+v, the source %+v", ab, aa)
	}

	// Writes go on after the copied head, with fresh IDs.
	admin, err := svc.Authenticate(c, s.adminToken)
	if err != nil {
		t.Fatal(err)
	}
	maint, err := svc.Authenticate(c, s.maintToken)
	if err != nil {
		t.Fatal(err)
	}
	rec, created, err := svc.Put(c, maint, "urn:example:a-after-copy", input("https://example.org/after"))
	if err != nil || !created || rec.ID <= slices.Max(s.ids) {
		t.Fatalf("Put on the target: record %d, %v, %v; the source's IDs %v", rec.ID, created, err, s.ids)
	}
	if h, _ := dst.Head(c); h.Seq != srcHead.Seq+1 || !bytes.Equal(h.Prev, srcHead.Hash) {
		t.Errorf("the target's next entry is %d after %x, want %d after %x", h.Seq, h.Prev, srcHead.Seq+1, srcHead.Hash)
	}
	if _, _, err := svc.Put(c, maint, s.retired, input("https://other.example/")); resolver.KindOf(err) != resolver.KindConflict {
		t.Errorf("a Put of the retired alias on the target: %v, want a conflict", err)
	}
	r, err := svc.AddRule(c, admin, "urn:nbn:fi:", "https://fi.example/")
	if err != nil || r.ID <= s.removedRule {
		t.Errorf("AddRule on the target: rule %d (%v), the removed rule was %d: its ID must not come again", r.ID, err, s.removedRule)
	}
	a, _, err := svc.CreateAuthority(c, admin, "After", []string{"urn:example:z"})
	if err != nil || a.ID <= s.maxAuthority {
		t.Errorf("CreateAuthority on the target: %d (%v), the source's last %d", a.ID, err, s.maxAuthority)
	}
	tok, _, err := svc.AddToken(c, admin, a.ID, "new")
	if err != nil || tok.ID <= s.maxToken {
		t.Errorf("AddToken on the target: %d (%v), the source's last %d", tok.ID, err, s.maxToken)
	}
	if rep, err := svc.VerifyAll(c, nil); err != nil {
		t.Fatalf("VerifyAll on the target after writes: %+v, %v", rep, err)
	}

	// A target that is not empty is refused, and left alone.
	before, _ := dst.Head(c)
	if _, err := resolver.Copy(c, src, dst, resolver.CopyOptions{}); !errors.Is(err, resolver.ErrNotEmpty) {
		t.Errorf("Copy into a store that holds data: %v, want ErrNotEmpty", err)
	}
	if after, _ := dst.Head(c); after.Seq != before.Seq {
		t.Errorf("a refused copy changed the target: head %d, was %d", after.Seq, before.Seq)
	}

	// A source written during the copy fails it: the pages would mix
	// states from before and after the write.
	dst2 := to.New(t).(resolver.Loader)
	maintSrc, err := s.svc.Authenticate(c, s.maintToken)
	if err != nil {
		t.Fatal(err)
	}
	wrote := false
	_, err = resolver.Copy(c, src, dst2, resolver.CopyOptions{Page: 2, Progress: func(resolver.CopyProgress) {
		if !wrote {
			wrote = true
			if _, _, err := s.svc.Put(c, maintSrc, "urn:example:a-during-copy", input("https://example.org/during")); err != nil {
				t.Errorf("Put on the source: %v", err)
			}
		}
	}})
	if !errors.Is(err, resolver.ErrSourceChanged) {
		t.Errorf("Copy from a source written meanwhile: %v, want ErrSourceChanged", err)
	}
}

// copied is what RunCopy wrote into the source.
type copied struct {
	svc                    *resolver.Service
	names                  []string // every record's name
	ids                    []int64
	retired                string // an alias dropped
	adminToken, maintToken string
	tokens                 map[string]authResult // every token, revoked ones too, with what it authenticates as
	removedRule            int64
	maxAuthority, maxToken int64
}

type authResult struct {
	label string
	p     resolver.Principal
	err   error
}

// copySource fills st through a Service, with every kind of row a
// directory holds: a generated admin token (its hash is a setting), two
// authorities, tokens (one revoked), rules (one removed: the last, whose
// ID only the history still names), records created, changed, given
// aliases and dropping one, and withdrawn with a successor.
func copySource(t *testing.T, st resolver.Store) *copied {
	c := ctx(t)
	clk := &clock{t: t0}
	svc := resolver.New(st, resolver.Options{Clock: clk.Now})
	admTok, err := svc.EnsureAdminToken(c)
	if err != nil || admTok == "" {
		t.Fatalf("EnsureAdminToken: %q, %v", admTok, err)
	}
	s := &copied{svc: svc, adminToken: admTok, tokens: map[string]authResult{}}
	admin, err := svc.Authenticate(c, admTok)
	if err != nil {
		t.Fatal(err)
	}
	a, aTok, err := svc.CreateAuthority(c, admin, "Example", []string{"urn:example:a", "urn:isbn:"})
	if err != nil {
		t.Fatal(err)
	}
	b, bTok, err := svc.CreateAuthority(c, admin, "Other", []string{"urn:example:b"})
	if err != nil {
		t.Fatal(err)
	}
	s.maintToken = aTok
	revoked, revokedTok, err := svc.AddToken(c, admin, a.ID, "revoked one")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.RevokeToken(c, admin, a.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	last, lastTok, err := svc.AddToken(c, admin, b.ID, "bob")
	if err != nil {
		t.Fatal(err)
	}
	s.maxAuthority, s.maxToken = b.ID, last.ID
	for label, tok := range map[string]string{"admin": admTok, "a": aTok, "b": bTok, "revoked": revokedTok, "bob": lastTok, "unknown": resolver.NewToken()} {
		p, err := svc.Authenticate(c, tok)
		s.tokens[tok] = authResult{label, p, err}
	}
	if _, err := svc.AddRule(c, admin, "urn:nbn:", "https://nbn.example/"); err != nil {
		t.Fatal(err)
	}
	r2, err := svc.AddRule(c, admin, "urn:nbn:de:", "https://de.example/")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.RemoveRule(c, admin, r2.ID); err != nil {
		t.Fatal(err)
	}
	s.removedRule = r2.ID

	p, err := svc.Authenticate(c, aTok)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := svc.Authenticate(c, bTok)
	if err != nil {
		t.Fatal(err)
	}
	put := func(p resolver.Principal, name string, in resolver.RecordInput) {
		t.Helper()
		clk.t = clk.t.Add(time.Second)
		r, created, err := svc.Put(c, p, name, in)
		if err != nil {
			t.Fatalf("Put %s: %v", name, err)
		}
		if created {
			s.names, s.ids = append(s.names, name), append(s.ids, r.ID)
		}
	}
	for i := range 5 {
		put(p, fmt.Sprintf("urn:example:a%d", i), input(fmt.Sprintf("https://example.org/%d", i), "HTTP://Example.ORG:80/shared"))
	}
	in := input("https://example.org/aliased")
	in.Aliases = []string{"urn:example:a-alias1", "urn:example:a-alias2"}
	in.Metadata = json.RawMessage(`{"title":"T","n":[1,2]}`)
	in.Redirect = 307
	put(p, "urn:example:a-aliased", in)
	in.Aliases = []string{"urn:example:a-alias2"}
	put(p, "urn:example:a-aliased", in) // drops alias1: retired
	s.retired = "urn:example:a-alias1"
	put(pb, "urn:example:b1", input("https://example.net/b1"))
	put(p, "urn:isbn:9780306406157", input("https://example.org/book"))
	clk.t = clk.t.Add(time.Second)
	if _, err := svc.Withdraw(c, p, "urn:example:a0", "replaced", "urn:example:a-alias2"); err != nil {
		t.Fatal(err)
	}
	if rep, err := svc.VerifyAll(c, nil); err != nil {
		t.Fatalf("VerifyAll on the source: %+v, %v", rep, err)
	}
	return s
}

// shown is a record as the API shows it: its JSON with its predecessors.
func shown(t *testing.T, svc *resolver.Service, name string) string {
	t.Helper()
	r, err := svc.Lookup(ctx(t), urn.MustParse(name))
	if err != nil {
		return "error: " + err.Error()
	}
	if r, err = svc.WithPredecessors(ctx(t), r); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %s", r.ID, b)
}

// sameLog compares two stores' histories entry for entry.
func sameLog(t *testing.T, a, b resolver.Store) {
	t.Helper()
	ea, err := a.Log(ctx(t), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := b.Log(ctx(t), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ea) != len(eb) {
		t.Fatalf("the target's history has %d entries, the source's %d", len(eb), len(ea))
	}
	for i := range ea {
		x, y := ea[i], eb[i]
		if x.Seq != y.Seq || !x.Time.Equal(y.Time) || x.Action != y.Action || x.Subject != y.Subject || x.RecordID != y.RecordID ||
			x.AuthorityID != y.AuthorityID || x.Actor != y.Actor || !bytes.Equal(x.Data, y.Data) || !bytes.Equal(x.Prev, y.Prev) || !bytes.Equal(x.Hash, y.Hash) {
			t.Errorf("entry %d differs:\n%+v\n%+v", x.Seq, y, x)
		}
	}
}
