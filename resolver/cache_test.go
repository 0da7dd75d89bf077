package resolver

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkShape checks the cache's bookkeeping: every shard holds at most
// its capacity and its byte budget, its ring and map hold the same items,
// and its free list names exactly the ring's empty slots.
func (c *lookupCache) checkShape(t *testing.T) {
	t.Helper()
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		held, bytes := 0, 0
		for j, it := range s.ring {
			if it == nil {
				continue
			}
			held++
			bytes += it.size
			if s.m[it.key] != it || it.index != j || it.size != len(it.key)+it.val.size() {
				t.Fatalf("shard %d: ring slot %d (%q, index %d) is not the map's", i, j, it.key, it.index)
			}
		}
		if len(s.m) > s.cap || len(s.ring) > s.cap || held != len(s.m) || len(s.free) != len(s.ring)-held ||
			bytes != s.bytes || s.bytes > s.maxBytes {
			t.Fatalf("shard %d: %d in map, %d in ring of %d (%d free), cap %d; %d bytes (counted %d) of %d",
				i, len(s.m), held, len(s.ring), len(s.free), s.cap, s.bytes, bytes, s.maxBytes)
		}
		for _, j := range s.free {
			if s.ring[j] != nil {
				t.Fatalf("shard %d: slot %d is listed free but holds %q", i, j, s.ring[j].key)
			}
		}
		s.mu.Unlock()
	}
}

// FuzzLookupCache runs a sequence of operations against the cache and a
// plain map that says what may be served: a get answers either nothing
// (the entry was evicted) or exactly the last value put for the key since
// it was last invalidated, and a put whose stamp predates an invalidation
// of its key (or of everything) is never served.
func FuzzLookupCache(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 1, 1, 1}, uint8(4))
	f.Add([]byte{0, 1, 4, 1, 3, 1, 1, 1, 0, 2, 2, 2}, uint8(1))
	f.Add([]byte{5, 1, 0, 1, 2, 1, 4, 0, 1, 1}, uint8(33))
	f.Fuzz(func(t *testing.T, ops []byte, size uint8) {
		c := newLookupCache(int(size%70) + 1)
		for i := range c.shards { // a small byte budget, so that it bites too
			c.shards[i].maxBytes = 600 + int(size)*8
		}
		// model holds, per key, the records a get may serve: every one put
		// by a load that began after the key's last invalidation. Between
		// two invalidations of a key the store's answer for it does not
		// change (every write invalidates), so any of them is current; a
		// put refused because another key of its shard was invalidated
		// may leave an earlier one in place.
		model := map[string]map[int64]bool{}
		stamps := map[string]cacheStamp{} // a load under way, per key
		stale := map[string]bool{}        // its stamp predates an invalidation
		var next int64
		for i := 0; i+1 < len(ops); i += 2 {
			op, k := ops[i]%6, fmt.Sprintf("urn:example:%d", ops[i+1]%40)
			switch op {
			case 0: // a load begins: take the stamp
				stamps[k], stale[k] = c.stamp(k), false
			case 1: // the load ends: put what "the store" said
				st, ok := stamps[k]
				if !ok {
					continue
				}
				delete(stamps, k)
				next++
				// Records of all sizes: some evict others by their bytes,
				// some exceed the shard's budget and are not kept.
				rec := Record{ID: next, URN: strings.Repeat("x", int(ops[i])*4)}
				c.put(k, cached{rec: rec, found: true}, st)
				if !stale[k] {
					if model[k] == nil {
						model[k] = map[int64]bool{}
					}
					model[k][next] = true
				}
			case 2, 5:
				got, ok := c.get(k)
				if ok && !model[k][got.rec.ID] {
					t.Fatalf("get %s served record %d; the model allows %v", k, got.rec.ID, model[k])
				}
			case 3:
				c.invalidate(k)
				delete(model, k)
				// Same-shard loads are refused too; that only costs a miss,
				// so the model marks just the key's own load stale.
				stale[k] = true
			case 4:
				c.invalidateAll()
				c.checkShape(t)
				clear(model)
				for sk := range stamps {
					stale[sk] = true
				}
			}
		}
		c.checkShape(t)
	})
}

