package resolver

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// lookupCache is a bounded cache of hot lookups: equivalence key → what the
// store answered (a record, or that there is none). It holds at most a fixed
// number of entries, evicting with the CLOCK second-chance policy, so its
// memory is bounded whatever the traffic.
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
	ring []*cacheItem
	hand int
	cap  int

	// hits and misses count get's answers, under mu (which get holds
	// anyway), so that counting costs no extra synchronization.
	hits, misses uint64
}

type cacheItem struct {
	key   string
	val   cached
	gen   uint64 // global generation it was loaded in
	used  bool
	index int // in ring
}

type cached struct {
	rec   Record
	role  Role
	found bool
}

// cacheStamp is what a load must still match to store its answer.
type cacheStamp struct{ global, shard uint64 }

const cacheShards = 32

func newLookupCache(size int) *lookupCache {
	if size <= 0 {
		return nil
	}
	per := (size + cacheShards - 1) / cacheShards
	c := &lookupCache{seed: maphash.MakeSeed(), shards: make([]cacheShard, cacheShards)}
	for i := range c.shards {
		c.shards[i] = cacheShard{m: make(map[string]*cacheItem, per), cap: per}
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
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.global != c.gen.Load() || st.shard != s.gen {
		return // an invalidation came between the read and now: may be stale
	}
	if it, ok := s.m[key]; ok {
		it.val, it.used, it.gen = v, true, st.global
		return
	}
	it := &cacheItem{key: key, val: v, gen: st.global}
	if len(s.ring) < s.cap {
		it.index = len(s.ring)
		s.ring = append(s.ring, it)
		s.m[key] = it
		return
	}
	for {
		victim := s.ring[s.hand]
		if victim.used {
			victim.used = false
			s.hand = (s.hand + 1) % len(s.ring)
			continue
		}
		delete(s.m, victim.key)
		it.index = s.hand
		s.ring[s.hand] = it
		s.m[key] = it
		s.hand = (s.hand + 1) % len(s.ring)
		return
	}
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
