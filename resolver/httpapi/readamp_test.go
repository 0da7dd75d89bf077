package httpapi_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi/apitest"
	"github.com/urikit/urikit/resolver/memstore"
)

// entryCounter counts the bytes of entries' data a store's history reads
// return.
type entryCounter struct {
	resolver.Store
	bytes atomic.Int64
}

func (s *entryCounter) add(es []resolver.Entry) {
	for _, e := range es {
		s.bytes.Add(int64(len(e.Data)))
	}
}

func (s *entryCounter) History(ctx context.Context, id, after int64, limit int) ([]resolver.Entry, error) {
	es, err := s.Store.History(ctx, id, after, limit)
	s.add(es)
	return es, err
}

func (s *entryCounter) HistoryBefore(ctx context.Context, id, before int64, until time.Time, limit int) ([]resolver.Entry, error) {
	es, err := s.Store.HistoryBefore(ctx, id, before, until, limit)
	s.add(es)
	return es, err
}

func (s *entryCounter) Log(ctx context.Context, after int64, limit int) ([]resolver.Entry, error) {
	es, err := s.Store.Log(ctx, after, limit)
	s.add(es)
	return es, err
}

// TestHistoryPageReads: a page of a large record's history, of its
// versions (I2Cs), or of the whole log, reads from the store little more
// than it answers: entries of 200 KB fill the 4 MiB of a page with twenty,
// and reading a hundred for it read five times the page.
func TestHistoryPageReads(t *testing.T) {
	cs := &entryCounter{}
	e := apitest.NewEnv(t, func(*testing.T) resolver.Store { cs.Store = memstore.New(); return cs })
	_, tok := e.Authority("Ex", "urn:example:")
	for round := range 60 {
		e.Put(tok, "urn:example:big", apitest.BigRecordBody(round)).Want(t, map[bool]int{true: 201, false: 200}[round == 0])
	}
	for _, target := range []string{"/api/v1/names/urn:example:big/history", "/uri-res/I2Cs?urn:example:big", "/api/v1/log"} {
		cs.bytes.Store(0)
		r := e.Do("GET", target, "").Want(t, 200)
		if read := cs.bytes.Load(); read > 2*int64(len(r.Body)) {
			t.Errorf("%s: answered %d bytes, read %d bytes of entries' data", target, len(r.Body), read)
		}
	}
}
