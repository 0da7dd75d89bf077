package apitest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
)

// etagOf returns r's ETag header, failing unless it is a strong
// entity-tag (RFC 9110 §8.8.3: a quoted string without W/).
// noETag fails unless r, the answer to a write, carries no ETag: RFC
// 9110 §9.3.4 forbids a validator in a PUT's answer when the resource does
// not store the content as sent.
func noETag(t *testing.T, r *Resp) {
	t.Helper()
	if tag := r.Header.Get("ETag"); tag != "" {
		t.Fatalf("the answer to a write carries ETag %s", tag)
	}
}

func etagOf(t *testing.T, r *Resp) string {
	t.Helper()
	tag := r.Header.Get("ETag")
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		t.Fatalf("status %d: ETag %q, want a strong entity-tag; body %s", r.Status, tag, r.Body)
	}
	return tag
}

// wantPrecondition checks a 412: problem details naming the header that
// was false, and the current ETag (etag; "" when there is no record).
func wantPrecondition(t *testing.T, r *Resp, header, etag string) {
	t.Helper()
	p := r.Want(t, 412).Problem(t)
	if !strings.HasSuffix(p.Type, "#precondition-failed") || p.Field != header {
		t.Fatalf("412: %+v, want type …#precondition-failed, field %s", p, header)
	}
	wantHeader(t, r, "ETag", etag)
}

