package federate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// fakeClock is a settable clock for TTL tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newDisc(t *testing.T, addr string, opts Options) (*Discoverer, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts.DNS = addr
	if opts.Clock == nil {
		opts.Clock = clk.Now
	}
	d, err := NewDiscoverer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, clk
}

func TestDiscover(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	d, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second})
	ctx := context.Background()
	cases := []struct {
		name, service string
		url           string // "" with ok false
		why           []string
	}{
		// U, after a rule of a lower order that does not match.
		{"urn:u1:abc", "I2L", "https://u1.test/resolve/abc", []string{`u1.urn.arpa. NAPTR 100 10 "U"`, "→ https://u1.test/resolve/abc"}},
		// The Application Unique String is the canonical name: the rule
		// is written for "urn:u1:" and still matches "URN:U1:".
		{"URN:U1:abc?+s=I2L?=x#f", "I2L", "https://u1.test/resolve/abc", nil},
		{"urn:u1:abc", "N2C", "https://u1.test/resolve/abc", nil},
		{"urn:u1:abc", "I2R", "", nil},
		// S: SRV gives HOST:PORT; the name goes as written, with its hops.
		{"urn:s1:X%2fy?=lang=en#frag", "I2L", "http://res.s1.test:8080/uri-res/N2L?urn:s1:X%2fy?+hops=3?=lang=en",
			[]string{`s1.urn.arpa. NAPTR 100 10 "S" "thttp+I2L+I2C+I2R" "" thttp.s1.test. → thttp.s1.test. → SRV res.s1.test:8080`, ", as N2L"}},
		{"urn:s1:x", "I2Cs", "", nil},
		// Non-terminal chain, through a replacement field, then S with
		// the lowest SRV priority.
		{"urn:chain:LIB:123", "I2Ls", "http://r1.chain.test:8000/uri-res/N2Ls?urn:chain:LIB:123?+hops=3",
			[]string{"chain.urn.arpa.", "→ LIB.chain.test.", "lib.chain.test. NAPTR", "→ next.chain.test.", "SRV r1.chain.test:8000"}},
		{"urn:chain:other:1", "I2L", "", nil}, // other.chain.test. does not exist: see TestDiscoverBroken
		// ORDER, then PREFERENCE; a matched order is never left.
		{"urn:ord:1", "I2L", "https://pref10.test/urn:ord:1", nil},
		{"urn:ord:1", "I2C", "", nil},
		{"urn:ord2:special-7", "I2L", "https://special.test/7", nil},
		{"urn:ord2:plain", "I2L", "https://general.test/plain", nil},
		// Services.
		{"urn:svc:1", "I2L", "https://n2l.test/urn:svc:1", nil},
		{"urn:svc:1", "I2C", "https://i2c.test/urn:svc:1", nil},
		{"urn:svc:1", "I2Ls", "", nil}, // only over HTTP, which is not THTTP
		// Flags.
		{"urn:flag:1", "I2L", "https://u.test/urn:flag:1", nil},
		// Escaping through the zone file and the wire.
		{"urn:esc:a/b/c", "I2L", "https://esc.test/b/c/a", []string{`"/^urn:esc:([^\\/]+)\\/(.*)$/https:\\/\\/esc.test\\/\\2\\/\\1/"`}},
		{"urn:utf:xyz", "I2L", "https://utf.test/yz", nil},
		// RFC 3403 §6.1: non-terminal, then A.
		{"urn:cid:199606121851.1@bar.example.test", "N2R", "http://www.example.test/uri-res/N2R?urn:cid:199606121851.1@bar.example.test?+hops=3", nil},
		// A record that does not parse, and a URI that is not http(s),
		// are passed over.
		{"urn:badrule:1", "I2L", "https://good.test/urn:badrule:1", nil},
		// A CNAME at the key.
		{"urn:alias:z", "I2L", "https://generic.test/z", nil},
		// No records for the NID: discovery does not apply.
		{"urn:none:1", "I2L", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.service, func(t *testing.T) {
			r, ok, err := d.Discover(ctx, urn.MustParse(c.name), c.service, 3)
			if c.name == "urn:chain:other:1" {
				if resolver.KindOf(err) != resolver.KindNotFound {
					t.Fatalf("broken chain: %v %v %v", r, ok, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if c.url != "" {
					t.Fatalf("no referral, want %s", c.url)
				}
				return
			}
			if r.URL != c.url || r.Via != "ddds" {
				t.Fatalf("got %s via %s, want %s\nwhy: %s", r.URL, r.Via, c.url, r.Why)
			}
			if strings.Contains(r.Why, "\n") || !strings.HasPrefix(r.Why, "DDDS: ") {
				t.Fatalf("why is not one DDDS line: %q", r.Why)
			}
			for _, w := range c.why {
				if !strings.Contains(r.Why, w) {
					t.Errorf("why %q lacks %q", r.Why, w)
				}
			}
		})
	}
}

func TestDiscoverBroken(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	srv.set(func(s *testDNS) { s.servfail["sf.urn.arpa."] = true; s.refused["refused.urn.arpa."] = true })
	d, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second, MaxRewrites: 4})
	ctx := context.Background()
	cases := []struct {
		name string
		kind resolver.Kind
		msg  string
	}{
		{"urn:broken:1", resolver.KindNotFound, "nowhere.test. has no NAPTR records, after broken.urn.arpa."},
		{"urn:chain:other:1", resolver.KindNotFound, "other.chain.test. has no NAPTR records"},
		{"urn:loop:1", resolver.KindNotFound, "loop back to loop.urn.arpa."},
		{"urn:nosrv:1", resolver.KindNotFound, "_thttp._tcp.nosrv.test. has no usable SRV records"},
		{"urn:far:1", resolver.KindNotFound, "more than 4 rewrites"},
		{"urn:sf:1", resolver.KindUnavailable, "SERVFAIL"},
		{"urn:refused:1", resolver.KindUnavailable, "REFUSED"},
	}
	for _, c := range cases {
		r, ok, err := d.Discover(ctx, urn.MustParse(c.name), "I2L", 1)
		if ok || resolver.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %+v %v %v; want %v %q", c.name, r, ok, err, c.kind, c.msg)
		}
		// A DNS failure is the DNS's, never the store's (the HTTP layer
		// names the one or the other).
		if dnsDown := errors.Is(err, resolver.ErrDiscoveryUnavailable); dnsDown != (c.kind == resolver.KindUnavailable) || errors.Is(err, resolver.ErrUnavailable) {
			t.Errorf("%s: %v: ErrDiscoveryUnavailable %v, ErrUnavailable %v", c.name, err, dnsDown, errors.Is(err, resolver.ErrUnavailable))
		}
	}
	// With a longer budget the far chain ends in its U record.
	d2, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second})
	r, ok, err := d2.Discover(ctx, urn.MustParse("urn:far:1"), "I2L", 1)
	if err != nil || !ok || r.URL != "https://far.test/urn:far:1" || strings.Count(r.Why, "NAPTR") != 6 {
		t.Fatalf("far: %+v %v %v", r, ok, err)
	}
}

