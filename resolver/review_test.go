package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/memstore"
	"github.com/urikit/urikit/resolver/storetest"
	"github.com/urikit/urikit/urn"
)

// fixture is a Service over a fresh memstore with the admin principal.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	store *memstore.Store
	svc   *resolver.Service
	admin resolver.Principal
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), store: memstore.New()}
	f.svc = resolver.New(f.store, resolver.Options{AdminToken: "admin-secret"})
	f.admin = f.auth("admin-secret")
	return f
}

func (f *fixture) auth(tok string) resolver.Principal {
	f.t.Helper()
	p, err := f.svc.Authenticate(f.ctx, tok)
	if err != nil {
		f.t.Fatalf("Authenticate: %v", err)
	}
	return p
}

// authority creates an authority and returns its first maintainer.
func (f *fixture) authority(name string, prefixes ...string) (resolver.Authority, resolver.Principal, string) {
	f.t.Helper()
	a, tok, err := f.svc.CreateAuthority(f.ctx, f.admin, name, prefixes)
	if err != nil {
		f.t.Fatalf("CreateAuthority %s: %v", name, err)
	}
	return a, f.auth(tok), tok
}

// legacyAuthority stores an authority as a build before the equivalence
// check of PrefixesOverlap could have (its prefixes may overlap others' by
// their namespace's rules), and returns its first maintainer.
func (f *fixture) legacyAuthority(name string, prefixes ...string) (resolver.Authority, resolver.Principal) {
	f.t.Helper()
	a := resolver.Authority{Name: name, Created: time.Now(), Updated: time.Now()}
	for _, p := range prefixes {
		c, err := resolver.CanonicalPrefix(p)
		if err != nil {
			f.t.Fatal(err)
		}
		a.Prefixes = append(a.Prefixes, c)
	}
	tok := resolver.NewToken()
	err := f.store.Update(f.ctx, func(tx resolver.Tx) error {
		if err := tx.InsertAuthority(f.ctx, &a); err != nil {
			return err
		}
		return tx.InsertToken(f.ctx, &resolver.Token{AuthorityID: a.ID, Label: name, Hash: resolver.HashToken(tok), Created: a.Created})
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return a, f.auth(tok)
}

func locs(urls ...string) resolver.RecordInput {
	var in resolver.RecordInput
	for _, u := range urls {
		in.Locations = append(in.Locations, resolver.Location{URL: u})
	}
	return in
}

func (f *fixture) put(p resolver.Principal, name string, in resolver.RecordInput) resolver.Record {
	f.t.Helper()
	r, _, err := f.svc.Put(f.ctx, p, name, in)
	if err != nil {
		f.t.Fatalf("Put %s: %v", name, err)
	}
	return r
}

func (f *fixture) lookup(name string) (resolver.Record, error) {
	return f.svc.Lookup(f.ctx, urn.MustParse(name))
}

func wantKind(t *testing.T, what string, err error, k resolver.Kind) {
	t.Helper()
	if got := resolver.KindOf(err); got != k {
		t.Fatalf("%s: %v (kind %v), want kind %v", what, err, got, k)
	}
}

// A caller that changes the record Lookup gave it (a handler adding the
// q-component to a location, sorting locations by preference) must not
// change what the next caller is told: the lookup cache shares nothing
// with its callers.
func TestLookupResultIsTheCallersOwn(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	in := locs("http://one.example/", "http://two.example/")
	in.Aliases = []string{"urn:example:alias"}
	in.Metadata = []byte(`{"t":"x"}`)
	f.put(m, "urn:example:a", in)
	for range 2 { // the first lookup fills the cache, the second is a hit
		r, err := f.lookup("urn:example:a")
		if err != nil {
			t.Fatal(err)
		}
		r.Locations[0].URL = "http://mutated.example/"
		r.Aliases[0] = "urn:example:mutated"
		r.Metadata[2] = 'X'
	}
	r, err := f.lookup("urn:example:a")
	if err != nil {
		t.Fatal(err)
	}
	if r.Locations[0].URL != "http://one.example/" || r.Aliases[0] != "urn:example:alias" || string(r.Metadata) != `{"t":"x"}` {
		t.Fatalf("a caller's change reached the cache: %+v %q %s", r.Locations, r.Aliases, r.Metadata)
	}
}

// RFC 8458 makes the NBN prefix case-insensitive, so urn:nbn:DE:101-x IS
// urn:nbn:de:101-x. CreateAuthority now refuses "urn:nbn:DE:" beside
// "urn:nbn:de:101-" (TestPrefixOverlapByEquivalence), but a store written
// before it may hold both. The authority holding the case variant must
// not create (or alias) a name equivalent to one under another
// authority's prefix: it would take that name over and lock its owner out
// of it.
func TestNoNameEquivalentToAnotherAuthoritysName(t *testing.T) {
	f := newFixture(t)
	_, dnb, _ := f.authority("DNB", "urn:nbn:de:101-")
	_, ietf, _ := f.authority("IETF", "urn:ietf:rfc:")
	_, evil := f.legacyAuthority("Evil", "urn:nbn:DE:", "urn:IETF:RFC:")

	_, _, err := f.svc.Put(f.ctx, evil, "urn:nbn:DE:101-x", locs("http://evil.example/"))
	wantKind(t, "a name equivalent to one under another authority's prefix", err, resolver.KindForbidden)
	in := locs("http://evil.example/")
	in.Aliases = []string{"urn:nbn:DE:101-y"}
	_, _, err = f.svc.Put(f.ctx, evil, "urn:nbn:DE:999-z", in)
	wantKind(t, "an alias equivalent to one under another authority's prefix", err, resolver.KindForbidden)
	_, _, err = f.svc.Put(f.ctx, evil, "urn:ietf:RFC:2141", locs("http://evil.example/"))
	wantKind(t, "RFC 2648: the whole URN is case-insensitive", err, resolver.KindForbidden)
	res, err := f.svc.PutMany(f.ctx, evil, []resolver.NamedInput{{URN: "urn:nbn:DE:101-w", RecordInput: locs("http://evil.example/")}})
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, "PutMany", res[0].Err, resolver.KindForbidden)

	// The owners still register their names, and the case variant keeps
	// the names no one else owns.
	f.put(dnb, "urn:nbn:de:101-x", locs("http://dnb.example/"))
	f.put(ietf, "urn:ietf:rfc:2141", locs("http://ietf.example/"))
	f.put(evil, "urn:nbn:DE:999-z", locs("http://evil.example/"))
	for name, want := range map[string]string{"urn:nbn:de:101-x": "http://dnb.example/", "urn:nbn:de:101-w": "", "urn:IETF:rfc:2141": "http://ietf.example/"} {
		r, err := f.lookup(name)
		if want == "" {
			wantKind(t, name, err, resolver.KindNotFound)
			continue
		}
		if err != nil || r.Locations[0].URL != want {
			t.Fatalf("%s resolves to %+v (%v), want %s", name, r.Locations, err, want)
		}
	}
}

// A request authenticates before its write's transaction starts. A
// revocation, or a transfer of the authority, that commits in between
// must stop the write: otherwise a maintainer being removed keeps writing
// after the revocation was acknowledged, and can even mint a new token
// for itself that the revocation never saw.
func TestRevokedPrincipalWritesNothing(t *testing.T) {
	f := newFixture(t)
	a, m1, _ := f.authority("A", "urn:example:")
	f.put(m1, "urn:example:a", locs("http://a.example/"))
	tok2, secret2, err := f.svc.AddToken(f.ctx, m1, a.ID, "leaving")
	if err != nil {
		t.Fatal(err)
	}
	m2 := f.auth(secret2) // authenticated, then revoked before it acts
	if err := f.svc.RevokeToken(f.ctx, m1, a.ID, tok2.ID); err != nil {
		t.Fatal(err)
	}
	head, _ := f.store.Head(f.ctx)

	_, _, err = f.svc.Put(f.ctx, m2, "urn:example:a", locs("http://evil.example/"))
	wantKind(t, "Put after revocation", err, resolver.KindUnauthorized)
	_, _, err = f.svc.Put(f.ctx, m2, "urn:example:new", locs("http://evil.example/"))
	wantKind(t, "Put of a new name after revocation", err, resolver.KindUnauthorized)
	_, err = f.svc.PutMany(f.ctx, m2, []resolver.NamedInput{{URN: "urn:example:b", RecordInput: locs("http://evil.example/")}})
	wantKind(t, "PutMany after revocation", err, resolver.KindUnauthorized)
	_, err = f.svc.Withdraw(f.ctx, m2, "urn:example:a", "", "")
	wantKind(t, "Withdraw after revocation", err, resolver.KindUnauthorized)
	_, _, err = f.svc.AddToken(f.ctx, m2, a.ID, "back door")
	wantKind(t, "AddToken after revocation", err, resolver.KindUnauthorized)
	if _, _, err := f.svc.AddToken(f.ctx, m1, a.ID, "third"); err != nil {
		t.Fatal(err)
	}
	head, _ = f.store.Head(f.ctx)
	err = f.svc.RevokeToken(f.ctx, m2, a.ID, m1.TokenID)
	wantKind(t, "RevokeToken after revocation", err, resolver.KindUnauthorized)
	if h, _ := f.store.Head(f.ctx); h.Seq != head.Seq {
		t.Fatalf("a revoked token's writes appended %d history entries", h.Seq-head.Seq)
	}

	// A transfer revokes every old token: the old owner is out as well.
	_, _, err = f.svc.TransferAuthority(f.ctx, f.admin, a.ID, "New owner")
	if err != nil {
		t.Fatal(err)
	}
	head, _ = f.store.Head(f.ctx)
	_, _, err = f.svc.Put(f.ctx, m1, "urn:example:a", locs("http://old-owner.example/"))
	wantKind(t, "Put by the old owner after a transfer", err, resolver.KindUnauthorized)
	_, err = f.svc.Withdraw(f.ctx, m1, "urn:example:a", "", "")
	wantKind(t, "Withdraw by the old owner after a transfer", err, resolver.KindUnauthorized)
	if h, _ := f.store.Head(f.ctx); h.Seq != head.Seq {
		t.Fatalf("refused writes appended %d history entries", h.Seq-head.Seq)
	}
	if r, err := f.lookup("urn:example:a"); err != nil || r.Status != resolver.Active || r.Locations[0].URL != "http://a.example/" {
		t.Fatalf("the record changed: %+v %v", r, err)
	}
}

// Names, aliases and location URLs are kept in unique indexes, and a
// database bounds what one index row holds (PostgreSQL's btree: 2704
// bytes). A longer one must be refused as invalid input with its offset,
// not reach the store and fail there as an internal error (a 500).
func TestOverlongNamesAndURLsAreInvalid(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	long := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	okName, okURL := long("urn:example:", resolver.MaxURNBytes), long("http://a.example/", resolver.MaxURLBytes)
	in := locs(okURL)
	in.Aliases = []string{long("urn:example:alias-", resolver.MaxURNBytes)}
	if _, _, err := f.svc.Put(f.ctx, m, okName, in); err != nil {
		t.Fatalf("names and URLs of the maximum length: %v", err)
	}
	for _, tc := range []struct {
		name, alias, url, field string
		offset                  int
	}{
		{name: long("urn:example:", resolver.MaxURNBytes+1), field: "urn", offset: resolver.MaxURNBytes},
		{alias: long("urn:example:", resolver.MaxURNBytes+100), field: "aliases[0]", offset: resolver.MaxURNBytes},
		{url: long("http://a.example/", resolver.MaxURLBytes+1), field: "locations[0].url", offset: resolver.MaxURLBytes},
	} {
		name, in := "urn:example:b", locs("http://b.example/")
		if tc.name != "" {
			name = tc.name
		}
		if tc.alias != "" {
			in.Aliases = []string{tc.alias}
		}
		if tc.url != "" {
			in = locs(tc.url)
		}
		_, _, err := f.svc.Put(f.ctx, m, name, in)
		var e *resolver.Error
		if !errors.As(err, &e) || e.Kind != resolver.KindInvalid || e.Field != tc.field || e.Offset != tc.offset {
			t.Errorf("%s too long: %v, want KindInvalid in %s at %d", tc.field, err, tc.field, tc.offset)
		}
	}
	_, err := resolver.CanonicalPrefix(long("urn:example:", resolver.MaxURNBytes+1))
	wantKind(t, "an overlong prefix", err, resolver.KindInvalid)
}

// Lookups race a writer through the Service: once Put has returned, no
// lookup that starts afterwards is answered with the record as it was
// before (the cache's stamp keeps a load that read the store before the
// write from being stored after the write's invalidation).
func TestLookupsNeverGoBackBehindAnAcknowledgedPut(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	name := urn.MustParse("URN:example:a")
	f.put(m, "urn:example:a", locs("http://x.example/0"))
	var acked atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				floor := acked.Load()
				r, err := f.svc.Lookup(f.ctx, name)
				if err != nil {
					errs <- err
					return
				}
				n, _ := strconv.ParseInt(strings.TrimPrefix(r.Locations[0].URL, "http://x.example/"), 10, 64)
				if n < floor {
					errs <- fmt.Errorf("lookup answered version %d after version %d was acknowledged", n, floor)
					return
				}
			}
		}()
	}
	for n := int64(1); n <= 300; n++ {
		f.put(m, "urn:example:a", locs(fmt.Sprintf("http://x.example/%d", n)))
		acked.Store(n)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// LookupAsOf at the edges: the instant of a change is "at or before" it,
// one microsecond earlier is not (stores keep microseconds), and the time
// zone of the question does not matter.
func TestLookupAsOfBoundaries(t *testing.T) {
	var now time.Time
	f := newFixture(t)
	f.svc = resolver.New(f.store, resolver.Options{AdminToken: "admin-secret", Clock: func() time.Time { return now }})
	now = time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC) // truncated to ...999999µs
	_, m, _ := f.authority("A", "urn:example:")
	created := now.Truncate(time.Microsecond)
	f.put(m, "urn:example:a", locs("http://v1.example/"))
	now = now.Add(time.Hour)
	in := locs("http://v2.example/")
	in.Aliases = []string{"urn:example:alias"}
	f.put(m, "urn:example:a", in)
	changed := now.Truncate(time.Microsecond)
	now = now.Add(time.Hour)
	f.put(m, "urn:example:a", locs("http://v3.example/")) // the alias is retired
	retired := now.Truncate(time.Microsecond)
	_, _, err := f.svc.Put(f.ctx, m, "urn:example:alias", locs("http://other.example/"))
	wantKind(t, "a retired alias as a name", err, resolver.KindConflict)
	if !strings.Contains(err.Error(), "was an alias of urn:example:a, which dropped it") {
		t.Errorf("a retired alias as a name: %v", err)
	}
	tokyo := time.FixedZone("JST", 9*3600)

	for _, tc := range []struct {
		name string
		at   time.Time
		want string // the first location, "" for not found
	}{
		{"urn:example:a", created.Add(-time.Microsecond), ""},
		{"urn:example:a", created, "http://v1.example/"},
		{"urn:example:a", created.Add(999 * time.Nanosecond), "http://v1.example/"},
		{"urn:example:a", changed.Add(-time.Nanosecond), "http://v1.example/"},
		{"urn:example:a", changed.In(tokyo), "http://v2.example/"},
		{"urn:example:alias", changed.Add(-time.Microsecond), ""},
		{"urn:example:alias", changed, "http://v2.example/"},
		{"urn:example:alias", retired.Add(-time.Microsecond), "http://v2.example/"},
		{"urn:example:alias", retired, ""},
		{"urn:example:a", retired.Add(24 * time.Hour), "http://v3.example/"},
	} {
		r, e, err := f.svc.LookupAsOf(f.ctx, urn.MustParse(tc.name), tc.at)
		if tc.want == "" {
			wantKind(t, fmt.Sprintf("%s as of %v", tc.name, tc.at), err, resolver.KindNotFound)
			continue
		}
		if err != nil || r.Locations[0].URL != tc.want || e.Time.After(tc.at) || r.URN != "urn:example:a" {
			t.Errorf("%s as of %v: %v %v (entry at %v), want %s", tc.name, tc.at, r.Locations, err, e.Time, tc.want)
		}
	}
}

