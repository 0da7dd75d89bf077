package httpapi

// Listing the whole directory: the records and the shared locations for
// the admin's tools (urikit export and urikit duplicates against a running
// server), and the public log of the history for anyone (urikit log). All
// are paged by a cursor (the last ID, location key or Seq of a page), so
// that a directory of any size is read in bounded pieces and a page costs
// one index range scan.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
)

// Page sizes of the listings.
const (
	DefaultPageSize = 1000
	MaxPageSize     = 10000
)

func (h *handler) listingRoutes() []route {
	return []route{
		{method: "GET", pattern: "/api/v1/names", serve: h.api(h.listNames)},
		{method: "GET", pattern: "/api/v1/duplicates", serve: h.api(h.listDuplicates)},
		{method: "GET", pattern: "/api/v1/locations", serve: h.publicAPI(h.listLocation)},
		{method: "GET", pattern: "/api/v1/log", serve: h.logAccess(h.listLog)},
	}
}

// recordsPage is the answer of GET /api/v1/names.
type recordsPage struct {
	Records []resolver.Record `json:"records"`
	// Next is the cursor of the next page (the ID of this page's last
	// record), absent on the last page.
	Next *int64 `json:"next,omitempty"`
}

// duplicate is one location that several records share.
type duplicate struct {
	Location string            `json:"location"` // the URL after scheme-based normalization
	URNs     []string          `json:"urns"`     // the records' names, in record order: the first resolver.MaxByLocation
	Statuses []resolver.Status `json:"statuses"` // their statuses, in the same order
	// MoreURNs: more records list the location than URNs holds; Next is
	// then the page of GET /api/v1/locations that lists the rest, as the
	// cut answers of L2Ns link to it.
	MoreURNs bool   `json:"more_urns,omitempty"`
	Next     string `json:"next,omitempty"`
}

// duplicatesPage is the answer of GET /api/v1/duplicates.
type duplicatesPage struct {
	Duplicates []duplicate `json:"duplicates"`
	// Next is the cursor of the next page (this page's last location),
	// absent on the last page.
	Next *string `json:"next,omitempty"`
}

// adminRead checks that an admin-only read comes from the admin and
// parses its query.
func (c *apiCall) adminRead(what string) (q url.Values, limit int, err error) {
	if !c.p.Admin {
		return nil, 0, newProblem(http.StatusForbidden, ptForbidden, "only the admin token may list "+what)
	}
	return c.pageQuery()
}

// pageQuery parses the query of a listing: its values, and the page size
// limit= asks for (DefaultPageSize when absent).
func (c *apiCall) pageQuery() (q url.Values, limit int, err error) {
	return c.pageQuerySized(DefaultPageSize, MaxPageSize)
}

// pageQuerySized is pageQuery for a listing whose pages hold def entries
// unless limit= asks for another number, at most most.
func (c *apiCall) pageQuerySized(def, most int) (q url.Values, limit int, err error) {
	q, err = url.ParseQuery(c.r.URL.RawQuery)
	if err != nil {
		return nil, 0, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1)
	}
	if err := onceEach(q, "after", "limit"); err != nil {
		return nil, 0, err
	}
	limit = def
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > most {
			return nil, 0, newProblem(http.StatusBadRequest, ptInvalid,
				"limit must be an integer from 1 to "+strconv.Itoa(most)+", not "+strconv.Quote(truncate(v, 32))).at("limit", -1)
		}
		limit = n
	}
	return q, limit, nil
}

// onceEach refuses a query that gives one of the parameters names more
// than once: a second value would leave unclear which page was meant.
func onceEach(q url.Values, names ...string) error {
	for _, name := range names {
		if v := q[name]; len(v) > 1 {
			return newProblem(http.StatusBadRequest, ptInvalid,
				name+" is given "+strconv.Itoa(len(v))+" times: give it once").at(name, -1)
		}
	}
	return nil
}

// afterSeq reads the cursor after= of a listing by number (0 when
// absent).
func afterSeq(q url.Values) (int64, error) {
	v := q.Get("after")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, newProblem(http.StatusBadRequest, ptInvalid,
			"after must be the next cursor of a previous page (a non-negative integer), not "+strconv.Quote(truncate(v, 32))).at("after", -1)
	}
	return n, nil
}

// boolParam reads the query parameter name, "true" or "false" (false when
// absent); given more than once or with another value, it is 400 naming it.
func boolParam(q url.Values, name string) (bool, error) {
	v, ok := q[name]
	if !ok {
		return false, nil
	}
	if len(v) == 1 && (v[0] == "true" || v[0] == "false") {
		return v[0] == "true", nil
	}
	return false, newProblem(http.StatusBadRequest, ptInvalid,
		name+" must be given once, true or false, not "+strconv.Quote(truncate(strings.Join(v, "&"), 32))).at(name, -1)
}

// listNames is GET /api/v1/names?after=ID&limit=N (admin): the records,
// withdrawn ones too, in ID order (the order they were created in, but
// for records created at the same time: see client.Records).
func (h *handler) listNames(c *apiCall) (answer, error) {
	q, limit, err := c.adminRead("the records")
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
	recs, err := h.svc.Store().Records(ctx, after, limit)
	if err != nil {
		return answer{}, err
	}
	page := recordsPage{Records: nonNil(recs)}
	if len(recs) == limit {
		next := recs[len(recs)-1].ID
		page.Next = &next
	}
	return answer{status: http.StatusOK, body: page}, nil
}

