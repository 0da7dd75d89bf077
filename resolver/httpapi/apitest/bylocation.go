package apitest

import (
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
)

// popular is the URL the tests of bounded answers by location share.
const popular = "https://popular.example/"

// popularName is the name of the i-th record listing popular.
func popularName(i int) string { return fmt.Sprintf("urn:example:pop-%03d", i) }

// putPopular registers the i-th record listing popular, with a location
// of its own (listed first) and an alias.
func putPopular(t *testing.T, f *fixture, i int) {
	t.Helper()
	f.Put(f.books, popularName(i), fmt.Sprintf(`{"locations":[{"url":"https://own.example/%d"},{"url":%q}],"aliases":[%q]}`,
		i, popular, popularName(i)+"-alias")).Want(t, 201)
}

// uriListParts splits a text/uri-list answered about popular into its
// comment lines after the first (which must give the URL asked about) and
// its URIs.
func uriListParts(t *testing.T, r *Resp) (comments, uris []string) {
	t.Helper()
	if !strings.HasSuffix(r.Body, "\r\n") {
		t.Fatalf("uri-list does not end in CRLF: %q", r.Body)
	}
	lines := strings.Split(strings.TrimSuffix(r.Body, "\r\n"), "\r\n")
	if lines[0] != "# "+popular {
		t.Fatalf("first line %q, want the URL asked about", lines[0])
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "#") { // RFC 2483 §5: a comment line
			comments = append(comments, l)
		} else {
			uris = append(uris, l)
		}
	}
	return comments, uris
}

// checkPopular checks L2Ns, L2Ls and L2C about popular in each format:
// they cover the records from popularName(first) to popularName(first+n-1)
// (in registration order), and say that more records list it exactly when
// more is true.
func checkPopular(t *testing.T, f *fixture, first, n int, more bool, headers ...string) {
	t.Helper()
	var urns, names, locs []string
	for i := first; i < first+n; i++ {
		urns = append(urns, popularName(i))
		names = append(names, popularName(i), popularName(i)+"-alias")
		locs = append(locs, fmt.Sprintf("https://own.example/%d", i))
		if i == first {
			locs = append(locs, popular)
		}
	}
	type body struct {
		URL       string   `json:"url"`
		Names     []string `json:"names"`
		Locations []struct {
			URL string `json:"url"`
		} `json:"locations"`
		More *bool  `json:"more_records"`
		Next string `json:"next"`
	}
	l2c := http.StatusMultipleChoices
	if n == 1 && !more {
		l2c = http.StatusOK
	}
	for _, c := range []struct {
		service string
		status  int
		want    []string
	}{
		{"L2Ns", http.StatusOK, names},
		{"L2Ls", http.StatusOK, locs},
		{"L2C", l2c, urns},
	} {
		target := "/uri-res/" + c.service + "?" + popular
		what := fmt.Sprintf("%s %v", c.service, headers)
		if c.status == http.StatusOK && c.service == "L2C" {
			f.Do("GET", target, "", headers...).Want(t, c.status)
			continue
		}
		// text/uri-list: a comment line says the list is cut, and where
		// the rest is (RFC 2483 §5 lets a list hold comment lines).
		comments, uris := uriListParts(t, f.Do("GET", target, "", headers...).Want(t, c.status))
		if !slices.Equal(uris, c.want) {
			t.Fatalf("%s uri-list: %d URIs %q…, want %d %q…", what, len(uris), uris[:min(4, len(uris))], len(c.want), c.want[:min(4, len(c.want))])
		}
		const cutSays = "# cut: more records list this URL than this list covers (it covers those registered first); the rest: GET "
		if cut := len(comments) == 1 && strings.HasPrefix(comments[0], cutSays); cut != more || len(comments) > 1 {
			t.Fatalf("%s uri-list: comments %q, want a line saying the list is cut: %v", what, comments, more)
		}
		var next string
		if more {
			next = strings.TrimPrefix(comments[0], cutSays)
			checkRest(t, f, what, next, first, n)
		}
		// JSON: "more_records":true, absent when nothing was left out.
		r := f.Do("GET", target, "", append([]string{"Accept", "application/json"}, headers...)...).Want(t, c.status)
		var b body
		r.JSON(t, &b)
		got := b.Names
		if c.service == "L2Ls" {
			got = nil
			for _, l := range b.Locations {
				got = append(got, l.URL)
			}
		}
		if b.URL != popular || !slices.Equal(got, c.want) {
			t.Fatalf("%s JSON: url %q, %d items, want %d", what, b.URL, len(got), len(c.want))
		}
		if more && (b.More == nil || !*b.More) || !more && b.More != nil || b.Next != next {
			t.Fatalf("%s JSON: more_records %v, next %q, want %v, %q: %.200s", what, b.More, b.Next, more, next, r.Body)
		}
		// HTML: a line under the list.
		r = f.Do("GET", target, "", append([]string{"Accept", browserAccept}, headers...)...).Want(t, c.status)
		if items := strings.Count(r.Body, "<LI>"); items != len(c.want) {
			t.Fatalf("%s HTML: %d items, want %d", what, items, len(c.want))
		}
		if cut := strings.Contains(r.Body, "The list is cut: more records list this URL"); cut != more {
			t.Fatalf("%s HTML: says it is cut: %v, want %v: %s", what, cut, more, r.Body[max(0, len(r.Body)-600):])
		}
		if link := `<a href="` + html.EscapeString(next) + `">The rest</a>`; more && !strings.Contains(r.Body, link) {
			t.Fatalf("%s HTML: no link %s: %s", what, link, r.Body[max(0, len(r.Body)-600):])
		}
	}
}