// JSON text is UTF-8 (RFC 8259 §8.1); encoding/json's Compact does not
// check the bytes inside strings, so metadata holding invalid UTF-8 was
// stored and then served as a record no strict JSON parser reads.
func TestMetadataMustBeUTF8(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	in := locs("http://a.example/")
	in.Metadata = []byte("  {\"title\":\"caf\xe9\"}") // Latin-1, not UTF-8
	_, _, err := f.svc.Put(f.ctx, m, "urn:example:a", in)
	var e *resolver.Error
	if !errors.As(err, &e) || e.Kind != resolver.KindInvalid || e.Field != "metadata" || e.Offset != 15 {
		t.Fatalf("metadata in Latin-1: %v, want KindInvalid in metadata at byte 15", err)
	}
	in.Metadata = []byte(`{"title":"café \u00e9"}`)
	f.put(m, "urn:example:a", in)
}

// Metadata nested thousands deep in a few kilobytes was stored, and each
// page that indented it grew with the square of the depth (a security
// review: 16 KB gave 134 MB a request). A write refuses more than
// MaxMetadataDepth levels, naming where the limit is passed; Put and
// PutMany (the import) alike.
func TestMetadataDepth(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	nest := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` }
	in := locs("http://a.example/")
	in.Metadata = []byte(nest(resolver.MaxMetadataDepth))
	f.put(m, "urn:example:ok", in)

	for _, c := range []struct {
		md   string
		want int // the first bracket of the level past the limit, in the metadata as given
	}{
		{nest(resolver.MaxMetadataDepth + 1), 5 + 31},
		{nest(8185), 5 + 31}, // the review's
		{" \n" + nest(resolver.MaxMetadataDepth+1), 2 + 5 + 31},
		// Brackets in strings do not count.
		{`{"s":"[[[[","o":` + strings.Repeat(`{"o":`, resolver.MaxMetadataDepth) + `1` + strings.Repeat("}", resolver.MaxMetadataDepth+1), 16 + 31*5},
	} {
		md, want := c.md, c.want
		in.Metadata = []byte(md)
		_, _, err := f.svc.Put(f.ctx, m, "urn:example:deep", in)
		var e *resolver.Error
		if !errors.As(err, &e) || e.Kind != resolver.KindInvalid || e.Field != "metadata" || e.Offset != want ||
			!strings.Contains(e.Message, "more than 32 levels") {
			t.Fatalf("%.60s…: %v, want KindInvalid in metadata at byte %d", md, err, want)
		}
		res, err := f.svc.PutMany(f.ctx, m, []resolver.NamedInput{{URN: "urn:example:deep", RecordInput: in}})
		if err != nil || !errors.As(res[0].Err, &e) || e.Field != "metadata" || e.Offset != want {
			t.Fatalf("PutMany %.60s…: %v %v", md, err, res[0].Err)
		}
	}
	if _, err := f.lookup("urn:example:deep"); resolver.KindOf(err) != resolver.KindNotFound {
		t.Fatalf("a refused record was stored: %v", err)
	}
}

// A member name given twice in metadata was stored as given: readers that
// keep the first and readers that keep the last read two records (RFC
// 8259 §4). Refused at any depth, with the member's path and offset.
func TestMetadataDuplicateNames(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	in := locs("http://a.example/")
	for _, c := range []struct {
		md, path string
		offset   int
	}{
		{`{"a":1,"a":2}`, `member "a" in metadata`, 7},
		{` {"title":"x", "author":[{"family":"T","given":"J"},{"family":"U","family":"V"}]}`, `member "family" in metadata.author[1]`, 66},
		{`{"a":{"b":{"c":[{"d":0,"\u0064":1}]}}}`, `member "d" in metadata.a.b.c[0]`, 23},
	} {
		in.Metadata = []byte(c.md)
		for _, put := range []func() error{
			func() error { _, _, err := f.svc.Put(f.ctx, m, "urn:example:dup", in); return err },
			func() error {
				res, err := f.svc.PutMany(f.ctx, m, []resolver.NamedInput{{URN: "urn:example:dup", RecordInput: in}})
				if err != nil {
					return err
				}
				return res[0].Err
			},
		} {
			err := put()
			var e *resolver.Error
			if !errors.As(err, &e) || e.Kind != resolver.KindInvalid || e.Field != "metadata" || e.Offset != c.offset ||
				!strings.Contains(e.Message, c.path+" is given twice") {
				t.Fatalf("%s: %v, want %s at byte %d", c.md, err, c.path, c.offset)
			}
		}
	}
	// Names that only look alike are not the same.
	in.Metadata = []byte(`{"a":1,"A":2,"b":{"a":1},"c":[{"a":1},{"a":2}]}`)
	f.put(m, "urn:example:dup", in)
}

// Records stored before the depth and duplicate rules keep their metadata
// as stored: a lookup returns it, its JSON form holds it, and Verify passes
// while counting them (an import of their export would refuse them).
func TestStoredMetadataPastTheRules(t *testing.T) {
	f := newFixture(t)
	a, m, _ := f.authority("A", "urn:example:")
	f.put(m, "urn:example:fine", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://a.example/"}},
		Metadata: []byte(`{"title":"T","issued":{"date-parts":[[2024,5,1]]}}`)})
	const n = 8185
	old := map[string]string{
		"urn:example:deep": `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`,
		"urn:example:dup":  `{"a":1,"b":{"c":[{"d":1,"d":2}]},"a":2}`,
	}
	for name, md := range old {
		storetest.InsertLegacy(t, f.store, resolver.Record{URN: name, AuthorityID: a.ID,
			Locations: []resolver.Location{{URL: "http://old.example/"}}, Metadata: []byte(md)})
	}
	for name, md := range old {
		r, err := f.lookup(name)
		if err != nil || string(r.Metadata) != md {
			t.Fatalf("%s: %v, metadata %.40s…", name, err, r.Metadata)
		}
		b, err := r.MarshalJSON()
		if err != nil || !strings.Contains(string(b), `"metadata":`+md) {
			t.Fatalf("%s as JSON: %v", name, err)
		}
	}
	rep, err := f.svc.VerifyAll(f.ctx, nil)
	if err != nil || rep.Records != 3 || rep.OldMetadata != 2 {
		t.Fatalf("VerifyAll: %+v, %v; want 3 records, 2 of them with metadata a write refuses", rep, err)
	}
	if !strings.HasPrefix(rep.OldMetadataExample, "urn:example:deep: metadata: nested more than 32 levels") &&
		!strings.HasPrefix(rep.OldMetadataExample, `urn:example:dup: metadata: member "d" in metadata.b.c[0] is given twice`) {
		t.Fatalf("example: %q", rep.OldMetadataExample)
	}
	// Putting one again with its metadata corrected clears it.
	f.put(m, "urn:example:dup", resolver.RecordInput{Locations: []resolver.Location{{URL: "http://old.example/"}},
		Metadata: []byte(`{"a":2,"b":{"c":[{"d":2}]}}`)})
	if rep, err := f.svc.VerifyAll(f.ctx, nil); err != nil || rep.OldMetadata != 1 || !strings.HasPrefix(rep.OldMetadataExample, "urn:example:deep:") {
		t.Fatalf("VerifyAll after the correction: %+v, %v", rep, err)
	}
}

// "A PUT of a name equivalent to a live record's name replaces that
// record" (issue 9): the owner's equivalent spelling need not lie under
// its prefix lexically (RFC 8458's case-insensitive NBN prefix; the ISBN-10
// spelling of an ISBN-13 under an ISBN-13 prefix). The record's owner
// replaces and withdraws it by any equivalent spelling; others still may
// not, even with prefixes that overlap the owner's by the namespaces' rules
// (which CreateAuthority refuses now, but older stores may hold).
func TestOwnerWritesItsRecordByAnyEquivalentSpelling(t *testing.T) {
	f := newFixture(t)
	_, owner, _ := f.authority("Owner", "urn:nbn:de:", "urn:isbn:978-0-")
	_, other := f.legacyAuthority("Other", "urn:nbn:DE:", "urn:isbn:0-")
	f.put(owner, "urn:nbn:de:101-x", locs("http://v1.example/"))
	f.put(owner, "urn:isbn:978-0-395-36341-6", locs("http://v1.example/"))
	for _, tc := range []struct{ name, spelling string }{
		{"urn:nbn:de:101-x", "urn:nbn:DE:101-x"},
		{"urn:isbn:978-0-395-36341-6", "urn:isbn:0-395-36341-1"},
	} {
		_, _, err := f.svc.Put(f.ctx, other, tc.spelling, locs("http://evil.example/"))
		wantKind(t, "another authority through "+tc.spelling, err, resolver.KindForbidden)
		_, err = f.svc.Withdraw(f.ctx, other, tc.spelling, "", "")
		wantKind(t, "another authority withdraws through "+tc.spelling, err, resolver.KindForbidden)

		r, created, err := f.svc.Put(f.ctx, owner, tc.spelling, locs("http://v2.example/"))
		if err != nil || created || r.URN != tc.name || r.Locations[0].URL != "http://v2.example/" {
			t.Fatalf("owner replaces %s through %s: %+v created=%v %v", tc.name, tc.spelling, r, created, err)
		}
		res, err := f.svc.PutMany(f.ctx, resolver.Operator, []resolver.NamedInput{{URN: tc.spelling, RecordInput: locs("http://v3.example/")}})
		if err != nil || res[0].Err != nil || res[0].Created {
			t.Fatalf("operator replaces %s through %s: %+v %v", tc.name, tc.spelling, res, err)
		}
		w, err := f.svc.Withdraw(f.ctx, owner, tc.spelling, "superseded", "")
		if err != nil || w.URN != tc.name || w.Status != resolver.Withdrawn {
			t.Fatalf("owner withdraws %s through %s: %+v %v", tc.name, tc.spelling, w, err)
		}
	}
}

// BenchmarkLookupHit is the hot path of I2L: a name already in the cache.
func BenchmarkLookupHit(b *testing.B) {
	ctx := context.Background()
	st := memstore.New()
	svc := resolver.New(st, resolver.Options{AdminToken: "a"})
	admin, _ := svc.Authenticate(ctx, "a")
	_, tok, _ := svc.CreateAuthority(ctx, admin, "A", []string{"urn:example:"})
	m, _ := svc.Authenticate(ctx, tok)
	in := locs("https://example.org/landing", "https://mirror.example/copy.pdf")
	in.Metadata = []byte(`{"title":"A title of some length"}`)
	if _, _, err := svc.Put(ctx, m, "urn:example:a", in); err != nil {
		b.Fatal(err)
	}
	name := urn.MustParse("urn:example:a")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Lookup(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOwnerByKeyForm: a name under none of the authorities' prefixes as
// written belongs to the authority whose prefix holds its key form, the
// namespace's equivalence (RFC 8458 §4.3: urn:nbn:DE:101-1 is
// urn:nbn:de:101-1). That authority may register it, no other may, and
// it finds the same record as the lower-case spelling.
func TestOwnerByKeyForm(t *testing.T) {
	f := newFixture(t)
	_, dnb, _ := f.authority("DNB", "urn:nbn:de:101-")
	_, other, _ := f.authority("Other", "urn:nbn:de:102-")
	if _, _, err := f.svc.Put(f.ctx, other, "urn:nbn:DE:101-1", locs("https://other.example/1")); resolver.KindOf(err) != resolver.KindForbidden {
		t.Fatalf("another authority registers a name equivalent to DNB's: %v", err)
	}
	r := f.put(dnb, "urn:nbn:DE:101-1", locs("https://d-nb.example/1"))
	if got, err := f.lookup("urn:nbn:de:101-1"); err != nil || got.ID != r.ID {
		t.Fatalf("the lower-case spelling: %+v %v", got, err)
	}
	if _, _, err := f.svc.Put(f.ctx, dnb, "urn:nbn:CH:1-1", locs("https://x.example/")); resolver.KindOf(err) != resolver.KindForbidden {
		t.Fatalf("a name nobody owns in either form: %v", err)
	}
}

// Two authorities never own equivalent names: prefixes whose names could be
// equivalent by their namespace's rules overlap (409), not only those that
// share a spelling. One authority may hold both spellings of one range, and
// writes every spelling of its names.
func TestPrefixOverlapByEquivalence(t *testing.T) {
	f := newFixture(t)
	f.authority("DNB", "urn:nbn:de:101-")
	_, isbn0, _ := f.authority("Publisher 0", "urn:isbn:978-0-")
	for _, p := range []string{"urn:NBN:DE:101-", "urn:nbn:DE:", "urn:nbn:De", "urn:isbn:0", "urn:isbn:9780", "urn:isbn:0-306", "urn:ISBN:978-0-3"} {
		_, _, err := f.svc.CreateAuthority(f.ctx, f.admin, "Other", []string{p})
		wantKind(t, p, err, resolver.KindConflict)
		if !strings.Contains(err.Error(), "overlaps") {
			t.Errorf("%s: %v", p, err)
		}
	}
	_, _, err := f.svc.CreateAuthority(f.ctx, f.admin, "Other", []string{"urn:isbn:0"})
	if !strings.Contains(err.Error(), "equivalent by the rules of the isbn namespace") {
		t.Errorf("the reason is not given: %v", err)
	}
	// Ranges that share no name: another country, another ISBN group.
	f.authority("DNB Sub", "urn:nbn:de:1011-")
	_, isbn3, _ := f.authority("Publisher 3", "urn:isbn:978-3-", "urn:isbn:3")
	_, isbn979, _ := f.authority("979", "urn:isbn:979")

	// Every spelling of its names is the owner's: hyphens or none, the
	// ISBN-10 or the ISBN-13 (RFC 3187).
	f.put(isbn0, "urn:isbn:9780306406157", locs("http://zero.example/a"))
	f.put(isbn0, "urn:isbn:0-8044-2957-X", locs("http://zero.example/b"))
	f.put(isbn3, "urn:isbn:3-16-148410-X", locs("http://three.example/"))
	for name, want := range map[string]string{
		"urn:isbn:0-306-40615-2":     "http://zero.example/a",
		"urn:isbn:978-0-8044-2957-3": "http://zero.example/b",
		"urn:isbn:9783161484100":     "http://three.example/",
	} {
		if r, err := f.lookup(name); err != nil || r.Locations[0].URL != want {
			t.Fatalf("%s: %+v, %v", name, r.Locations, err)
		}
	}
	// No one else writes them.
	for _, name := range []string{"urn:isbn:0-306-40615-2", "urn:isbn:0-19-852663-6", "urn:isbn:9780198526636"} {
		_, _, err := f.svc.Put(f.ctx, isbn979, name, locs("http://evil.example/"))
		wantKind(t, name, err, resolver.KindForbidden)
		_, _, err = f.svc.Put(f.ctx, isbn3, name, locs("http://evil.example/"))
		wantKind(t, name, err, resolver.KindForbidden)
	}
}

// TestMessagesSayWhatIsWrong: a media type or a rule's target that is
// refused is explained in words, without the "mime: " or "uri: " texts of
// the parsers (which named their own tokens, and repeated the offset).
func TestMessagesSayWhatIsWrong(t *testing.T) {
	f := newFixture(t)
	_, m, _ := f.authority("A", "urn:example:")
	for _, c := range []struct{ typ, want string }{
		{"text plain", `locations[1].type: "text plain" is not a media type: the type is not followed by "/" and a subtype (a media type is type/subtype, such as text/html)`},
		{"text/", `locations[1].type: "text/" is not a media type: no subtype follows the "/" (a media type is type/subtype, such as text/html)`},
		{"text", `locations[1].type: "text" is not a media type: the type is not followed by "/" and a subtype (a media type is type/subtype, such as text/html)`},
		{"text; q=1", `locations[1].type: "text; q=1" is not a media type: the type is not followed by "/" and a subtype (a media type is type/subtype, such as text/html)`},
		{"/html", `locations[1].type: "/html" is not a media type: it does not begin with a type (a media type is type/subtype, such as text/html)`},
		{"text/html x", `locations[1].type: "text/html x" is not a media type: something other than a parameter (";name=value") follows the subtype`},
		{"text/html; charset", `locations[1].type: "text/html; charset" is not a media type: a parameter is not name=value (after ";")`},
		{"text/html;a=1;a=2", `locations[1].type: "text/html;a=1;a=2" is not a media type: a parameter is given twice, with different values`},
	} {
		in := locs("http://a.example/", "http://b.example/")
		in.Locations[1].Type = c.typ
		_, _, err := f.svc.Put(f.ctx, m, "urn:example:a", in)
		if err == nil || err.Error() != c.want {
			t.Errorf("type %q:\n got %v\nwant %s", c.typ, err, c.want)
		}
	}
	_, err := f.svc.AddRule(f.ctx, f.admin, "urn:nbn:fi:", "/x")
	want := "target: not an absolute URI (the resolver's base URL, such as https://resolver.example/): missing scheme (a scheme starts with a letter) (at byte 0)"
	if err == nil || err.Error() != want {
		t.Errorf("rule target /x:\n got %v\nwant %s", err, want)
	}
}
