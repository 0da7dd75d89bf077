package httpapi

// A record's predecessors, a page at a time. A record is shown with the
// first resolver.MaxPredecessors withdrawn records that name it as their
// successor; any maintainer may name any URN so, and this listing reaches
// the rest, whoever named it.

import (
	"net/http"
	"strconv"

	"github.com/urikit/urikit/resolver"
)

// Page sizes of a record's predecessors. Each page reads up to its size
// (and two) rows of the successor index for each of the record's keys, its
// name and up to resolver.MaxAliases aliases: some 6,600 rows of ID and
// name at most for a page of 100, as a record's own answer reads. A
// larger page would read that many times more for anyone who asks.
const (
	defaultPredecessorPage = resolver.MaxPredecessors
	maxPredecessorPage     = resolver.MaxPredecessors
)

// predecessorsPage is the answer of GET /api/v1/names/{urn}/predecessors.
type predecessorsPage struct {
	URN string `json:"urn"` // the record's canonical name
	// Predecessors are the withdrawn records' canonical names, in the
	// order they were registered, as in the record's predecessors.
	Predecessors []string `json:"predecessors"`
	// Next is the cursor of the next page, absent on the last page.
	Next *int64 `json:"next,omitempty"`
}

// namePredecessors is GET /api/v1/names/{urn}/predecessors?after=N&limit=N
// (anyone): the canonical names of the withdrawn records whose successor
// is the record the name resolves to (a URN equivalent to its name or a
// current alias), in registration order, limit of them (100 when absent)
// after the cursor after. A page with more after it gives next, and a
// Link to the next page (RFC 8288 §3), as a record's history does.
func (h *handler) namePredecessors(c *apiCall) (answer, error) {
	u, err := resolver.ParseName("urn", c.r.PathValue("urn"))
	if err != nil {
		return answer{}, err
	}
	q, limit, err := c.pageQuerySized(defaultPredecessorPage, maxPredecessorPage)
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
	ps, more, err := h.svc.PredecessorsAfter(ctx, rec, after, limit)
	if err != nil {
		return answer{}, err
	}
	page := predecessorsPage{URN: rec.URN, Predecessors: make([]string, len(ps))}
	for i, p := range ps {
		page.Predecessors[i] = p.URN
	}
	if more {
		next := ps[len(ps)-1].ID
		page.Next = &next
		c.rw.Header().Set("Link", "<"+predecessorsURL(rec.URN)+"?after="+strconv.FormatInt(next, 10)+
			"&limit="+strconv.Itoa(limit)+`>; rel="next"`)
	}
	return answer{status: http.StatusOK, body: page}, nil
}

// predecessorsURL is the path of the listing of name's predecessors.
func predecessorsURL(name string) string {
	return "/api/v1/names/" + segment(name) + "/predecessors"
}
