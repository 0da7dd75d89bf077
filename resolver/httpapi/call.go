package httpapi

import (
	"context"
	"net/http"

	"github.com/urikit/urikit/resolver"
)

// The handlers of the JSON API share their frame: authenticate the
// principal, read the request (path IDs, a JSON body), call the Service
// (a write with read-your-writes tracking), answer the error as a problem
// or the result as JSON. api runs the frame; an operation is the part in
// between, written as a function that returns its answer or its error.

// An operation is one handler of the JSON API. It returns what to answer,
// or an error: a *problem for a fault of the request, which is answered
// as it is, or an error of the Service, which problemFor maps.
type operation func(c *apiCall) (answer, error)

// apiCall is one request to an operation.
type apiCall struct {
	h  *handler
	rw *respWriter
	r  *http.Request
	// p is the authenticated principal (the zero Principal for a public
	// operation).
	p resolver.Principal
	// position gives the read-your-writes position of the write the
	// operation made, when it made one (see writeContext).
	position func(context.Context) (string, error)
}

// answer is what an operation answers when it succeeds.
type answer struct {
	status   int
	location string // the Location header, when not ""
	// body is marshalled as JSON, but a rawJSON is written as it is and
	// nil means no body at all (204).
	body any
}

// rawJSON is a body that is JSON already.
type rawJSON []byte

// api returns the handler that runs op for an authenticated principal; a
// request without a valid token gets authenticate's problem (401) and
// never reaches op.
func (h *handler) api(op operation) func(*respWriter, *http.Request) {
	return func(rw *respWriter, r *http.Request) {
		p, err := h.authenticate(r)
		if err != nil {
			h.answerError(rw, r, err)
			return
		}
		h.serveOperation(&apiCall{h: h, rw: rw, r: r, p: p}, op)
	}
}

// publicAPI returns the handler that runs op for anyone, without a token.
func (h *handler) publicAPI(op operation) func(*respWriter, *http.Request) {
	return func(rw *respWriter, r *http.Request) {
		h.serveOperation(&apiCall{h: h, rw: rw, r: r}, op)
	}
}

func (h *handler) serveOperation(c *apiCall, op operation) {
	a, err := op(c)
	if err != nil {
		h.answerError(c.rw, c.r, err)
		return
	}
	if c.position != nil {
		h.wrote(c.rw, c.r, c.position)
	}
	if a.location != "" {
		c.rw.Header().Set("Location", a.location)
	}
	switch b := a.body.(type) {
	case nil:
		c.rw.WriteHeader(a.status)
	case rawJSON:
		writeRaw(c.rw, a.status, b)
	default:
		writeJSON(c.rw, a.status, b)
	}
}

// answerError answers err: a *problem as it is, anything else by fail.
func (h *handler) answerError(rw *respWriter, r *http.Request, err error) {
	if p, ok := err.(*problem); ok {
		h.writeProblem(rw, r, p)
		return
	}
	h.fail(rw, r, err)
}

// ctx is the request's context, for the operation's reads.
func (c *apiCall) ctx() context.Context { return c.r.Context() }

// writeContext returns the context to write with: the write's
// read-your-writes position is tracked through it and set on the answer
// when the operation succeeds. An operation makes one write at most.
func (c *apiCall) writeContext() context.Context {
	ctx, position := c.h.pos.Track(c.r.Context())
	c.position = position
	return ctx
}

// readContext returns the context to read with: the one that applies the
// read-your-writes position the client presents, if it presents one.
func (c *apiCall) readContext() (context.Context, error) { return c.h.readAfter(c.r) }

// nonNil returns s, or an empty slice for nil, so that an empty list is
// answered as [], not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
