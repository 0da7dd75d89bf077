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
		{method: "GET", pattern: "/api/v1/names", serve: h.api(h.listNames)},
		{method: "GET", pattern: "/api/v1/duplicates", serve: h.api(h.listDuplicates)},
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

// adminRead checks that an admin-only read comes from the admin and
// parses its query.
func (c *apiCall) adminRead(what string) (q url.Values, limit int, err error) {
	if !c.p.Admin {
		return nil, 0, newProblem(http.StatusForbidden, ptForbidden, "only the admin token may list "+what)
	}
	q, err = url.ParseQuery(c.r.URL.RawQuery)
	if err != nil {
		return nil, 0, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1)
	}
	limit = DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return nil, 0, newProblem(http.StatusBadRequest, ptInvalid,
				"limit must be an integer from 1 to "+strconv.Itoa(MaxPageSize)+", not "+strconv.Quote(truncate(v, 32))).at("limit", -1)
		}
		limit = n
	}
	return q, limit, nil
}

// listNames is GET /api/v1/names?after=ID&limit=N (admin): the records,
// withdrawn ones too, in ID order (the order they were created in, but
// for records created at the same time: see client.Records).
func (h *handler) listNames(c *apiCall) (answer, error) {
	q, limit, err := c.adminRead("the records")
	if err != nil {
		return answer{}, err
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return answer{}, newProblem(http.StatusBadRequest, ptInvalid,
				"after must be the next cursor of a previous page (a non-negative integer), not "+strconv.Quote(truncate(v, 32))).at("after", -1)
		}
		after = n
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

// listDuplicates is GET /api/v1/duplicates?after=KEY&limit=N (admin): the
// locations that more than one record lists, compared after scheme-based
// normalization (RFC 3986 §6.2.3), in the order of the normalized URL.
func (h *handler) listDuplicates(c *apiCall) (answer, error) {
	q, limit, err := c.adminRead("duplicate locations")
	if err != nil {
		return answer{}, err
	}
	ctx, err := c.readContext()
	if err != nil {
		return answer{}, err
	}
	ds, err := h.svc.Store().DuplicateLocations(ctx, q.Get("after"), limit)
	if err != nil {
		return answer{}, err
	}
	page := duplicatesPage{Duplicates: make([]duplicate, len(ds))}
	for i, d := range ds {
		page.Duplicates[i] = duplicate{Location: d.Key, URNs: d.URNs}
	}
	if len(ds) == limit {
		next := ds[len(ds)-1].Key
		page.Next = &next
	}
	return answer{status: http.StatusOK, body: page}, nil
}