// TestLookupCacheRacingInvalidation races loads against writes the way the
// Service does: a writer changes "the store" and then invalidates; a
// reader that misses takes a stamp, reads the store and puts. Once a
// writer's invalidation has returned, no get may serve what the store held
// before that write, however the loads interleave.
func TestLookupCacheRacingInvalidation(t *testing.T) {
	const nkeys, writers, readers = 8, 2, 6
	c := newLookupCache(4 * cacheShards) // small: evictions happen too
	var mu sync.Mutex
	store := make([]int64, nkeys)     // version of each key in "the store"
	var committed [nkeys]atomic.Int64 // the version whose invalidation returned
	keys := make([]string, nkeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("urn:example:k%d", i)
	}
	deadline := time.Now().Add(time.Second)
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, readers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200000 && !stop.Load() && time.Now().Before(deadline); i++ {
				runtime.Gosched() // let readers in between writes
				k := (i*7 + w) % nkeys
				mu.Lock()
				store[k]++
				v := store[k]
				mu.Unlock()
				if i%97 == 0 {
					c.invalidateAll()
				} else {
					c.invalidate(keys[k])
				}
				for { // committed only grows
					old := committed[k].Load()
					if old >= v || committed[k].CompareAndSwap(old, v) {
						break
					}
				}
			}
		}()
	}
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200000 && time.Now().Before(deadline); i++ {
				k := (i*5 + r) % nkeys
				floor := committed[k].Load()
				got, ok := c.get(keys[k])
				if !ok {
					st := c.stamp(keys[k])
					mu.Lock()
					v := store[k]
					mu.Unlock()
					runtime.Gosched() // widen the window a write can fall into
					c.put(keys[k], cached{rec: Record{ID: v}, found: true}, st)
					got.rec.ID = v
				}
				if got.rec.ID < floor {
					errs <- fmt.Sprintf("%s: served version %d after version %d was committed and invalidated (hit %v)", keys[k], got.rec.ID, floor, ok)
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	c.checkShape(t)
}

// bigRecord is a record as large as the Service lets one be (64 locations
// and 64 aliases of 2 KiB, 16 KiB of metadata); its strings are shared, so
// the test itself stays small while the cache accounts for every byte.
func bigRecord() Record {
	long := string(make([]byte, MaxURLBytes))
	r := Record{URN: "urn:example:big", Key: "urn:example:big", Metadata: make([]byte, DefaultMaxMetadataBytes)}
	for range DefaultMaxLocations {
		r.Locations = append(r.Locations, Location{URL: long, Key: long})
	}
	for range DefaultMaxAliases {
		r.Aliases = append(r.Aliases, long[:MaxURNBytes])
	}
	return r
}

// The cache is bounded in memory, not only in entries: full of the largest
// records the Service accepts, the default 65,536 entries would hold about
// 17 GB, far beyond the server's 256 MiB (issue 9). A naming authority could
// fill it on purpose by looking up its own largest records.
func TestLookupCacheIsBoundedInBytes(t *testing.T) {
	c := newLookupCache(DefaultCacheSize)
	big := bigRecord()
	for i := range 2048 { // about 600 MB of records, were they all kept
		k := fmt.Sprintf("urn:example:%d", i)
		c.put(k, cached{rec: big, found: true}, c.stamp(k))
	}
	var total int
	for i := range c.shards {
		s := &c.shards[i]
		for _, it := range s.m {
			total += it.val.size()
		}
	}
	if total > cacheBytes {
		t.Fatalf("the cache holds %d MiB of records, more than its %d MiB", total>>20, cacheBytes>>20)
	}
	// Small records still fill every entry.
	const entries = 8192
	c = newLookupCache(entries)
	small := Record{URN: "urn:example:s", Key: "urn:example:s", Locations: []Location{{URL: "http://s.example/", Key: "http://s.example/"}}, Metadata: []byte("{}")}
	for i := range 2 * entries {
		k := fmt.Sprintf("urn:example:%d", i)
		c.put(k, cached{rec: small, found: true}, c.stamp(k))
	}
	n := 0
	for i := range c.shards {
		n += len(c.shards[i].m)
	}
	if n != entries {
		t.Fatalf("%d small records cached, want all %d entries full", n, entries)
	}
	c.checkShape(t)
}
