package httpapi

// Listing the whole directory, for the admin's tools: urikit export and
// urikit duplicates against a running server. Both are paged by a cursor
// (the last ID or location key of a page), so that a directory of any size
// is read in bounded pieces and a page costs one index range scan.

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/urikit/urikit/resolver"
)

// Page sizes of the listings.
const (
	DefaultPageSize = 1000
	MaxPageSize     = 10000
)

func (h *handler) listingRoutes() []route {
	return []route{
		{method: "GET", pattern: "/api/v1/names", serve: h.listNames},
		{method: "GET", pattern: "/api/v1/duplicates", serve: h.listDuplicates},
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
	Location string   `json:"location"` // the URL after scheme-based normalization
	URNs     []string `json:"urns"`     // the records' names, in record order
}

// duplicatesPage is the answer of GET /api/v1/duplicates.
type duplicatesPage struct {
	Duplicates []duplicate `json:"duplicates"`
	// Next is the cursor of the next page (this page's last location),
	// absent on the last page.
	Next *string `json:"next,omitempty"`
}

// adminRead authenticates an admin-only read and parses its query; it has
// answered when ok is false.
func (h *handler) adminRead(rw *respWriter, r *http.Request, what string) (q url.Values, limit int, ok bool) {
	p, ok := h.principal(rw, r)
	if !ok {
		return nil, 0, false
	}
	if !p.Admin {
		h.writeProblem(rw, r, newProblem(http.StatusForbidden, ptForbidden, "only the admin token may list "+what))
		return nil, 0, false
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.writeProblem(rw, r, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1))
		return nil, 0, false
	}
	limit = DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			h.writeProblem(rw, r, newProblem(http.StatusBadRequest, ptInvalid,
				"limit must be an integer from 1 to "+strconv.Itoa(MaxPageSize)+", not "+strconv.Quote(truncate(v, 32))).at("limit", -1))
			return nil, 0, false
		}
		limit = n
	}
	return q, limit, true
}

// listNames is GET /api/v1/names?after=ID&limit=N (admin): the records,
// withdrawn ones too, in ID order (the order they were created in).
func (h *handler) listNames(rw *respWriter, r *http.Request) {
	q, limit, ok := h.adminRead(rw, r, "the records")
	if !ok {
		return
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			h.writeProblem(rw, r, newProblem(http.StatusBadRequest, ptInvalid,
				"after must be the next cursor of a previous page (a non-negative integer), not "+strconv.Quote(truncate(v, 32))).at("after", -1))
			return
		}
		after = n
	}
	ctx, ok := h.readContext(rw, r)
	if !ok {
		return
	}
	recs, err := h.svc.Store().Records(ctx, after, limit)
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	page := recordsPage{Records: recs}
	if page.Records == nil {
		page.Records = []resolver.Record{}
	}
	if len(recs) == limit {
		next := recs[len(recs)-1].ID
		page.Next = &next
	}
	writeJSON(rw, http.StatusOK, page)
}

// listDuplicates is GET /api/v1/duplicates?after=KEY&limit=N (admin): the
// locations that more than one record lists, compared after scheme-based
// normalization (RFC 3986 §6.2.3), in the order of the normalized URL.
func (h *handler) listDuplicates(rw *respWriter, r *http.Request) {
	q, limit, ok := h.adminRead(rw, r, "duplicate locations")
	if !ok {
		return
	}
	ctx, ok := h.readContext(rw, r)
	if !ok {
		return
	}
	ds, err := h.svc.Store().DuplicateLocations(ctx, q.Get("after"), limit)
	if err != nil {
		h.fail(rw, r, err)
		return
	}
	page := duplicatesPage{Duplicates: make([]duplicate, len(ds))}
	for i, d := range ds {
		page.Duplicates[i] = duplicate{Location: d.Key, URNs: d.URNs}
	}
	if len(ds) == limit {
		next := ds[len(ds)-1].Key
		page.Next = &next
	}
	writeJSON(rw, http.StatusOK, page)
}
