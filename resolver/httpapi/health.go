package httpapi

import (
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/urikit/urikit/resolver"
)

// serveHealth is /healthz: the process is up and serving HTTP. It asks
// nothing of the store, so that an orchestrator does not restart a healthy
// process because its database is down (that is what /readyz tells).
func (h *handler) serveHealth(rw *respWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rw.Header().Set("Cache-Control", "no-store")
	io.WriteString(rw, "ok\n")
}

// serveReady is /readyz: the store answers within the time limit.
func (h *handler) serveReady(rw *respWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.ReadyTimeout)
	defer cancel()
	var err error
	if h.opts.Ready != nil {
		err = h.opts.Ready(ctx)
	} else {
		_, err = h.svc.Store().Head(ctx)
	}
	rw.Header().Set("Cache-Control", "no-store")
	if err != nil {
		p := newProblem(http.StatusServiceUnavailable, ptUnavailable, "not ready: the store did not answer within "+h.opts.ReadyTimeout.String())
		h.writeProblem(rw, r, p)
		return
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(rw, "ready\n")
}

// PositionHeader carries a read-your-writes position (issue 10): every
// successful write answers with the position its change reached, and a
// read that presents it sees at least that change, even when reads go to
// a replica that lags behind the primary.
const PositionHeader = "Urikit-Position"

// Positions is the read-your-writes hook. The PostgreSQL backend with a
// read replica implements it (a position such as the primary's WAL LSN
// after the commit; a read that presents it waits for the replica to
// replay that far, or goes to the primary); urikit serve passes it in
// Options.Positions. Positions are opaque to clients and to this package.
type Positions interface {
	// Position returns the position the store has reached after a write
	// that has just been acknowledged, called with the write's context.
	Position(ctx context.Context) (string, error)
	// ReadAfter returns the context a read must use to see every change up
	// to pos. Its error is a *resolver.Error: KindInvalid for a position
	// that is malformed or comes from elsewhere (400), KindUnavailable when
	// the position cannot be reached in time (503).
	ReadAfter(ctx context.Context, pos string) (context.Context, error)
}

// seqPositions is the default Positions: the history's sequence number,
// the directory's version (Store.Head). With one store every read sees
// every acknowledged write, so ReadAfter only checks that the position is
// one this directory has reached.
type seqPositions struct{ store resolver.Store }

func (p seqPositions) Position(ctx context.Context) (string, error) {
	e, err := p.store.Head(ctx)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(e.Seq, 10), nil
}

func (p seqPositions) ReadAfter(ctx context.Context, pos string) (context.Context, error) {
	n, err := strconv.ParseInt(pos, 10, 64)
	if err != nil || n < 0 {
		return nil, &resolver.Error{Kind: resolver.KindInvalid, Field: PositionHeader, Offset: -1,
			Message: "a position is the number a write answered with"}
	}
	e, err := p.store.Head(ctx)
	if err != nil {
		return nil, err
	}
	if e.Seq < n {
		return nil, &resolver.Error{Kind: resolver.KindInvalid, Field: PositionHeader, Offset: -1,
			Message: "this directory has not reached position " + pos + ": it comes from another directory"}
	}
	return ctx, nil
}