func TestDiscoverSRVWeights(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	zone, _ := os.ReadFile("testdata/ddds.zone")
	srv.load(t, string(zone)+`
ww.urn.arpa. IN NAPTR 100 10 "S" "thttp+I2L" "" thttp.w.test.
thttp.w.test. IN SRV 5 1 80 a.w.test.
thttp.w.test. IN SRV 5 3 81 b.w.test.
thttp.w.test. IN SRV 5 0 82 zero.w.test.
thttp.w.test. IN SRV 9 100 83 backup.w.test.
`)
	d, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second})
	seen := map[string]int{}
	for range 400 {
		r, ok, err := d.Discover(context.Background(), urn.MustParse("urn:ww:1"), "I2L", 1)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		seen[strings.SplitN(r.URL, "/uri-res/", 2)[0]]++
	}
	if seen["http://backup.w.test:83"] != 0 || len(seen) > 3 {
		t.Fatalf("a higher priority was used: %v", seen)
	}
	// Weights 1 and 3 out of 4 (weight 0 only on a draw of 0, 1 in 5):
	// b must come up clearly more often than a.
	if a, b := seen["http://a.w.test:80"], seen["http://b.w.test:81"]; b < 2*a || a == 0 {
		t.Fatalf("weights not followed: %v", seen)
	}
}