// testConditional: GET and HEAD of /api/v1/names/{urn} send a strong ETag
// that follows every change of the record; PUT and withdraw obey If-Match
// and If-None-Match (RFC 9110 §13.1.1, §13.1.2) and answer 412 without
// changing anything when they are false.
func testConditional(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const path = "/api/v1/names/urn:example:c"
	put := func(body string, headers ...string) *Resp {
		t.Helper()
		return f.Do("PUT", path, body, append(auth(f.books), headers...)...)
	}
	get := func() (*Resp, string) {
		t.Helper()
		r := f.Do("GET", path, "").Want(t, 200)
		return r, etagOf(t, r)
	}
	history := func() int {
		t.Helper()
		return strings.Count(f.Do("GET", path+"/history", "").Want(t, 200).Body, `"seq"`)
	}

	// If-Match on a name without a record: 412, and nothing is created.
	wantPrecondition(t, put(loc("https://example.org/c1"), "If-Match", "*"), "If-Match", "")
	f.Do("GET", path, "").Want(t, 404)

	// Create: the answer carries no ETag (RFC 9110 §9.3.4: the record
	// stored is not the body sent); GET and HEAD send the same one.
	noETag(t, put(loc("https://example.org/c1"), "If-None-Match", "*").Want(t, 201))
	_, e1 := get()
	if h := f.Do("HEAD", path, "").Want(t, 200); etagOf(t, h) != e1 || h.Body != "" {
		t.Fatalf("HEAD: ETag %s, body %q; want %s and none", h.Header.Get("ETag"), h.Body, e1)
	}
	// An identical PUT changes nothing, and keeps the tag.
	noETag(t, put(loc("https://example.org/c1")).Want(t, 200))
	if _, tag := get(); tag != e1 {
		t.Fatalf("identical PUT: ETag %s, was %s", tag, e1)
	}
	// A change changes it, though the clock has not moved: the updated
	// time is the same, the record is not.
	noETag(t, put(loc("https://example.org/c2")).Want(t, 200))
	before, e2 := get()
	if e2 == e1 {
		t.Fatalf("after a change: ETag %s, as before the change", e2)
	}

	// A stale If-Match: 412 with the current ETag; nothing changes.
	n := history()
	wantPrecondition(t, put(loc("https://example.org/lost"), "If-Match", e1), "If-Match", e2)
	wantPrecondition(t, put(loc("https://example.org/lost"), "If-Match", `"nonsense"`), "If-Match", e2)
	// If-Match compares strongly: the weak form of the current tag fails.
	wantPrecondition(t, put(loc("https://example.org/lost"), "If-Match", "W/"+e2), "If-Match", e2)
	if after, _ := get(); after.Body != before.Body || history() != n {
		t.Fatalf("a failed If-Match changed the record:\n%s\n%s", before.Body, after.Body)
	}
	// The current one, alone or in a list: the write happens.
	noETag(t, put(loc("https://example.org/c3"), "If-Match", `"other", `+e2).Want(t, 200))
	_, e3 := get()
	if e3 == e2 {
		t.Fatalf("PUT with the current If-Match: ETag %s, as before", e3)
	}
	put(loc("https://example.org/c3"), "If-Match", "*").Want(t, 200)

	// If-None-Match: * creates only: 412 on a name that has a record
	// (by any equivalent spelling), 201 on a new one.
	wantPrecondition(t, put(loc("https://example.org/c4"), "If-None-Match", "*"), "If-None-Match", e3)
	wantPrecondition(t, f.Do("PUT", "/api/v1/names/URN:EXAMPLE:c", loc("https://example.org/c4"), append(auth(f.books), "If-None-Match", "*")...),
		"If-None-Match", e3)
	wantPrecondition(t, put(loc("https://example.org/c4"), "If-None-Match", e3), "If-None-Match", e3)
	f.Do("PUT", "/api/v1/names/urn:example:c-new", loc("https://example.org/n"), append(auth(f.books), "If-None-Match", "*")...).Want(t, 201)
	if _, tag := get(); tag != e3 {
		t.Fatalf("after failed If-None-Match: ETag %s, want %s", tag, e3)
	}

	// Conditional GET: If-None-Match naming the tag (weakly) is 304 with
	// it; a false If-Match is 412.
	for _, inm := range []string{e3, "W/" + e3, "*", `"x", ` + e3} {
		r := f.Do("GET", path, "", "If-None-Match", inm).Want(t, 304)
		if etagOf(t, r) != e3 || r.Body != "" {
			t.Fatalf("304 for If-None-Match %s: ETag %s body %q", inm, r.Header.Get("ETag"), r.Body)
		}
	}
	f.Do("GET", path, "", "If-None-Match", e1).Want(t, 200)
	wantPrecondition(t, f.Do("GET", path, "", "If-Match", e1), "If-Match", e3)
	f.Do("GET", path, "", "If-Match", e3).Want(t, 200)

	// A field that is not "*" or entity-tags is 400, not a silent pass.
	for _, v := range []string{"nonsense", `"a" "b"`, `"open`, `*, "a"`, `W/x`} {
		p := put(loc("https://example.org/bad"), "If-Match", v).Want(t, 400).Problem(t)
		if p.Field != "If-Match" {
			t.Fatalf("If-Match %s: %+v", v, p)
		}
	}

	// Withdraw: a stale If-Match is 412 and the record stays active; the
	// current one withdraws (the answer, to a POST, carries no ETag).
	wantPrecondition(t, f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), "If-Match", e2)...), "If-Match", e3)
	wantPrecondition(t, f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), "If-None-Match", "*")...), "If-None-Match", e3)
	if r, _ := get(); !strings.Contains(r.Body, `"status":"active"`) {
		t.Fatalf("a failed conditional withdrawal withdrew: %s", r.Body)
	}
	w := f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), "If-Match", e3)...).Want(t, 200)
	noETag(t, w)
	withdrawn, e4 := get()
	if e4 == e3 || !strings.Contains(withdrawn.Body, `"status":"withdrawn"`) {
		t.Fatalf("withdrawn: ETag %s, was %s: %s", e4, e3, withdrawn.Body)
	}
	// Withdrawing again the same way changes nothing: the tag stays.
	f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), "If-Match", e4)...).Want(t, 200)
	if _, tag := get(); tag != e4 {
		t.Fatalf("repeated withdrawal: ETag %s, was %s", tag, e4)
	}
	// A withdrawn name is 409 whatever the conditions: that answer does
	// not depend on the body, and takes precedence (RFC 9110 §13.2.1).
	put(loc("https://example.org/c5"), "If-None-Match", "*").Want(t, 409)
	put(loc("https://example.org/c5"), "If-Match", e4).Want(t, 409)
}

// testConditionalRace: maintainers that read the same record and PUT
// their edits with its ETag in If-Match at the same time: exactly one
// wins, the others get 412 and the winner's ETag. The condition is
// evaluated in the write's own transaction, so no two can pass it.
func testConditionalRace(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const path = "/api/v1/names/urn:example:race"
	f.Put(f.books, "urn:example:race", loc("https://example.org/r")).Want(t, 201)
	tag := etagOf(t, f.Do("HEAD", path, "").Want(t, 200))
	const writers = 4
	for round := range 8 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		res := make([]*Resp, writers)
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res[w], errs[w] = f.do("PUT", path, loc(fmt.Sprintf("https://example.org/r/%d/%d", round, w)),
					append(auth(f.books), "If-Match", tag)...)
			}()
		}
		close(start)
		wg.Wait()
		var won *Resp
		for w, r := range res {
			if errs[w] != nil {
				t.Fatalf("round %d: %v", round, errs[w])
			}
			switch r.Status {
			case 200:
				if won != nil {
					t.Fatalf("round %d: two PUTs with If-Match %s both succeeded:\n%s\n%s", round, tag, won.Body, r.Body)
				}
				won = r
			case 412:
			default:
				t.Fatalf("round %d: status %d: %s", round, r.Status, r.Body)
			}
		}
		if won == nil {
			t.Fatalf("round %d: every PUT with the current If-Match %s failed", round, tag)
		}
		g := f.Do("GET", path, "").Want(t, 200)
		if g.Body != won.Body {
			t.Fatalf("round %d: GET %s, the winner answered %s", round, g.Body, won.Body)
		}
		tag = etagOf(t, g)
		for _, r := range res {
			if r != won {
				wantPrecondition(t, r, "If-Match", tag)
			}
		}
	}
}

