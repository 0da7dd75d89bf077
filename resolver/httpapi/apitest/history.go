package apitest

// A record's history read backwards: before=end for the newest page,
// before=SEQ for the page before an entry, and the links (RFC 8288) that
// tie the pages into one series whichever way it is walked.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
)

var (
	linkField = regexp.MustCompile(`^<[^<>]*>; rel="[a-z]+"(, <[^<>]*>; rel="[a-z]+")*$`)
	linkValue = regexp.MustCompile(`<([^<>]*)>; rel="([a-z]+)"`)
)

// pageLinks returns the targets of the links of a page of a history by
// relation, checking that they come in one Link field, each relation at
// most once.
func pageLinks(t *testing.T, r *Resp) map[string]string {
	t.Helper()
	fields := r.Header.Values("Link")
	switch {
	case len(fields) == 0:
		return map[string]string{}
	case len(fields) > 1:
		t.Fatalf("%d Link fields: %q", len(fields), fields)
	case !linkField.MatchString(fields[0]):
		t.Fatalf("Link %q is not a list of links", fields[0])
	}
	links := map[string]string{}
	for _, m := range linkValue.FindAllStringSubmatch(fields[0], -1) {
		if _, dup := links[m[2]]; dup {
			t.Fatalf("Link %q gives rel=%q twice", fields[0], m[2])
		}
		links[m[2]] = m[1]
	}
	return links
}

// walkHistoryBack reads a history from target, following each prev link
// to the start, and returns the entries in Seq order and the pages' sizes
// in the order read (the newest page first), checking that each page is in
// Seq order and before the page read before it.
func walkHistoryBack(t *testing.T, e *Env, target string) (all []historyEntry, pages []int) {
	t.Helper()
	for target != "" {
		if len(pages) > 1000 {
			t.Fatalf("more than 1000 pages")
		}
		r := e.Do("GET", target, "").Want(t, 200)
		var page []historyEntry
		r.JSON(t, &page)
		for i, en := range page {
			if i > 0 && en.Seq <= page[i-1].Seq || i == len(page)-1 && len(all) > 0 && en.Seq >= all[0].Seq {
				t.Fatalf("%s: entry %d out of order (page %v, next page from %d)", target, en.Seq, seqsOf(page), all[0].Seq)
			}
		}
		all, pages = append(page, all...), append(pages, len(page))
		target = pageLinks(t, r)["prev"]
	}
	return all, pages
}

func seqsOf(es []historyEntry) []int64 {
	var s []int64
	for _, e := range es {
		s = append(s, e.Seq)
	}
	return s
}

// sameEntries fails unless got and want are the same entries, in order.
func sameEntries(t *testing.T, what string, got, want []historyEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: entries %v, want %v", what, seqsOf(got), seqsOf(want))
	}
	for i := range got {
		if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Hash, want[i].Hash) || string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("%s: entry %d is %d, want %d", what, i, got[i].Seq, want[i].Seq)
		}
	}
}

// pagedChanges is how many changes putPagedHistory makes to
// urn:example:paged before its last.
const pagedChanges = 12

// putPagedHistory gives urn:example:paged a history of pagedChanges+1
// entries, with changes to urn:example:other in between, so that its
// entries' numbers are not consecutive; the last change gives it the alias
// urn:example:paged-alias.
func putPagedHistory(t *testing.T, f *fixture) {
	t.Helper()
	for i := range pagedChanges {
		f.Put(f.books, "urn:example:paged", loc(fmt.Sprintf("https://example.org/p/%d", i))).Want(t, map[bool]int{true: 201, false: 200}[i == 0])
		f.Put(f.books, "urn:example:other", loc(fmt.Sprintf("https://example.org/o/%d", i))).Want(t, map[bool]int{true: 201, false: 200}[i == 0])
	}
	f.Put(f.books, "urn:example:paged", `{"locations":[{"url":"https://example.org/p/last"}],"aliases":["urn:example:paged-alias"]}`).Want(t, 200)
}