func TestDiscoverTTL(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	zone, _ := os.ReadFile("testdata/ddds.zone")
	d, clk := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second, FailureTTL: 10 * time.Second})
	ctx := context.Background()
	get := func(name string) (string, error) {
		t.Helper()
		r, ok, err := d.Discover(ctx, urn.MustParse(name), "I2L", 1)
		if err != nil || !ok {
			return "", fmt.Errorf("%v %v", ok, err)
		}
		return r.URL, nil
	}
	if u, err := get("urn:ttl:1"); u != "https://ttl-a.test/urn:ttl:1" {
		t.Fatal(u, err)
	}
	// The zone changes; the answer is kept for its 60 s TTL.
	srv.load(t, strings.ReplaceAll(string(zone), "ttl-a.test", "ttl-b.test"))
	clk.Add(59 * time.Second)
	if u, _ := get("urn:ttl:2"); u != "https://ttl-a.test/urn:ttl:2" {
		t.Fatalf("not cached: %s", u)
	}
	if n := srv.count("ttl.urn.arpa.", dns.TypeNAPTR, "udp"); n != 1 {
		t.Fatalf("%d queries, want 1", n)
	}
	clk.Add(2 * time.Second)
	if u, _ := get("urn:ttl:3"); u != "https://ttl-b.test/urn:ttl:3" {
		t.Fatalf("expired answer used: %s", u)
	}
	if n := srv.count("ttl.urn.arpa.", dns.TypeNAPTR, "udp"); n != 2 {
		t.Fatalf("%d queries, want 2", n)
	}

	// NXDOMAIN is kept for min(SOA TTL, MINIMUM) = 60 s (RFC 2308 §5).
	for range 3 {
		if _, ok, err := d.Discover(ctx, urn.MustParse("urn:none:1"), "I2L", 1); ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if n := srv.count("none.urn.arpa.", dns.TypeNAPTR, "udp"); n != 1 {
		t.Fatalf("negative answer not cached: %d queries", n)
	}
	clk.Add(61 * time.Second)
	d.Discover(ctx, urn.MustParse("urn:none:1"), "I2L", 1)
	if n := srv.count("none.urn.arpa.", dns.TypeNAPTR, "udp"); n != 2 {
		t.Fatalf("negative answer kept too long: %d queries", n)
	}

	// SERVFAIL is remembered for FailureTTL, then asked again.
	srv.set(func(s *testDNS) { s.servfail["sf.urn.arpa."] = true })
	for range 3 {
		if _, _, err := d.Discover(ctx, urn.MustParse("urn:sf:1"), "I2L", 1); resolver.KindOf(err) != resolver.KindUnavailable {
			t.Fatal(err)
		}
	}
	if n := srv.count("sf.urn.arpa.", dns.TypeNAPTR, "udp"); n != 1 {
		t.Fatalf("failure not remembered: %d queries", n)
	}
	srv.set(func(s *testDNS) { delete(s.servfail, "sf.urn.arpa.") })
	clk.Add(11 * time.Second)
	if u, err := get("urn:sf:1"); u != "https://sf.test/urn:sf:1" {
		t.Fatalf("after recovery: %s %v", u, err)
	}
}

func TestDiscoverTCPFallback(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	var b strings.Builder
	zone, _ := os.ReadFile("testdata/ddds.zone")
	b.Write(zone)
	for i := range 40 {
		fmt.Fprintf(&b, "big.urn.arpa. IN NAPTR 10 %d \"U\" \"thttp+I2L\" \"!^urn:big:never-%d-%s$!https://no.test/!\" .\n", i, i, strings.Repeat("x", 60))
	}
	b.WriteString(`big.urn.arpa. IN NAPTR 20 1 "U" "thttp+I2L" "!^urn:big:(.*)$!https://big.test/\\1!" .` + "\n")
	srv.load(t, b.String())
	d, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second})
	r, ok, err := d.Discover(context.Background(), urn.MustParse("urn:big:1"), "I2L", 1)
	if err != nil || !ok || r.URL != "https://big.test/1" {
		t.Fatalf("%+v %v %v", r, ok, err)
	}
	if srv.count("big.urn.arpa.", dns.TypeNAPTR, "tcp") != 1 {
		t.Fatal("the truncated answer was not asked again over TCP")
	}
}