// testGoClientConditional: resolver/client exposes the ETag and sends
// If-Match, so that a script's read-edit-write keeps others' changes.
func testGoClientConditional(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	ctx := t.Context()
	m := client.New(f.URL, f.books)
	const name = "urn:example:gc"
	in := func(u string) resolver.RecordInput {
		return resolver.RecordInput{Locations: []resolver.Location{{URL: u}}}
	}
	_, _, _, err := m.PutIf(ctx, name, in("https://example.org/0"), "*")
	if re := new(resolver.Error); !errors.As(err, &re) || re.Kind != resolver.KindPrecondition || re.ETag != "" {
		t.Fatalf("PutIf * of a new name: %v", err)
	}
	_, created, e1, err := m.PutIf(ctx, name, in("https://example.org/1"), "")
	if err != nil || !created || e1 == "" {
		t.Fatalf("PutIf: %v %v %q", created, err, e1)
	}
	rec, tag, err := m.GetETag(ctx, name)
	if err != nil || tag != e1 || rec.Locations[0].URL != "https://example.org/1" {
		t.Fatalf("GetETag: %+v %q %v, want ETag %s", rec, tag, err, e1)
	}
	r2, _, e2, err := m.PutIf(ctx, name, in("https://example.org/2"), e1)
	if err != nil || e2 == e1 {
		t.Fatalf("PutIf with the current ETag: %q %v", e2, err)
	}
	_, _, _, err = m.PutIf(ctx, name, in("https://example.org/lost"), e1)
	if re := new(resolver.Error); !errors.As(err, &re) || re.Kind != resolver.KindPrecondition || re.ETag != e2 ||
		!re.LastModified.Equal(r2.LastModified()) {
		t.Fatalf("PutIf with a stale ETag: %v (%+v), want KindPrecondition with ETag %s, Last-Modified %s", err, re, e2, r2.LastModified())
	}
	if _, _, err := m.WithdrawIf(ctx, name, "r", "", e1); resolver.KindOf(err) != resolver.KindPrecondition {
		t.Fatalf("WithdrawIf with a stale ETag: %v", err)
	}
	w, e3, err := m.WithdrawIf(ctx, name, "r", "", e2)
	if err != nil || w.Status != resolver.Withdrawn || e3 == "" || e3 == e2 {
		t.Fatalf("WithdrawIf: %+v %q %v", w, e3, err)
	}
}

// httpDate is t as an HTTP-date (RFC 9110 §5.6.7, IMF-fixdate).
func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// wantDatePrecondition is wantPrecondition for a record that exists: the
// 412 carries its Last-Modified too.
func wantDatePrecondition(t *testing.T, r *Resp, header, etag, lastModified string) {
	t.Helper()
	wantPrecondition(t, r, header, etag)
	wantHeader(t, r, "Last-Modified", lastModified)
}

// noLastModified fails unless r carries no Last-Modified: the answers to
// writes (RFC 9110 §9.3.4, as noETag), and 304s, which have the ETag
// (§15.4.5).
func noLastModified(t *testing.T, r *Resp) {
	t.Helper()
	if lm := r.Header.Get("Last-Modified"); lm != "" {
		t.Fatalf("status %d carries Last-Modified %s", r.Status, lm)
	}
}