// checkRest checks next, where an answer about popular that covers the
// records from popularName(first) to popularName(first+n-1) says the rest
// are: anyone's GET of it lists the records registered after the last
// one covered (from the first when none is), some of them at least.
func checkRest(t *testing.T, f *fixture, what, next string, first, n int) {
	t.Helper()
	var p struct {
		Location string `json:"location"`
		Records  []struct {
			URN string `json:"urn"`
		} `json:"records"`
	}
	f.Do("GET", next, "").Want(t, 200).JSON(t, &p)
	from := first + n
	if n == 0 {
		from = 0
	}
	ok := p.Location == popular && len(p.Records) > 0
	for i := 0; ok && i < len(p.Records); i++ {
		ok = p.Records[i].URN == popularName(from+i)
	}
	if !strings.HasPrefix(next, "/api/v1/locations?url=") || !ok {
		t.Fatalf("%s: the rest, at %s: %+v, want the records from %s", what, next, p, popularName(from))
	}
}

// testByLocationBounded: L2Ns, L2Ls and L2C cover the first
// resolver.MaxByLocation records that list a URL, in registration order,
// and say so when more list it: any maintainer may list any URL, and any
// anonymous reader may ask about it. As of a time too, where each record
// costs an as-of lookup: no more records are looked up than are covered.
func testByLocationBounded(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	n := resolver.MaxByLocation
	before := []string{"Accept-Datetime", f.Clock.Now().Format(http.TimeFormat)} // no record lists popular
	f.Clock.Advance(time.Second)
	for i := range n {
		putPopular(t, f, i)
	}
	f.Clock.Advance(time.Second)
	tN := f.Clock.Now() // n records list popular
	adt := []string{"Accept-Datetime", tN.Format(http.TimeFormat)}
	// n records: all of them, nothing said.
	checkPopular(t, f, 0, n, false)
	checkPopular(t, f, 0, n, false, adt...)
	for _, service := range []string{"L2Ns", "L2Ls", "L2C"} {
		f.Do("GET", "/uri-res/"+service+"?"+popular, "", before...).Want(t, 404).Problem(t)
	}
	// n+1: the first n, and the answers say more records list it.
	f.Clock.Advance(time.Second)
	putPopular(t, f, n)
	checkPopular(t, f, 0, n, true)
	// As of a time: the first n+1 records that list it now are read, the
	// first n looked up as of then (they listed it), and since one more
	// lists it now, which may have listed it then (it did not), the
	// answers say that more records list it.
	checkPopular(t, f, 0, n, true, adt...)
	checkPopular(t, f, 0, n, true, "Accept-Datetime", f.Clock.Now().Format(http.TimeFormat))
	// None of the first n listed it then, but the last may have: an
	// empty list that says so, not a 404.
	checkPopular(t, f, 0, 0, true, before...)
	f.Reads.Reset()
	f.Do("GET", "/uri-res/L2Ns?"+popular, "", adt...).Want(t, 200)
	if got, hist := f.Reads.ByLocation(), f.Reads.HistoryOf(); got > n+1 || hist > n {
		t.Fatalf("an L2Ns as of a time read %d records by location and the history of %d, want at most %d and %d", got, hist, n+1, n)
	}
	// A withdrawn record is neither listed nor counted: with the first
	// withdrawn, n active records list it, and the answer has them all.
	f.Do("POST", "/api/v1/names/"+popularName(0)+"/withdraw", `{}`, auth(f.books)...).Want(t, 200)
	checkPopular(t, f, 1, n, false)
	// As of before the withdrawal, the withdrawn record is read too (it
	// listed the URL then): the first n, and more.
	checkPopular(t, f, 0, n, true, adt...)
}

