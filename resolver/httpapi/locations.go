package httpapi

// The records that list a location, a page at a time. L2Ns, L2Ls and L2C
// cover the first resolver.MaxByLocation of them (any maintainer may list
// any URL, so a popular one may be listed by thousands); this listing is
// where anyone reads the rest, as anyone may ask L2Ns: the answers cut
// link to its page after the last record they show.

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/urikit/urikit/resolver"
)

// Page sizes of GET /api/v1/locations: a record there is whole (up to
// some 340 KiB with its aliases, locations and metadata), so a page holds
// fewer than those of the admin's listings, and at most logPageBytes of
// them.
const (
	DefaultLocationPageSize = resolver.MaxByLocation
	MaxLocationPageSize     = 1000
)

// locationPage is the answer of GET /api/v1/locations.
type locationPage struct {
	Location string            `json:"location"` // the URL as given
	Key      string            `json:"key"`      // the URL after scheme-based normalization
	Records  []resolver.Record `json:"records"`
	// Next is the cursor of the next page (the ID of this page's last
	// record), absent on the last page.
	Next *int64 `json:"next,omitempty"`
}

// locationQuery is what a page of GET /api/v1/locations asks for.
type locationQuery struct {
	url       string
	after     int64
	limit     int
	withdrawn bool
}

// listLocation is GET /api/v1/locations?url=URL&after=ID&limit=N&withdrawn=B
// (anyone): the records that list URL as a location, compared after
// scheme-based normalization (RFC 3986 §6.2.3) as L2Ns compares it, in ID
// order (registration order) from the first with ID > after; active ones
// only unless withdrawn=true. A page holds up to limit records and at most
// logPageBytes of them (but always one), and its Link header gives the
// next page (rel="next", RFC 8288 §3) when more remain. It is a listing:
// a URL no record lists is an empty page, not 404. It is of the present
// (the location index is), whatever as-of or Accept-Datetime says.
func (h *handler) listLocation(c *apiCall) (answer, error) {
	lq, err := parseLocationQuery(c.r.URL.RawQuery)
	if err != nil {
		return answer{}, err
	}
	ctx, err := c.readContext()
	if err != nil {
		return answer{}, err
	}
	key, recs, more, err := readLocationPage(ctx, h.svc, lq)
	if err != nil {
		return answer{}, err
	}
	page := locationPage{Location: lq.url, Key: key, Records: nonNil(recs)}
	if more && len(recs) > 0 {
		next := recs[len(recs)-1].ID
		page.Next = &next
		c.rw.Header().Set("Link", "<"+locationsPagePath(lq, next)+`>; rel="next"`)
	}
	return answer{status: http.StatusOK, body: page}, nil
}

// parseLocationQuery reads the query of GET /api/v1/locations: url= (as
// given: an absolute URI, checked when its key is computed), after= and
// limit= as on every listing but with this listing's page sizes, and
// withdrawn= as on GET /api/v1/duplicates; each given once.
func parseLocationQuery(raw string) (locationQuery, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return locationQuery{}, newProblem(http.StatusBadRequest, ptInvalid, "the query is not well-formed: "+err.Error()).at("query", -1)
	}
	if err := onceEach(q, "url", "after", "limit"); err != nil {
		return locationQuery{}, err
	}
	lq := locationQuery{url: q.Get("url"), limit: DefaultLocationPageSize}
	if lq.url == "" {
		return locationQuery{}, newProblem(http.StatusBadRequest, ptInvalid,
			"no URL given: the records listing a location are GET /api/v1/locations?url=https://example.org/x (the URL percent-encoded as a query value)").at("url", -1)
	}
	if lq.after, err = afterSeq(q); err != nil {
		return locationQuery{}, err
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLocationPageSize {
			return locationQuery{}, newProblem(http.StatusBadRequest, ptInvalid,
				"limit must be an integer from 1 to "+strconv.Itoa(MaxLocationPageSize)+", not "+strconv.Quote(truncate(v, 32))).at("limit", -1)
		}
		lq.limit = n
	}
	if lq.withdrawn, err = boolParam(q, "withdrawn"); err != nil {
		return locationQuery{}, err
	}
	return lq, nil
}

// readLocationPage reads the page lq asks for, in chunks as a page of a
// record's history is read (nextChunk: after the first, no more than the
// bytes left would hold at the mean size so far), so that a page of large
// records reads little more than it sends. It holds at most logPageBytes
// of records as recordBytes counts them, but always the first; more tells
// whether records follow it.
func readLocationPage(ctx context.Context, svc *resolver.Service, lq locationQuery) (key string, page []resolver.Record, more bool, err error) {
	after, size := lq.after, 0
	for {
		k, recs, rest, err := svc.LocationPage(ctx, lq.url, after, nextChunk(len(page), size, lq.limit), lq.withdrawn)
		if err != nil {
			return "", nil, false, err
		}
		key = k
		for _, rec := range recs {
			n := recordBytes(rec)
			if len(page) > 0 && size+n > logPageBytes {
				return key, page, true, nil // rec, at least, is left
			}
			page, size = append(page, rec), size+n
		}
		if !rest || len(page) == lq.limit {
			return key, page, rest, nil
		}
		after = recs[len(recs)-1].ID
	}
}

// recordBytes is about the size of a record in a page of GET
// /api/v1/locations: its names, locations, metadata and withdrawal notice.
func recordBytes(rec resolver.Record) int {
	return namesBytes(rec) + locationsBytes(rec) + len(rec.Metadata) + len(rec.Reason) + len(rec.Successor)
}

// locationsPagePath is the path and query of the page of lq's listing
// after the record after, with lq's limit and withdrawn.
func locationsPagePath(lq locationQuery, after int64) string {
	p := locationsNext(lq.url, after, lq.withdrawn)
	if lq.limit != DefaultLocationPageSize {
		p += "&limit=" + strconv.Itoa(lq.limit)
	}
	return p
}
