package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/urikit/urikit/resolver"
)

// PredecessorPage is one page of GET /api/v1/names/{urn}/predecessors.
type PredecessorPage struct {
	URN          string   `json:"urn"`          // the record's canonical name
	Predecessors []string `json:"predecessors"` // in the order they were registered
	Next         *int64   `json:"next"`         // nil on the last page
}

// PredecessorsPage returns up to limit (0: the server's default) of the
// withdrawn records whose successor is the record name resolves to, after
// the cursor after (0: from the first). Anyone may read it. A record
// shows the first resolver.MaxPredecessors of them; this reaches the rest.
func (c *Client) PredecessorsPage(ctx context.Context, name string, after int64, limit int) (PredecessorPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var p PredecessorPage
	_, err := c.do(ctx, http.MethodGet, withQuery("/api/v1/names/"+NameSegment(name)+"/predecessors", q), nil, &p)
	return p, err
}

// Predecessors returns the canonical names of every withdrawn record whose
// successor is the record name resolves to, page after page. It refuses a
// server whose pages do not move on, which would make it read for ever.
func (c *Client) Predecessors(ctx context.Context, name string) ([]string, error) {
	all := []string{}
	for after := int64(0); ; {
		p, err := c.PredecessorsPage(ctx, name, after, 0)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Predecessors...)
		if p.Next == nil {
			return all, nil
		}
		if *p.Next <= after || len(p.Predecessors) == 0 {
			return nil, &resolver.Error{Kind: resolver.KindInternal, Offset: -1, Err: ErrNotAPI,
				Message: "GET " + c.base + "/api/v1/names/" + NameSegment(name) + "/predecessors: the page after " +
					strconv.FormatInt(after, 10) + " gives next " + strconv.FormatInt(*p.Next, 10) + " (the pages do not move on)"}
		}
		after = *p.Next
	}
}
