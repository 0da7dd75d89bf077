package federate

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// answer is what the DNS said about one name and type.
type answer struct {
	rrs      []dns.RR // records of the asked type, CNAMEs followed
	rules    []rule   // for NAPTR: rrs read as DDDS rules, once
	negative bool     // NXDOMAIN, or the name has no records of the type
	rcode    int
	size     int // the response's length in bytes, what the cache counts
}

type qkey struct {
	name  string // lower case, fully qualified
	qtype uint16
}

func (k qkey) String() string { return k.name + " " + dns.TypeToString[k.qtype] }

// errBusy reports that every look-up slot stayed taken until the caller's
// time was up.
var errBusy = errors.New("too many DNS look-ups under way")

// dnsClient asks one DNS server, with a bounded cache of answers kept for
// their TTL, one look-up in flight per name and type (callers asking for
// the same thing wait for the same answer), and at most a fixed number of
// look-ups in flight at all. A look-up runs detached from any one caller
// and ends by its own deadline, so a server that never answers ties up at
// most that many goroutines for at most that long; callers stop waiting
// when their context ends.
type dnsClient struct {
	addr    string
	timeout time.Duration // one look-up, retries and TCP included
	now     func() time.Time
	failTTL time.Duration
	maxTTL  time.Duration
	udp     dns.Client
	tcp     dns.Client
	slots   chan struct{}

	mu       sync.Mutex
	inflight map[qkey]*call
	cache    *ttlCache
}

type call struct {
	done chan struct{}
	ans  *answer
	err  error
}

// ednsSize is the UDP payload size the client advertises (RFC 6891): the
// DNS flag day 2020 value, which avoids fragmentation.
const ednsSize = 1232

func newDNSClient(addr string, timeout time.Duration, maxLookups, cacheEntries, cacheBytes int, failTTL time.Duration, now func() time.Time) *dnsClient {
	return &dnsClient{
		addr:     addr,
		timeout:  timeout,
		now:      now,
		failTTL:  failTTL,
		maxTTL:   24 * time.Hour,
		udp:      dns.Client{Net: "udp", Timeout: timeout, UDPSize: ednsSize},
		tcp:      dns.Client{Net: "tcp", Timeout: timeout},
		slots:    make(chan struct{}, maxLookups),
		inflight: make(map[qkey]*call),
		cache:    newTTLCache(cacheEntries, cacheBytes),
	}
}

// lookup returns the answer for name and qtype, from the cache or the
// server. Errors are *lookupError.
func (c *dnsClient) lookup(ctx context.Context, name string, qtype uint16) (*answer, error) {
	k := qkey{strings.ToLower(dns.Fqdn(name)), qtype}
	if e, ok := c.cache.get(k, c.now()); ok {
		return e.ans, e.err
	}
	c.mu.Lock()
	cl, running := c.inflight[k]
	if !running {
		cl = &call{done: make(chan struct{})}
		c.inflight[k] = cl
	}
	c.mu.Unlock()
	if !running {
		// Take a slot, waiting no longer than the caller may. Giving up
		// ends the call for everyone waiting on it. When the caller's
		// time ran out (not when it went away) that is remembered as a
		// failed look-up is: every slot taken for a whole discovery's
		// time means the server is not answering the look-ups in them,
		// and the next caller would only wait as long again.
		select {
		case c.slots <- struct{}{}:
			go c.run(k, cl)
		case <-ctx.Done():
			c.finish(k, cl, nil, &lookupError{key: k, server: c.addr, err: errBusy}, errors.Is(ctx.Err(), context.DeadlineExceeded))
		}
	}
	select {
	case <-cl.done:
		return cl.ans, cl.err
	case <-ctx.Done():
		return nil, c.expired(ctx, k)
	}
}

// errNoAnswer reports that the server had not answered when the caller's
// time was up (the look-up itself runs on, to its own deadline).
var errNoAnswer = errors.New("no answer in time")

