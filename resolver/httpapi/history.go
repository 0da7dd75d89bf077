package httpapi

// A record's history, a page at a time. A name changed a hundred thousand
// times (a script in a loop) has as many entries, each holding the whole
// record: its history is read as the log is, in pages bounded by a count
// and by bytes of data, and the answer stays a JSON array, with the next
// page in a Link header (RFC 8288 §3) rather than a member.

import (
	"context"
	"net/http"
	"strconv"

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

// nameHistory is GET /api/v1/names/{urn}/history?after=SEQ&limit=N
// (anyone): the entries of the directory's history about the record the
// name resolves to, oldest first, with their chain hashes; at most limit
// of them (DefaultPageSize when absent), from the first with Seq > after.
// When more remain, Link gives the next page.
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
	after, err := afterSeq(q)
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
	page, more, err := historyPage(ctx, h.svc, rec.ID, after, limit)
	if err != nil {
		return answer{}, err
	}
	if more {
		c.rw.Header().Set("Link", "<"+historyTarget(rec.URN, page[len(page)-1].Seq, limit)+`>; rel="next"`)
	}
	return answer{status: http.StatusOK, body: nonNil(page)}, nil
}

// historyTarget is the request target of a page of a record's history.
func historyTarget(name string, after int64, limit int) string {
	return "/api/v1/names/" + segment(name) + "/history?after=" + strconv.FormatInt(after, 10) + "&limit=" + strconv.Itoa(limit)
}

// historyPage reads a page of record id's history: up to limit entries
// with Seq > after, fewer when their data would take the page past
// logPageBytes (the first entry is always in it, so that a reader gets on),
// and whether any entry remains after the page. It reads one entry past
// the page to know, rather than promising a next page that is empty.
func historyPage(ctx context.Context, svc *resolver.Service, id, after int64, limit int) (page []resolver.Entry, more bool, err error) {
	size := 0
	for {
		// One more than the page may still take: it tells whether
		// entries remain.
		want := nextChunk(len(page), size, limit) + 1
		es, err := svc.RecordHistory(ctx, id, after, want)
		if err != nil {
			return nil, false, err
		}
		for _, e := range es {
			if len(page) == limit || len(page) > 0 && size+len(e.Data) > logPageBytes {
				return page, true, nil
			}
			page, size, after = append(page, e), size+len(e.Data), e.Seq
		}
		if len(es) < want {
			return page, false, nil
		}
	}
}