// testByLocationBytes: an answer by location holds at most about 4 MiB of
// names or locations (but always its first record's), however few the
// records: each may have 64 aliases and 64 locations of 2 KiB.
func testByLocationBytes(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const records = 35
	urns := putBigRecords(t, f, records)
	for _, service := range []string{"L2Ns", "L2Ls"} {
		r := f.Do("GET", "/uri-res/"+service+"?"+popular, "", "Accept", "application/json").Want(t, 200)
		var b struct {
			Names     []string `json:"names"`
			Locations []struct {
				URL   string `json:"url"`
				Label string `json:"label"`
			} `json:"locations"`
			More bool   `json:"more_records"`
			Next string `json:"next"`
		}
		r.JSON(t, &b)
		size, covered := 0, map[string]bool{}
		for _, n := range b.Names {
			size += len(n)
			covered[n[:len("urn:example:big-00")]] = true
		}
		for _, l := range b.Locations {
			size += len(l.URL) + len(l.Label)
			if l.URL != popular {
				var i, j int
				fmt.Sscanf(l.URL, "https://big.example/%d/%d/", &i, &j)
				covered[urns[i]] = true
			}
		}
		// The first records, whole, in order: at most 4 MiB of them.
		var first []string
		for _, u := range urns {
			if covered[u] {
				first = append(first, u)
			}
		}
		if !b.More || len(first) == 0 || len(first) == records || !slices.Equal(first, urns[:len(first)]) || size > 4<<20 {
			t.Fatalf("%s: %d records covered, %d bytes, more_records %v", service, len(first), size, b.More)
		}
		if service == "L2Ns" && len(b.Names) != len(first)*(1+resolver.DefaultMaxAliases) ||
			service == "L2Ls" && len(b.Locations) != 1+len(first)*(resolver.DefaultMaxLocations-1) {
			t.Fatalf("%s: records cut in the middle: %d names, %d locations of %d records", service, len(b.Names), len(b.Locations), len(first))
		}
		// The rest: from the record after the last one shown, not
		// after the last one read.
		var rest struct {
			Records []struct {
				URN string `json:"urn"`
			} `json:"records"`
		}
		f.Do("GET", b.Next, "").Want(t, 200).JSON(t, &rest)
		if len(rest.Records) == 0 || rest.Records[0].URN != urns[len(first)] {
			t.Fatalf("%s: the rest, at %s, begins with %+v, want %s", service, b.Next, rest.Records[:min(1, len(rest.Records))], urns[len(first)])
		}
		t.Logf("%s: %d records, %d bytes", service, len(first), size)
		comments, _ := uriListParts(t, f.Do("GET", "/uri-res/"+service+"?"+popular, "").Want(t, 200))
		if len(comments) != 1 {
			t.Fatalf("%s uri-list: comments %q", service, comments)
		}
	}
}

// putBigRecords registers n records listing popular, each as large as the
// default limits let it be (64 aliases, 64 locations of about 2 KiB, with
// labels of 1 KiB), and returns their names in registration order.
func putBigRecords(t *testing.T, f *fixture, n int) []string {
	t.Helper()
	var urns []string
	for i := range n {
		name := fmt.Sprintf("urn:example:big-%02d", i)
		var b strings.Builder
		b.WriteString(`{"aliases":[`)
		for j := range resolver.DefaultMaxAliases {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s-%02d-%s"`, name, j, strings.Repeat("a", 1980))
		}
		fmt.Fprintf(&b, `],"locations":[{"url":%q}`, popular)
		for j := 1; j < resolver.DefaultMaxLocations; j++ {
			fmt.Fprintf(&b, `,{"url":"https://big.example/%d/%d/%s","label":%q}`, i, j, strings.Repeat("p", 1980), strings.Repeat("l", 1000))
		}
		b.WriteString(`]}`)
		f.Put(f.books, name, b.String()).Want(t, 201)
		urns = append(urns, name)
	}
	return urns
}