// testConditionalDates: GET and HEAD of /api/v1/names/{urn} send the
// record's Last-Modified (its updated time, to the second);
// If-Modified-Since makes a GET 304 (RFC 9110 §13.1.3) and
// If-Unmodified-Since makes a write, or a GET, 412 (§13.1.4), each
// ignored when the entity-tag field that replaces it is there, or when it
// is not a valid HTTP-date.
func testConditionalDates(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const path = "/api/v1/names/urn:example:d"
	put := func(body string, headers ...string) *Resp {
		t.Helper()
		return f.Do("PUT", path, body, append(auth(f.books), headers...)...)
	}
	withdraw := func(headers ...string) *Resp {
		t.Helper()
		return f.Do("POST", path+"/withdraw", `{"reason":"r"}`, append(auth(f.books), headers...)...)
	}
	get := func(headers ...string) *Resp {
		t.Helper()
		return f.Do("GET", path, "", headers...)
	}
	history := func() int {
		t.Helper()
		return strings.Count(f.Do("GET", path+"/history", "").Want(t, 200).Body, `"seq"`)
	}

	// Creating: the name has no record, so no modification date, and
	// If-Unmodified-Since is ignored (RFC 9110 §13.1.4): 201, even with a
	// date long before. The answer carries no Last-Modified (§9.3.4).
	t1 := f.Clock.Advance(1500 * time.Millisecond) // T0+2.5s: to the second, T0+2s
	w := put(loc("https://example.org/d1"), "If-Unmodified-Since", httpDate(T0.Add(-24*time.Hour))).Want(t, 201)
	noLastModified(t, w)
	lm1 := httpDate(t1.Truncate(time.Second))
	g1 := get().Want(t, 200)
	wantHeader(t, g1, "Last-Modified", lm1)
	e1 := etagOf(t, g1)
	if h := f.Do("HEAD", path, "").Want(t, 200); h.Header.Get("Last-Modified") != lm1 || h.Body != "" {
		t.Fatalf("HEAD: Last-Modified %q, body %q; want %s and none", h.Header.Get("Last-Modified"), h.Body, lm1)
	}

	// If-Modified-Since: 304 (with the ETag, without Last-Modified or a
	// body) when not modified after the date, in each of the three forms
	// of an HTTP-date (§5.6.7); 200 when modified after it.
	lm1Time := t1.Truncate(time.Second).UTC()
	for _, since := range []string{lm1, httpDate(lm1Time.Add(time.Hour)),
		lm1Time.Format("Monday, 02-Jan-06 15:04:05 GMT"), lm1Time.Format(time.ANSIC)} {
		r := get("If-Modified-Since", since).Want(t, 304)
		if etagOf(t, r) != e1 || r.Body != "" {
			t.Fatalf("304 for If-Modified-Since %s: ETag %s, body %q", since, r.Header.Get("ETag"), r.Body)
		}
		noLastModified(t, r)
		f.Do("HEAD", path, "", "If-Modified-Since", since).Want(t, 304)
	}
	r := get("If-Modified-Since", httpDate(lm1Time.Add(-time.Second))).Want(t, 200)
	if r.Body != g1.Body {
		t.Fatalf("If-Modified-Since before the change: %s, want %s", r.Body, g1.Body)
	}
	wantHeader(t, r, "Last-Modified", lm1)
	// Ignored when it is not one valid HTTP-date (§13.1.3): 200.
	for _, bad := range []string{"yesterday", lm1 + ", " + lm1, strings.Replace(lm1, "GMT", "PST", 1),
		lm1Time.Format("Monday, 02-Jan-06 15:04:05") + " PST",
		strings.ToLower(lm1), "2024-05-01T12:00:02Z"} {
		get("If-Modified-Since", bad).Want(t, 200)
	}
	// If-None-Match replaces it (§13.1.3, §13.2.2): a tag that does not
	// match is 200 whatever the date says, one that does is 304 whatever
	// the date says.
	get("If-None-Match", `"other"`, "If-Modified-Since", lm1).Want(t, 200)
	get("If-None-Match", e1, "If-Modified-Since", httpDate(lm1Time.Add(-time.Hour))).Want(t, 304)

	// A change two seconds on.
	t2 := f.Clock.Advance(2 * time.Second)
	put(loc("https://example.org/d2")).Want(t, 200)
	lm2 := httpDate(t2.Truncate(time.Second))
	g2 := get("If-Modified-Since", lm1).Want(t, 200)
	wantHeader(t, g2, "Last-Modified", lm2)
	e2 := etagOf(t, g2)

	// If-Unmodified-Since older than the change: 412 with the current
	// ETag and Last-Modified, on PUT and on withdraw, and nothing changes.
	n := history()
	wantDatePrecondition(t, put(loc("https://example.org/lost"), "If-Unmodified-Since", lm1), "If-Unmodified-Since", e2, lm2)
	wantDatePrecondition(t, withdraw("If-Unmodified-Since", lm1), "If-Unmodified-Since", e2, lm2)
	// It comes before If-None-Match (§13.2.2 steps 2 and 3).
	wantDatePrecondition(t, put(loc("https://example.org/lost"), "If-Unmodified-Since", lm1, "If-None-Match", `"other"`),
		"If-Unmodified-Since", e2, lm2)
	// On a GET too: §13.2.2 step 2 is for any method.
	wantDatePrecondition(t, get("If-Unmodified-Since", lm1), "If-Unmodified-Since", e2, lm2)
	// If-Match replaces it (§13.1.4): a stale If-Match fails as
	// If-Match whatever the date.
	wantDatePrecondition(t, put(loc("https://example.org/lost"), "If-Match", e1, "If-Unmodified-Since", lm2), "If-Match", e2, lm2)
	if after := get().Want(t, 200); after.Body != g2.Body || history() != n {
		t.Fatalf("a failed If-Unmodified-Since changed the record:\n%s\n%s", g2.Body, after.Body)
	}

	// Not modified after the date: the write happens.
	get("If-Unmodified-Since", lm2).Want(t, 200)
	noLastModified(t, put(loc("https://example.org/d3"), "If-Unmodified-Since", lm2).Want(t, 200))
	g3 := get().Want(t, 200)
	e3 := etagOf(t, g3)
	if !strings.Contains(g3.Body, "https://example.org/d3") || e3 == e2 {
		t.Fatalf("PUT with a holding If-Unmodified-Since: %s", g3.Body)
	}
	// A current If-Match decides, a stale date is not looked at; an
	// invalid date is ignored.
	put(loc("https://example.org/d4"), "If-Match", e3, "If-Unmodified-Since", lm1).Want(t, 200)
	for _, bad := range []string{"not a date", lm1 + ", " + lm2, httpDate(T0) + " trailing"} {
		put(loc("https://example.org/d4"), "If-Unmodified-Since", bad).Want(t, 200)
	}

	// As of a time, Last-Modified is that of the record as it stood then,
	// as its ETag is, and If-Modified-Since compares with it.
	asOf := path + "?as-of=" + t1.Add(time.Second).UTC().Format(time.RFC3339)
	h := f.Do("GET", asOf, "").Want(t, 200)
	wantHeader(t, h, "Last-Modified", lm1)
	if etagOf(t, h) != e1 {
		t.Fatalf("as of %s: ETag %s, want %s", t1, h.Header.Get("ETag"), e1)
	}
	f.Do("GET", asOf, "", "If-Modified-Since", lm1).Want(t, 304)
	f.Do("GET", path, "", "If-Modified-Since", lm1).Want(t, 200)

	// Withdraw: a holding date withdraws (the PUTs since were in the
	// second of lm2); the answer has no Last-Modified.
	t4 := f.Clock.Advance(3 * time.Second)
	noLastModified(t, withdraw("If-Unmodified-Since", lm2).Want(t, 200))
	g4 := get().Want(t, 200)
	wantHeader(t, g4, "Last-Modified", httpDate(t4))
	if !strings.Contains(g4.Body, `"status":"withdrawn"`) {
		t.Fatalf("withdrawn: %s", g4.Body)
	}

	// A record updated ahead of the server's clock (stamped with another
	// instance's later time): Last-Modified is never after the answer's
	// Date (§8.8.2.1), and the conditions still see the record as modified
	// after it, so no 304 and no write.
	f.Clock.Advance(100 * 365 * 24 * time.Hour)
	const future = "/api/v1/names/urn:example:future"
	f.Do("PUT", future, loc("https://example.org/f"), auth(f.books)...).Want(t, 201)
	fr := f.Do("GET", future, "").Want(t, 200)
	sent, err1 := http.ParseTime(fr.Header.Get("Last-Modified"))
	date, err2 := http.ParseTime(fr.Header.Get("Date"))
	if err1 != nil || err2 != nil || sent.After(date) {
		t.Fatalf("Last-Modified %q, Date %q: want an HTTP-date not after Date", fr.Header.Get("Last-Modified"), fr.Header.Get("Date"))
	}
	f.Do("GET", future, "", "If-Modified-Since", fr.Header.Get("Last-Modified")).Want(t, 200)
	wantPrecondition(t, f.Do("PUT", future, loc("https://example.org/g"), append(auth(f.books), "If-Unmodified-Since", fr.Header.Get("Last-Modified"))...),
		"If-Unmodified-Since", etagOf(t, fr))
}
