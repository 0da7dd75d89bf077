package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

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
		detail := notReady(err, ctx.Err() != nil && r.Context().Err() == nil, h.opts.ReadyTimeout)
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "not ready", slog.String("detail", detail), slog.String("error", err.Error()))
		h.writeProblem(rw, r, newProblem(http.StatusServiceUnavailable, ptUnavailable, detail))
		return
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(rw, "ready\n")
}

// notReady says why /readyz fails: the check ran out of its time, or the
// store answered at once with an error. Only what every caller may see
// is said (resolver.UnavailableMessage: a newer schema, with what to do,
// but no host); the log line has the error itself.
func notReady(err error, timedOut bool, limit time.Duration) string {
	switch {
	case timedOut:
		return "not ready: the store did not answer within " + limit.String()
	case errors.Is(err, resolver.ErrUnavailable):
		if errors.Is(err, context.DeadlineExceeded) {
			return "not ready: the store did not answer within its own time limit"
		}
		var ns *resolver.NewerSchemaError
		if errors.As(err, &ns) {
			return "not ready: " + resolver.UnavailableMessage(err)
		}
		return "not ready: " + resolver.UnavailableMessage(err) + " (its error is in the server's log)"
	}
	return "not ready: the store failed (its error is in the server's log)"
}

// PositionHeader carries a read-your-writes position (issue 10): every
// successful write answers with the position its change reached, and a
// read that presents it sees at least that change, even when reads go to
// a replica that lags behind the primary.
const PositionHeader = "Urikit-Position"

// Positions is the read-your-writes hook: how a write learns the position
// it reached and how a read is made to see a position. Positions are
// opaque to clients and to this package.
type Positions interface {
	// Track returns the context a write runs with, and a function that
	// returns, once the write has succeeded, the position it reached ("" for
	// none: nothing was written).
	Track(ctx context.Context) (context.Context, func(context.Context) (string, error))
	// ReadAfter returns the context a read must use to see every change up
	// to pos. Its error is a *resolver.Error: KindInvalid for a position
	// that is malformed or comes from elsewhere (400), KindUnavailable when
	// the position cannot be reached in time (503).
	ReadAfter(ctx context.Context, pos string) (context.Context, error)
}

// VersionPositions are positions that are directory versions (the
// history's sequence numbers), for a store that tracks the version its
// writes commit and can make reads wait for one. With resolver/postgres:
//
//	httpapi.VersionPositions{
//		Commits: func(ctx context.Context) (context.Context, func() int64) {
//			ctx, c := postgres.TrackCommits(ctx)
//			return ctx, c.Version
//		},
//		After: postgres.ReadAfter,
//	}
type VersionPositions struct {
	// Commits returns the context a write runs with and a function that
	// gives the version the write committed (0 when it committed none).
	Commits func(ctx context.Context) (context.Context, func() int64)
	// After returns a context whose reads see at least version v.
	After func(ctx context.Context, v int64) context.Context
}

// Track implements Positions.
func (p VersionPositions) Track(ctx context.Context) (context.Context, func(context.Context) (string, error)) {
	ctx, version := p.Commits(ctx)
	return ctx, func(context.Context) (string, error) {
		v := version()
		if v <= 0 {
			return "", nil
		}
		return strconv.FormatInt(v, 10), nil
	}
}

// ReadAfter implements Positions.
func (p VersionPositions) ReadAfter(ctx context.Context, pos string) (context.Context, error) {
	v, err := parseVersion(pos)
	if err != nil {
		return nil, err
	}
	return p.After(ctx, v), nil
}

func parseVersion(pos string) (int64, error) {
	v, err := strconv.ParseInt(pos, 10, 64)
	if err != nil || v < 0 {
		return 0, &resolver.Error{Kind: resolver.KindInvalid, Field: PositionHeader, Offset: -1,
			Message: "a position is the number a write answered with"}
	}
	return v, nil
}

// seqPositions is the default: the directory's version after the write,
// read with Store.Head. With one store every read sees every acknowledged
// write, so ReadAfter only checks that the position is one this directory
// has reached.
type seqPositions struct{ store resolver.Store }

func (p seqPositions) Track(ctx context.Context) (context.Context, func(context.Context) (string, error)) {
	return ctx, func(ctx context.Context) (string, error) {
		e, err := p.store.Head(ctx)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(e.Seq, 10), nil
	}
}

func (p seqPositions) ReadAfter(ctx context.Context, pos string) (context.Context, error) {
	v, err := parseVersion(pos)
	if err != nil {
		return nil, err
	}
	e, err := p.store.Head(ctx)
	if err != nil {
		return nil, err
	}
	if e.Seq < v {
		return nil, &resolver.Error{Kind: resolver.KindInvalid, Field: PositionHeader, Offset: -1,
			Message: "this directory has not reached position " + pos + ": it comes from another directory"}
	}
	return ctx, nil
}
