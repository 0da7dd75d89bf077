package httpapi

// A record's history, a page at a time. A name changed a hundred thousand
// times (a script in a loop) has as many entries, each holding the whole
// record: its history is read as the log is, in pages bounded by a count
// and by bytes of data, and the answer stays a JSON array, with the pages
// around it in a Link header (RFC 8288 §3) rather than in members. The
// pages form one series, oldest first: after= walks it forward from the
// first page, before= backward from the last, and a page's entries are in
// Seq order whichever way it was reached.

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
)

// historyChunk is how many entries a page of a record's history reads from
// the store at a time; a page holds at most logPageBytes bytes of entries'
// data (but always its first entry), as a page of the log does.
const historyChunk = logChunk

// firstChunk is how many entries a page of a record's history, or of its
// versions, reads first: a record of 200 KB fills a page's 4 MiB with
// twenty of them.
const firstChunk = 16

// nextChunk is how many entries a page bounded by limit entries and
// logPageBytes of data reads next, having taken n of them holding size
// bytes: at most historyChunk, and after the first chunk no more than
// the bytes left would hold at the mean size so far (and one), so that a
// page of large entries reads little more than it sends.
func nextChunk(n, size, limit int) int {
	want := min(historyChunk, limit-n)
	if n == 0 {
		return min(want, firstChunk)
	}
	if mean := size / n; mean > 0 {
		want = min(want, max(0, logPageBytes-size)/mean+1)
	}
	return max(want, 1)
}

// nameHistory is GET /api/v1/names/{urn}/history?after=SEQ&limit=N, or
// ?before=SEQ&limit=N (anyone): the entries of the directory's history
// about the record the name resolves to, with their chain hashes, oldest
// first; at most limit of them (DefaultPageSize when absent), from the
// first with Seq > after, or the newest with Seq < before (before=end: the
// newest of all). Link gives the pages around it (historyLinks).
func (h *handler) nameHistory(c *apiCall) (answer, error) {
	u, err := resolver.ParseName("urn", c.r.PathValue("urn"))
	if err != nil {
		return answer{}, err
	}
	// after= and limit= as on every listing (pageQuery).
	q, limit, err := c.pageQuery()
	if err != nil {
		return answer{}, err
	}
	cur, err := historyQuery(q)
	if err != nil {
		return answer{}, err
	}
	ctx, err := c.readContext()
	if err != nil {
		return answer{}, err
	}
	rec, err := h.svc.Lookup(ctx, u)
	if err != nil {
		return answer{}, err
	}
	page, older, newer, err := historyPage(ctx, h.svc, rec.ID, cur, limit)
	if err != nil {
		return answer{}, err
	}
	if l := historyLinks(rec.URN, page, older, newer, limit); l != "" {
		c.rw.Header().Set("Link", l)
	}
	return answer{status: http.StatusOK, body: nonNil(page)}, nil
}

// historyCursor is where a page of a record's history starts.
type historyCursor struct {
	// back is set by before=: the page is the newest entries with Seq
	// below before (every entry when before is 0, which before=end asks
	// for). Otherwise it is the oldest with Seq above after.
	back          bool
	after, before int64
}

// historyEnd is the value of before= that asks for the newest page.
//
// The newest page needs a word of its own. The cursor before= is a Seq:
// entries below it. 0 cannot mean "no bound" as in the store's
// HistoryBefore, because read as a number it is "below 0", no entry at
// all; and an empty value cannot, because on every listing an empty value
// is taken as none (after= empty is the first page), so before= empty is
// as if absent: a form that leaves a field blank must not change the page.
// "end" reads as what it gives: the entries before the end of the history.
// A page with older ones before it also links to this one as rel="last"
// (RFC 8288 §2.1.1: the furthest following resource in the series), so a
// client that started at the first page finds it without knowing the word.
const historyEnd = "end"

// historyQuery reads the cursor of a page of a record's history: after=
// (as on every listing: afterSeq) or before=, not both: a page that began
// after one entry and ended before another would be neither a step
// forward nor one back, and which one was meant is unclear.
func historyQuery(q url.Values) (historyCursor, error) {
	after, err := afterSeq(q)
	if err != nil {
		return historyCursor{}, err
	}
	before, back, err := beforeSeq(q)
	if err != nil {
		return historyCursor{}, err
	}
	if back && q.Get("after") != "" {
		return historyCursor{}, newProblem(http.StatusBadRequest, ptInvalid,
			"after and before are both given: give one of them (after= pages on to newer entries, before= back to older ones)").at("before", -1)
	}
	return historyCursor{back: back, after: after, before: before}, nil
}