// expired is the error of a caller whose context ended before the answer
// came: errNoAnswer when its time ran out, which is the server not
// answering in time, as a failed look-up is, and not an error of the
// context's own (context.DeadlineExceeded would read as the caller's
// deadline, not the DNS's; docs/federate.md: a DNS server that does not
// answer is unavailable). A cancelled context (the client went away)
// stays itself.
func (c *dnsClient) expired(ctx context.Context, k qkey) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		err = errNoAnswer
	}
	return &lookupError{key: k, server: c.addr, err: err}
}

// run does one look-up in a slot and hands the answer to every waiter.
func (c *dnsClient) run(k qkey, cl *call) {
	defer func() { <-c.slots }()
	ans, ttl, err := c.exchange(k)
	if err != nil {
		c.finish(k, cl, nil, &lookupError{key: k, server: c.addr, err: err}, true)
		return
	}
	if ans.rcode == dns.RcodeSuccess && !ans.negative && k.qtype == dns.TypeNAPTR {
		for _, rr := range ans.rrs {
			ans.rules = append(ans.rules, newRule(rr.(*dns.NAPTR)))
		}
	}
	c.cache.put(k, cacheEntry{ans: ans, expires: c.now().Add(min(ttl, c.maxTTL))}, ttl > 0)
	c.finish(k, cl, ans, nil, false)
}

func (c *dnsClient) finish(k qkey, cl *call, ans *answer, err error, remember bool) {
	if remember && c.failTTL > 0 {
		// RFC 2308 §7: a server failure or a dead server may be
		// remembered, for at most five minutes, so that a dead server
		// costs one time-out per name now and then, not one per request.
		c.cache.put(k, cacheEntry{err: err, expires: c.now().Add(min(c.failTTL, 5*time.Minute))}, true)
	}
	c.mu.Lock()
	delete(c.inflight, k)
	c.mu.Unlock()
	cl.ans, cl.err = ans, err
	close(cl.done)
}

// exchange asks the server once: over UDP, asked again once when the
// first try gets no answer within half the time, and over TCP when the
// answer comes truncated. It returns the answer and how long it may be
// kept.
func (c *dnsClient) exchange(k qkey) (*answer, time.Duration, error) {
	deadline := time.Now().Add(c.timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	m := new(dns.Msg)
	m.SetQuestion(k.name, k.qtype)
	m.RecursionDesired = true
	m.SetEdns0(ednsSize, false)

	var r *dns.Msg
	var err error
	for try := 0; try < 2; try++ {
		tctx := ctx
		if try == 0 {
			var tcancel context.CancelFunc
			tctx, tcancel = context.WithTimeout(ctx, c.timeout/2)
			r, _, err = c.udp.ExchangeContext(tctx, m, c.addr)
			tcancel()
		} else {
			r, _, err = c.udp.ExchangeContext(tctx, m, c.addr)
		}
		if err == nil || !isTimeout(err) || time.Now().After(deadline) {
			break
		}
	}
	if err == nil && r.Truncated {
		r, _, err = c.tcp.ExchangeContext(ctx, m, c.addr)
	}
	if err != nil {
		if isTimeout(err) {
			return nil, 0, fmt.Errorf("no answer within %v", c.timeout)
		}
		return nil, 0, err
	}
	return readAnswer(k, r)
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// readAnswer checks a response and takes from it the records of the asked
// type, following CNAMEs within the answer section, with the TTL for which
// the answer may be cached: the least TTL of the records used, or for a
// negative answer the least of the SOA's TTL and MINIMUM (RFC 2308 §5),
// 0 when there is no SOA.
func readAnswer(k qkey, r *dns.Msg) (*answer, time.Duration, error) {
	if !r.Response || len(r.Question) != 1 || !strings.EqualFold(r.Question[0].Name, k.name) || r.Question[0].Qtype != k.qtype {
		return nil, 0, errors.New("the answer is not for the question asked")
	}
	ans := &answer{rcode: r.Rcode, size: r.Len()}
	switch r.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		ans.negative = true
		return ans, negativeTTL(r), nil
	default:
		return nil, 0, fmt.Errorf("the server answered %s", dns.RcodeToString[r.Rcode])
	}
	owner := k.name
	ttl := uint32(1<<32 - 1)
	for hops := 0; hops < 8; hops++ {
		var next string
		for _, rr := range r.Answer {
			h := rr.Header()
			if h.Rrtype == dns.TypeCNAME && k.qtype != dns.TypeCNAME && strings.EqualFold(h.Name, owner) {
				next = rr.(*dns.CNAME).Target
				ttl = min(ttl, h.Ttl)
			}
		}
		if next == "" {
			break
		}
		owner = next
	}
	for _, rr := range r.Answer {
		h := rr.Header()
		if h.Rrtype == k.qtype && h.Class == dns.ClassINET && strings.EqualFold(h.Name, owner) {
			ans.rrs = append(ans.rrs, rr)
			ttl = min(ttl, h.Ttl)
		}
	}
	if len(ans.rrs) == 0 {
		ans.negative = true // NODATA
		return ans, negativeTTL(r), nil
	}
	return ans, time.Duration(ttl) * time.Second, nil
}

func negativeTTL(r *dns.Msg) time.Duration {
	for _, rr := range r.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			return time.Duration(min(soa.Hdr.Ttl, soa.Minttl)) * time.Second
		}
	}
	return 0
}