// listDuplicates is GET /api/v1/duplicates?after=KEY&limit=N&withdrawn=B
// (admin): the locations that more than one active record lists, compared
// after scheme-based normalization (RFC 3986 §6.2.3), in the order of the
// normalized URL; with withdrawn=true, those that more than one record
// lists, withdrawn ones too. The store filters, so that a page holds limit
// locations unless it is the last (the Go client stops at an empty one).
// Each location lists the first resolver.MaxByLocation records (a popular
// URL may be listed by thousands), and when more list it, the page of GET
// /api/v1/locations that lists the rest (more_urns, next).
func (h *handler) listDuplicates(c *apiCall) (answer, error) {
	q, limit, err := c.adminRead("duplicate locations")
	if err != nil {
		return answer{}, err
	}
	withdrawn, err := boolParam(q, "withdrawn")
	if err != nil {
		return answer{}, err
	}
	ctx, err := c.readContext()
	if err != nil {
		return answer{}, err
	}
	ds, err := h.svc.Store().DuplicateLocations(ctx, q.Get("after"), limit, withdrawn)
	if err != nil {
		return answer{}, err
	}
	page := duplicatesPage{Duplicates: make([]duplicate, len(ds))}
	for i, d := range ds {
		page.Duplicates[i] = duplicate{Location: d.Key, URNs: d.URNs, Statuses: d.Statuses, MoreURNs: d.More}
		if d.More {
			page.Duplicates[i].Next = locationsNext(d.Key, d.LastID, withdrawn)
		}
	}
	if len(ds) == limit {
		next := ds[len(ds)-1].Key
		page.Next = &next
	}
	return answer{status: http.StatusOK, body: page}, nil
}

// logEntry is an entry of the public log: the entry's JSON form (see
// resolver.Entry.MarshalJSON), with Data left out and Withheld set for
// the entries only the admin may read (resolver.Entry.Public).
type logEntry struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Action    resolver.Action `json:"action"`
	Subject   string          `json:"subject"`
	Actor     string          `json:"actor"`
	Authority int64           `json:"authority,omitempty"`
	Record    int64           `json:"record,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Withheld  bool            `json:"withheld,omitempty"`
	Prev      []byte          `json:"prev,omitempty"`
	Hash      []byte          `json:"hash"`
}

// logHead is the history's last entry, by its number and hash.
type logHead struct {
	Seq  int64  `json:"seq"`
	Hash []byte `json:"hash,omitempty"`
}

// logPage is the answer of GET /api/v1/log.
type logPage struct {
	Entries []logEntry `json:"entries"`
	// Next is the cursor of the next page (this page's last Seq), absent
	// on the last page.
	Next *int64 `json:"next,omitempty"`
	// Head is the history's last entry, read after the page: a reader
	// that keeps it can later check that the log still leads to it.
	Head logHead `json:"head"`
}

// logAccess serves the log to anyone, or with Options.PrivateLog to the
// admin token only.
func (h *handler) logAccess(op operation) func(*respWriter, *http.Request) {
	if !h.opts.PrivateLog {
		return h.publicAPI(op)
	}
	return h.api(func(c *apiCall) (answer, error) {
		if !c.p.Admin {
			return answer{}, newProblem(http.StatusForbidden, ptForbidden, "this resolver gives its whole history to the admin token only (urikit serve --history-access admin)")
		}
		return op(c)
	})
}

// logChunk is the most entries listLog reads from the store at a time
// (nextChunk reads fewer once a page's entries are large), and logPageBytes how many bytes of entries' data a page holds at most
// (one entry more may take it past): an entry holds a whole record, up to
// about 0.7 MiB, so a page of MaxPageSize entries could otherwise take
// gigabytes for one anonymous request.
const (
	logChunk     = 100
	logPageBytes = 4 << 20
)

// listLog is GET /api/v1/log?after=SEQ&limit=N (anyone): the directory's
// whole history in Seq order, the entries about records in full and the
// others without their data, with the chain's head. Every entry's link
// (prev is the hash of the entry before) can be checked, and the hash of
// every entry shown in full recomputed: a rewritten history shows, as
// docs/httpapi.md explains.
func (h *handler) listLog(c *apiCall) (answer, error) {
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
	page := logPage{Entries: []logEntry{}}
	// size is the bytes of data the page shows, read the bytes of data
	// read for it (withheld entries' too): the chunks follow what was
	// read, so that a log of large entries reads little more than a page
	// (a chunk of a hundred 0.7 MiB entries was 70 MiB for one request).
	full, size, read := false, 0, 0
	for !full && len(page.Entries) < limit {
		want := nextChunk(len(page.Entries), read, limit)
		entries, err := h.svc.Store().Log(ctx, after, want)
		if err != nil {
			return answer{}, err
		}
		for _, e := range entries {
			le := logEntry{Seq: e.Seq, Time: e.Time.UTC(), Action: e.Action, Subject: e.Subject, Actor: e.Actor,
				Authority: e.AuthorityID, Record: e.RecordID, Prev: e.Prev, Hash: e.Hash}
			if e.Action.Public() {
				le.Data, size = e.Data, size+len(e.Data)
			} else {
				le.Withheld = true
			}
			page.Entries = append(page.Entries, le)
			after, read = e.Seq, read+len(e.Data)
			if size >= logPageBytes {
				break
			}
		}
		full = size >= logPageBytes
		if len(entries) < want {
			break // the end of the history
		}
	}
	if full || len(page.Entries) == limit {
		page.Next = &after
	}
	head, err := h.svc.Store().Head(ctx)
	if err != nil {
		return answer{}, err
	}
	page.Head = logHead{Seq: head.Seq, Hash: head.Hash}
	if n := len(page.Entries); n > 0 && page.Entries[n-1].Seq > head.Seq {
		// The head came from a store behind the one the entries came
		// from (a read replica): the page's last entry is a head too,
		// and a newer one.
		last := page.Entries[n-1]
		page.Head = logHead{Seq: last.Seq, Hash: last.Hash}
	}
	return answer{status: http.StatusOK, body: page}, nil
}