// TestDiscoverCoalesces: many requests for one NID at once, to a slow
// server, make one query; the concurrency bound holds for distinct names.
func TestDiscoverCoalesces(t *testing.T) {
	srv := startDNS(t, "testdata/ddds.zone")
	srv.set(func(s *testDNS) { s.delay = 150 * time.Millisecond })
	d, _ := newDisc(t, srv.addr, Options{Timeout: 5 * time.Second, MaxLookups: 3})
	var wg sync.WaitGroup
	var bad atomic.Int64
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, ok, err := d.Discover(context.Background(), urn.MustParse(fmt.Sprintf("urn:u1:%d", i)), "I2L", 1)
			if err != nil || !ok || r.URL != fmt.Sprintf("https://u1.test/resolve/%d", i) {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d failed", bad.Load())
	}
	if n := srv.total(); n != 1 {
		t.Fatalf("%d queries for one key, want 1", n)
	}
	// Distinct keys: all answered, never more than 3 at the server at once.
	srv.set(func(s *testDNS) { s.delay = 50 * time.Millisecond; s.maxIn = 0 })
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := d.Discover(context.Background(), urn.MustParse(fmt.Sprintf("urn:n%d:1", i)), "I2L", 1)
			if err != nil {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	srv.set(func(s *testDNS) {
		if s.maxIn > 3 || s.maxIn == 0 {
			t.Errorf("%d look-ups in flight at once, bound 3", s.maxIn)
		}
	})
	if bad.Load() != 0 {
		t.Fatalf("%d failed", bad.Load())
	}
}

// TestDiscoverSilentServer: a DNS server that never answers costs each
// request a bounded wait, a bounded number of goroutines and packets, and
// once the failure is remembered, no wait at all.
func TestDiscoverSilentServer(t *testing.T) {
	silent := startSilentDNS(t)
	const timeout = 400 * time.Millisecond
	d, clk := newDisc(t, silent.addr, Options{Timeout: timeout, MaxLookups: 4, FailureTTL: time.Minute})
	base := runtime.NumGoroutine()

	const callers = 300
	var wg sync.WaitGroup
	var slowest atomic.Int64
	var wrong atomic.Int64
	// Sample while the callers wait, before any deadline fires (timers
	// that fire run their functions on goroutines of their own, briefly):
	// all goroutines, and those running a look-up.
	var peak, peakRuns atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		buf := make([]byte, 1<<22)
		time.Sleep(timeout / 4)
		for end := time.Now().Add(timeout / 2); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			peak.Store(max(peak.Load(), int64(runtime.NumGoroutine())))
			n := runtime.Stack(buf, true)
			peakRuns.Store(max(peakRuns.Load(), int64(strings.Count(string(buf[:n]), fmt.Sprintf("federate.(*dnsClient).exchange(%p", d.dns)))))
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	start := time.Now()
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			// 30 distinct NIDs, 10 callers each.
			_, ok, err := d.Discover(context.Background(), urn.MustParse(fmt.Sprintf("urn:dead%d:x", i%30)), "I2L", 1)
			if ok || resolver.KindOf(err) != resolver.KindUnavailable {
				wrong.Add(1)
			}
			if el := int64(time.Since(t0)); el > slowest.Load() {
				slowest.Store(el)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	total := time.Since(start)
	if wrong.Load() != 0 {
		t.Fatalf("%d callers got something other than KindUnavailable", wrong.Load())
	}
	// Every caller waits at most the timeout (plus scheduling slack).
	if s := time.Duration(slowest.Load()); s > 2*timeout {
		t.Fatalf("a caller waited %v, bound %v", s, timeout)
	}
	// Goroutines: the callers, the sampler, and at most 4 look-ups;
	// nothing per waiting caller.
	if r := peakRuns.Load(); r > 4 || r == 0 {
		t.Fatalf("%d look-ups running at once, bound 4", r)
	}
	if p := peak.Load(); p > int64(base+callers+1+4+5) {
		t.Fatalf("peak %d goroutines (base %d, %d callers)", p, base, callers)
	}
	// Packets: 4 slots, each asking at most twice in the time.
	// Packets: each look-up asks at most twice and holds one of 4 slots
	// for the timeout; callers stop waiting within two timeouts, so at
	// most three rounds of 4 look-ups start: 24 packets for 300 callers.
	if n := silent.packets.Load(); n > 24 || n == 0 {
		t.Fatalf("%d packets to the dead server, want 1 to 24", n)
	}
	t.Logf("%d callers done in %v, slowest %v, peak %d goroutines (base %d), %d look-ups, %d packets",
		callers, total, time.Duration(slowest.Load()), peak.Load(), base, peakRuns.Load(), silent.packets.Load())

	// All look-ups end by their own deadline: back to the base count.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		t.Fatalf("%d goroutines left, base %d", n, base)
	}

	// The failures that were asked are remembered: no wait, no packet.
	before := silent.packets.Load()
	var remembered []string
	for i := range 30 {
		k := qkey{fmt.Sprintf("dead%d.urn.arpa.", i), dns.TypeNAPTR}
		if e, ok := d.dns.cache.get(k, clk.Now()); ok && e.err != nil {
			remembered = append(remembered, fmt.Sprintf("urn:dead%d:x", i))
		}
	}
	if len(remembered) == 0 {
		t.Fatal("no failure was remembered")
	}
	for _, name := range remembered {
		t0 := time.Now()
		_, _, err := d.Discover(context.Background(), urn.MustParse(name), "I2L", 1)
		if resolver.KindOf(err) != resolver.KindUnavailable || time.Since(t0) > 50*time.Millisecond {
			t.Fatalf("%s: %v after %v", name, err, time.Since(t0))
		}
	}
	if silent.packets.Load() != before {
		t.Fatal("a remembered failure was asked again")
	}

	// A caller's own context is honoured too.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, _, err := d.Discover(ctx, urn.MustParse("urn:other:x"), "I2L", 1)
	if resolver.KindOf(err) != resolver.KindUnavailable || time.Since(t0) > 250*time.Millisecond {
		t.Fatalf("caller's deadline: %v after %v", err, time.Since(t0))
	}
	// That look-up goes on to its own deadline; let it end before the
	// next test counts goroutines.
	for end := time.Now().Add(2 * timeout); runtime.NumGoroutine() > base+2 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}
