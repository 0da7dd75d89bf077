package resolver

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// lookupCache is a bounded cache of hot lookups: equivalence key → what the
// store answered (a record, or that there is none). It holds at most a fixed
// number of entries and at most cacheBytes of them, evicting with the CLOCK
// second-chance policy, so its memory is bounded whatever the traffic and
// however large the records (a record may hold some 300 KB: 65,536 of
// those would be 17 GB).
//
// A load takes a stamp before it reads the store and may store its answer
// only if nothing was invalidated in between: invalidate bumps the
// generation of the key's shard, invalidateAll the global one. So a load
// that read the store before a write and finishes after the write's
// invalidation never puts the old answer back.
type lookupCache struct {
	seed   maphash.Seed
	shards []cacheShard
	gen    atomic.Uint64
}

type cacheShard struct {
	mu   sync.Mutex
	gen  uint64 // bumped by every invalidation of a key in this shard
	m    map[string]*cacheItem
	ring []*cacheItem // CLOCK slots; nil is a slot an eviction freed
	free []int        // the nil slots of ring
	hand int
	cap  int

	// hits and misses count get's answers, under mu (which get holds
	// anyway), so that counting costs no extra synchronization.
	hits, misses    uint64
	bytes, maxBytes int // the size of the items held, and its bound
}

type cacheItem struct {
	key   string
	val   cached
	gen   uint64 // global generation it was loaded in
	used  bool
	index int // in ring
	size  int // approximate bytes held (see cached.size)
}

type cached struct {
	rec   Record
	role  Role
	found bool
}

// size approximates the memory v holds: its strings and bytes, and a
// little for each struct and slice header.
func (v cached) size() int {
	r := v.rec
	n := 160 + len(r.URN) + len(r.Key) + len(r.Metadata) + len(r.Successor) + len(r.SuccessorKey) + len(r.Reason)
	for _, a := range r.Aliases {
		n += 16 + len(a)
	}
	for _, l := range r.Locations {
		n += 64 + len(l.URL) + len(l.Type) + len(l.Label) + len(l.Key)
	}
	return n
}

// cacheStamp is what a load must still match to store its answer.
type cacheStamp struct{ global, shard uint64 }

const cacheShards = 32

// cacheBytes bounds the memory of the cached records, whatever CacheSize
// says: a quarter of the 256 MiB a server is meant to live in (issue 9).
// Records of a usual size (a few hundred bytes) fill every entry long
// before it.
const cacheBytes = 64 << 20

func newLookupCache(size int) *lookupCache {
	if size <= 0 {
		return nil
	}
	per := (size + cacheShards - 1) / cacheShards
	c := &lookupCache{seed: maphash.MakeSeed(), shards: make([]cacheShard, cacheShards)}
	for i := range c.shards {
		c.shards[i] = cacheShard{m: make(map[string]*cacheItem, per), cap: per, maxBytes: cacheBytes / cacheShards}
	}
	return c
}

func (c *lookupCache) shard(key string) *cacheShard {
	return &c.shards[maphash.String(c.seed, key)%cacheShards]
}

// stamp returns what a load of key must carry to be stored; take it before
// reading the store.
func (c *lookupCache) stamp(key string) cacheStamp {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	return cacheStamp{c.gen.Load(), s.gen}
}

func (c *lookupCache) get(key string) (cached, bool) {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.m[key]
	if !ok || it.gen != c.gen.Load() {
		s.misses++
		return cached{}, false
	}
	s.hits++
	it.used = true
	return it.val, true
}

// stats sums the hit and miss counts of every shard.
func (c *lookupCache) stats() (hits, misses uint64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		hits += s.hits
		misses += s.misses
		s.mu.Unlock()
	}
	return hits, misses
}

func (c *lookupCache) put(key string, v cached, st cacheStamp) {
	size := len(key) + v.size()
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.global != c.gen.Load() || st.shard != s.gen {
		return // an invalidation came between the read and now: may be stale
	}
	if it, ok := s.m[key]; ok {
		if size > s.maxBytes {
			s.remove(it)
			return
		}
		s.bytes += size - it.size
		it.val, it.used, it.gen, it.size = v, true, st.global, size
		for s.bytes > s.maxBytes {
			s.evict(it)
		}
		return
	}
	if size > s.maxBytes {
		return // larger than the shard's whole budget: the store answers it
	}
	for len(s.m) >= s.cap || s.bytes+size > s.maxBytes {
		s.evict(nil)
	}
	it := &cacheItem{key: key, val: v, gen: st.global, size: size}
	if n := len(s.free); n > 0 {
		it.index, s.free = s.free[n-1], s.free[:n-1]
		s.ring[it.index] = it
	} else {
		it.index = len(s.ring)
		s.ring = append(s.ring, it)
	}
	s.m[key] = it
	s.bytes += size
}

// evict removes one item, not keep, by the CLOCK policy: the hand skips
// free slots and gives each recently used item a second chance. The shard
// holds an item other than keep.
func (s *cacheShard) evict(keep *cacheItem) {
	for {
		victim := s.ring[s.hand]
		switch {
		case victim == nil || victim == keep:
		case victim.used:
			victim.used = false
		default:
			s.remove(victim)
			s.hand = (s.hand + 1) % len(s.ring)
			return
		}
		s.hand = (s.hand + 1) % len(s.ring)
	}
}

// remove takes it out of the shard, leaving its slot free.
func (s *cacheShard) remove(it *cacheItem) {
	delete(s.m, it.key)
	s.ring[it.index] = nil
	s.free = append(s.free, it.index)
	s.bytes -= it.size
}

// invalidate makes the entries of keys stale, and any load of a key in the
// same shards that is under way.
func (c *lookupCache) invalidate(keys ...string) {
	for _, k := range keys {
		s := c.shard(k)
		s.mu.Lock()
		s.gen++
		if it, ok := s.m[k]; ok {
			it.gen = ^uint64(0) // never the global generation: get ignores it, put reuses it
		}
		s.mu.Unlock()
	}
}

// invalidateAll makes every entry stale.
func (c *lookupCache) invalidateAll() { c.gen.Add(1) }