// testHistoryBackward: before=end gives the newest page of a record's
// history and before=SEQ the page before an entry, oldest first within
// the page as every page; following the prev links back to the start
// gives the whole history, each entry once; the links name the pages
// around a page however it was reached (first, prev, next, last), and the
// Go client reads back from the newest.
func testHistoryBackward(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	const changes = pagedChanges
	putPagedHistory(t, f)
	whole, _ := walkHistory(t, f.Env, "/api/v1/names/urn:example:paged/history")
	if len(whole) != changes+1 {
		t.Fatalf("the whole history: %d entries", len(whole))
	}
	seq := func(i int) string { return strconv.FormatInt(whole[i].Seq, 10) }
	const base = "/api/v1/names/urn:example:paged/history?"
	for _, tc := range []struct {
		target string
		pages  []int // newest first
		from   int   // the first entry the walk reaches
		to     int   // past the last
	}{
		{base + "before=end", []int{13}, 0, 13},
		{base + "before=end&limit=5", []int{5, 5, 3}, 0, 13},
		{base + "limit=5&before=end", []int{5, 5, 3}, 0, 13},
		{base + "before=end&limit=1", slices.Repeat([]int{1}, changes+1), 0, 13},
		// A page that starts the history has no link back, even when full.
		{base + "before=end&limit=13", []int{13}, 0, 13},
		{base + "before=end&limit=10000", []int{13}, 0, 13},
		// By an alias, or another spelling: the same record.
		{"/api/v1/names/urn:example:paged-alias/history?before=end&limit=7", []int{7, 6}, 0, 13},
		{"/api/v1/names/URN:EXAMPLE:paged/history?before=end&limit=4", []int{4, 4, 4, 1}, 0, 13},
		// From a cursor: the entries below it.
		{base + "before=" + seq(3), []int{3}, 0, 3},
		{base + "limit=2&before=" + seq(5), []int{2, 2, 1}, 0, 5},
		// A cursor between two entries, or past the newest.
		{base + "before=" + strconv.FormatInt(whole[6].Seq-1, 10) + "&limit=4", []int{4, 2}, 0, 6},
		{base + "before=999999999&limit=5", []int{5, 5, 3}, 0, 13},
		// Below the first entry: an empty page.
		{base + "before=" + seq(0), []int{0}, 0, 0},
		{base + "before=1", []int{0}, 0, 0},
	} {
		got, pages := walkHistoryBack(t, f.Env, tc.target)
		if !slices.Equal(pages, tc.pages) {
			t.Errorf("%s: pages of %v, want %v", tc.target, pages, tc.pages)
		}
		sameEntries(t, tc.target, got, whole[tc.from:tc.to])
	}

	// The links of a page in the middle, read back or forward: the same
	// entries, the same links, the record named by its name.
	want := map[string]string{
		"first": base + "limit=3",
		"prev":  base + "before=" + seq(5) + "&limit=3",
		"next":  base + "after=" + seq(7) + "&limit=3",
		"last":  base + "before=end&limit=3",
	}
	for _, target := range []string{
		"/api/v1/names/urn:example:paged-alias/history?before=" + seq(8) + "&limit=3",
		"/api/v1/names/urn:example:paged-alias/history?after=" + seq(4) + "&limit=3",
	} {
		r := f.Do("GET", target, "").Want(t, 200)
		var page []historyEntry
		r.JSON(t, &page)
		sameEntries(t, target, page, whole[5:8])
		if got := pageLinks(t, r); !maps.Equal(got, want) {
			t.Errorf("%s: links %q, want %q", target, got, want)
		}
		wantHeader(t, r, "Link", "<"+want["first"]+`>; rel="first", <`+want["prev"]+`>; rel="prev", <`+want["next"]+`>; rel="next", <`+want["last"]+`>; rel="last"`)
	}
	// The ends: the newest page links back only, the first page on only;
	// a page that holds the whole history has no link.
	for target, rels := range map[string][]string{
		base + "before=end&limit=3":                   {"first", "prev"},
		base + "limit=3":                              {"last", "next"},
		base + "after=0&limit=3":                      {"last", "next"},
		base + "before=end&limit=13":                  {},
		base + "before=" + seq(3) + "&limit=3":        {"last", "next"},
		base + "after=" + seq(9) + "&limit=3":         {"first", "prev"},
		base + "before=" + seq(0) + "&limit=3":        {}, // empty
		base + "after=" + seq(changes) + "&limit=3":   {}, // empty
		base + "before=999999999&limit=3":             {"first", "prev"},
		base + "before=" + seq(changes) + "&limit=12": {"last", "next"},
	} {
		got := slices.Sorted(maps.Keys(pageLinks(t, f.Do("GET", target, "").Want(t, 200))))
		if slices.Sort(rels); !slices.Equal(got, rels) {
			t.Errorf("%s: links %q, want %q", target, got, rels)
		}
	}
	// The first and last links lead to the ends of the series; following
	// next from a page read back leads on to the newest entry.
	r := f.Do("GET", base+"before="+seq(8)+"&limit=3", "").Want(t, 200)
	links := pageLinks(t, r)
	if got, _ := walkHistory(t, f.Env, links["next"]); len(got) != 5 || got[4].Seq != whole[changes].Seq {
		t.Fatalf("next from a page read back: %v", seqsOf(got))
	}
	first, _ := walkHistory(t, f.Env, links["first"])
	sameEntries(t, "first", first, whole)
	last, _ := walkHistoryBack(t, f.Env, links["last"])
	sameEntries(t, "last", last, whole)

	// The Go client: the newest page, and the history newest first.
	c := client.New(f.URL, "")
	p, err := c.HistoryPageBefore(context.Background(), "urn:example:paged-alias", 0, 5)
	if err != nil || len(p.Entries) != 5 || p.Entries[4].Seq != whole[changes].Seq || p.Prev == nil || *p.Prev != whole[8].Seq || p.Next != nil {
		t.Fatalf("client.HistoryPageBefore(0, 5): %d entries, prev %v, next %v, %v", len(p.Entries), p.Prev, p.Next, err)
	}
	p, err = c.HistoryPageBefore(context.Background(), "urn:example:paged", whole[8].Seq, 5)
	if err != nil || len(p.Entries) != 5 || p.Entries[0].Seq != whole[3].Seq || p.Prev == nil || *p.Prev != whole[3].Seq || p.Next == nil || *p.Next != whole[7].Seq {
		t.Fatalf("client.HistoryPageBefore(%d, 5): %d entries, prev %v, next %v, %v", whole[8].Seq, len(p.Entries), p.Prev, p.Next, err)
	}
	p, err = c.HistoryPage(context.Background(), "urn:example:paged", whole[2].Seq, 5)
	if err != nil || p.Prev == nil || *p.Prev != whole[3].Seq || p.Next == nil || *p.Next != whole[7].Seq {
		t.Fatalf("client.HistoryPage(%d, 5): prev %v, next %v, %v", whole[2].Seq, p.Prev, p.Next, err)
	}
	for _, n := range []int{0, 1, 4, 13, 14} {
		h, err := c.RecentHistory(context.Background(), "urn:example:paged", n)
		wantN := min(n, len(whole))
		if n == 0 {
			wantN = len(whole)
		}
		if err != nil || len(h) != wantN {
			t.Fatalf("client.RecentHistory(%d): %d entries, %v", n, len(h), err)
		}
		for i, e := range h {
			if w := whole[len(whole)-1-i]; e.Seq != w.Seq || !bytes.Equal(e.Hash, w.Hash) || !e.Sound() {
				t.Fatalf("client.RecentHistory(%d): entry %d is %d, want %d", n, i, e.Seq, w.Seq)
			}
		}
	}
	if _, err := c.RecentHistory(context.Background(), "urn:example:none", 0); resolverKind(err) != resolver.KindNotFound {
		t.Fatalf("client.RecentHistory of no record: %v", err)
	}
	f.Do("GET", "/api/v1/names/urn:example:none/history?before=end", "").Want(t, 404).Problem(t)
}