// beforeSeq reads before= of a history: absent or empty (none: ok false),
// "end" (0: the newest page), or a positive Seq, given once.
func beforeSeq(q url.Values) (before int64, ok bool, err error) {
	if err := onceEach(q, "before"); err != nil {
		return 0, false, err
	}
	switch v := q.Get("before"); v {
	case "":
		return 0, false, nil
	case historyEnd:
		return 0, true, nil
	default:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return 0, false, newProblem(http.StatusBadRequest, ptInvalid,
				"before must be the prev cursor of a later page (a positive integer) or end (the newest page), not "+strconv.Quote(truncate(v, 32))).at("before", -1)
		}
		return n, true, nil
	}
}

// historyLinks is the Link field of a page of record name's history
// (RFC 8288 §3), "" when it has none: rel="prev" to the page before it
// when older entries remain, with rel="first" to the first page; rel="next"
// to the page after it when newer ones do, with rel="last" to the newest
// page. "prev" and "next" are the relations HTML and RFC 5005's paged
// feeds give such pages (RFC 8288 §2.1.2 registers them), and the series
// is oldest first as each page is. An empty page (a cursor past either
// end) has no neighbour to name.
func historyLinks(name string, page []resolver.Entry, older, newer bool, limit int) string {
	if len(page) == 0 {
		return ""
	}
	base := "/api/v1/names/" + segment(name) + "/history?"
	lim := "limit=" + strconv.Itoa(limit)
	var links []string
	link := func(query, rel string) {
		links = append(links, "<"+base+query+`>; rel="`+rel+`"`)
	}
	if older {
		link(lim, "first")
		link("before="+strconv.FormatInt(page[0].Seq, 10)+"&"+lim, "prev")
	}
	if newer {
		link("after="+strconv.FormatInt(page[len(page)-1].Seq, 10)+"&"+lim, "next")
		link("before="+historyEnd+"&"+lim, "last")
	}
	return strings.Join(links, ", ")
}

// historyPage reads the page of record id's history that cur starts, in
// Seq order, and whether entries older and newer than it remain. It holds
// up to limit entries, fewer when their data would take the page past
// logPageBytes (the entry next to the cursor is always in it, so that a
// reader gets on). The side the page was read towards is known from one
// entry read past it; the side of the cursor takes one more read, of one
// entry, unless the cursor is the history's start or end.
func historyPage(ctx context.Context, svc *resolver.Service, id int64, cur historyCursor, limit int) (page []resolver.Entry, older, newer bool, err error) {
	forward := func(after int64, n int) ([]resolver.Entry, error) { return svc.RecordHistory(ctx, id, after, n) }
	back := func(before int64, n int) ([]resolver.Entry, error) {
		return svc.RecentHistory(ctx, id, before, time.Time{}, n)
	}
	if cur.back {
		page, older, err = readHistory(back, cur.before, limit)
		slices.Reverse(page)
		if err == nil && cur.before > 0 && len(page) > 0 {
			newer, err = anyHistory(forward, page[len(page)-1].Seq)
		}
	} else {
		page, newer, err = readHistory(forward, cur.after, limit)
		if err == nil && cur.after > 0 && len(page) > 0 {
			older, err = anyHistory(back, page[0].Seq)
		}
	}
	if err != nil {
		return nil, false, false, err
	}
	return page, older, newer, nil
}

// readHistory reads a page from the cursor from on with read (entries
// past a cursor, nearest first): up to limit entries and logPageBytes of
// data but the first, in the order read gives, and whether any remain
// past the page. It reads one entry past the page to know, rather than
// promising a page that is empty.
func readHistory(read func(from int64, n int) ([]resolver.Entry, error), from int64, limit int) (page []resolver.Entry, more bool, err error) {
	size := 0
	for {
		// One more than the page may still take: it tells whether
		// entries remain.
		want := nextChunk(len(page), size, limit) + 1
		es, err := read(from, want)
		if err != nil {
			return nil, false, err
		}
		for _, e := range es {
			if len(page) == limit || len(page) > 0 && size+len(e.Data) > logPageBytes {
				return page, true, nil
			}
			page, size, from = append(page, e), size+len(e.Data), e.Seq
		}
		if len(es) < want {
			return page, false, nil
		}
	}
}

// anyHistory reports whether read finds an entry past the cursor from.
func anyHistory(read func(from int64, n int) ([]resolver.Entry, error), from int64) (bool, error) {
	es, err := read(from, 1)
	return len(es) > 0, err
}