// lookupError is a failed look-up: the server did not answer in time,
// answered with an error code, or could not be reached.
type lookupError struct {
	key    qkey
	server string
	err    error
}

func (e *lookupError) Error() string {
	return fmt.Sprintf("DNS look-up of %s at %s: %v", e.key, e.server, e.err)
}

func (e *lookupError) Unwrap() error { return e.err }

// ---- the cache ----

type cacheEntry struct {
	ans     *answer
	err     error
	expires time.Time
}

// ttlCache is an LRU of answers, each dropped when its TTL runs out,
// bounded in entries and in bytes: an answer can be 64 KiB over TCP, so a
// count alone would not bound the memory.
type ttlCache struct {
	mu       sync.Mutex
	cap      int
	capBytes int
	bytes    int
	ll       *list.List // of *cacheItem, most recent first
	m        map[qkey]*list.Element
}

type cacheItem struct {
	k qkey
	e cacheEntry
}

func newTTLCache(capacity, capBytes int) *ttlCache {
	return &ttlCache{cap: capacity, capBytes: capBytes, ll: list.New(), m: make(map[qkey]*list.Element)}
}

// weight is what an entry counts against the byte bound: the response,
// and a little for the key and the bookkeeping.
func (e cacheEntry) weight(k qkey) int {
	n := len(k.name) + 64
	if e.ans != nil {
		n += 2 * e.ans.size // parsed records take about twice the wire form
	}
	return n
}

func (c *ttlCache) remove(el *list.Element) {
	it := el.Value.(*cacheItem)
	c.ll.Remove(el)
	delete(c.m, it.k)
	c.bytes -= it.e.weight(it.k)
}

func (c *ttlCache) get(k qkey, now time.Time) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return cacheEntry{}, false
	}
	it := el.Value.(*cacheItem)
	if !now.Before(it.e.expires) {
		c.remove(el)
		return cacheEntry{}, false
	}
	c.ll.MoveToFront(el)
	return it.e, true
}

// put stores e, or only drops what is stored for k when keep is false (a
// TTL of 0 means "do not cache", RFC 1035 §3.2.1).
func (c *ttlCache) put(k qkey, e cacheEntry, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.remove(el)
	}
	if !keep || c.cap <= 0 || e.weight(k) > c.capBytes {
		return
	}
	c.m[k] = c.ll.PushFront(&cacheItem{k: k, e: e})
	c.bytes += e.weight(k)
	for c.ll.Len() > c.cap || c.bytes > c.capBytes {
		c.remove(c.ll.Back())
	}
}

func (c *ttlCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