// testHistoryWithdrawnBackward: a withdrawn record's history reads back
// from its newest page as any other (200: the history is not the name,
// which is gone): the withdrawal and the notice restated after it last,
// every entry once.
func testHistoryWithdrawnBackward(t *testing.T, ns func(*testing.T) resolver.Store) {
	f := newFixture(t, ns)
	for i := range 4 {
		f.Put(f.books, "urn:example:gone", loc(fmt.Sprintf("https://example.org/g/%d", i))).Want(t, map[bool]int{true: 201, false: 200}[i == 0])
		f.Clock.Advance(time.Second)
	}
	f.Do("POST", "/api/v1/names/urn:example:gone/withdraw", `{"reason":"r"}`, auth(f.books)...).Want(t, 200)
	f.Do("POST", "/api/v1/names/urn:example:gone/withdraw", `{"reason":"moved","successor":"urn:example:there"}`, auth(f.books)...).Want(t, 200)
	f.Do("GET", "/urn:example:gone", "").Want(t, 410)
	whole, _ := walkHistory(t, f.Env, "/api/v1/names/urn:example:gone/history")
	back, pages := walkHistoryBack(t, f.Env, "/api/v1/names/urn:example:gone/history?before=end&limit=4")
	sameEntries(t, "back", back, whole)
	if len(whole) != 6 || !slices.Equal(pages, []int{4, 2}) {
		t.Fatalf("%d entries, pages back %v", len(whole), pages)
	}
	var newest []entryFields
	f.Do("GET", "/api/v1/names/urn:example:gone/history?before=end&limit=2", "").Want(t, 200).JSON(t, &newest)
	if len(newest) != 2 || newest[0].Action != "name.withdraw" || newest[1].Action != "name.withdraw" || !strings.Contains(string(newest[1].Data), "urn:example:there") {
		t.Fatalf("the newest page of a withdrawn record: %+v", newest)
	}
	h, err := client.New(f.URL, "").RecentHistory(context.Background(), "urn:example:gone", 3)
	if err != nil || len(h) != 3 || h[0].Action != "name.withdraw" || h[2].Action != "name.update" {
		t.Fatalf("client.RecentHistory of a withdrawn record: %+v, %v", h, err)
	}
}

func resolverKind(err error) resolver.Kind {
	var e *resolver.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 255
}
