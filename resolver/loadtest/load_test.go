package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urikit/urikit/internal/pgtest"
)

// result is one request of the load.
type result struct {
	start   time.Time
	latency time.Duration
	write   bool
	status  int    // 0: transport error
	wrong   string // what was wrong with a 2xx/3xx answer, if anything
	err     error
}

// load is a paced mixed load over several instances: mostly I2L lookups
// of preloaded names, some writes of new names, each write read back at
// once through another instance (several instances behave as one
// resolver).
type load struct {
	servers  []*server
	token    string
	names    int     // preloaded names 0..names-1
	rate     float64 // requests a second, all workers together
	workers  int
	writePct int

	mu      sync.Mutex
	results []result
	acked   map[string]string // name → location of every write answered 2xx
}

func (l *load) record(r result) {
	l.mu.Lock()
	l.results = append(l.results, r)
	l.mu.Unlock()
}

// run sends requests until ctx ends.
func (l *load) run(ctx context.Context) {
	l.acked = map[string]string{}
	var wg sync.WaitGroup
	interval := time.Duration(float64(l.workers) / l.rate * float64(time.Second))
	for w := range l.workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			tick := time.NewTicker(interval)
			defer tick.Stop()
			k := 0
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				s := l.servers[rng.IntN(len(l.servers))]
				if rng.IntN(100) >= l.writePct {
					i := rng.IntN(l.names)
					st, loc, d, err := i2l(s, name(i))
					r := result{start: time.Now().Add(-d), latency: d, status: st, err: err}
					if st == 303 && loc != location(i) {
						r.wrong = fmt.Sprintf("%s → %q, want %q", name(i), loc, location(i))
					}
					l.record(r)
					continue
				}
				nm, want := wname(w, k), wloc(w, k)
				k++
				start := time.Now()
				st, err := put(s, l.token, nm, want)
				l.record(result{start: start, latency: time.Since(start), write: true, status: st, err: err})
				if st != 201 {
					continue
				}
				l.mu.Lock()
				l.acked[nm] = want
				l.mu.Unlock()
				// Read back through another instance at once.
				other := l.servers[(slices.Index(l.servers, s)+1)%len(l.servers)]
				st, loc, d, err := i2l(other, nm)
				r := result{start: time.Now().Add(-d), latency: d, status: st, err: err}
				if st == 303 && loc != want {
					r.wrong = fmt.Sprintf("%s read back through another instance → %q, want %q", nm, loc, want)
				}
				l.record(r)
			}
		})
	}
	wg.Wait()
}

// ok says whether r is a right answer (303 to the right place, or 201).
func (r result) ok() bool {
	return r.err == nil && r.wrong == "" && (r.status == 303 || r.status == 201)
}

func (r result) String() string {
	kind := "lookup"
	if r.write {
		kind = "write"
	}
	return fmt.Sprintf("%s at %s: status %d, %v, err %v %s", kind, r.start.Format("15:04:05.000"), r.status, r.latency, r.err, r.wrong)
}

// preload registers names 0..n-1 through s.
func preload(t *testing.T, s *server, token string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				if st, err := put(s, token, name(i), location(i)); err != nil || st != 201 {
					failed.Store(fmt.Sprintf("preload %s: %d %v", name(i), st, err))
					return
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		t.Fatal(f)
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// twoInstances starts a cluster, a database and two urikit serve
// processes on it, and an authority with preloaded names.
func twoInstances(t *testing.T, names int) (*pgtest.Cluster, []*server, string) {
	c := pgtest.Start(t, pgtest.Options{})
	dsn := c.NewDB(t)
	a := startServer(t, "--db", dsn)
	b := startServer(t, "--db", dsn)
	tok := newAuthority(t, a)
	preload(t, a, tok, names)
	return c, []*server{a, b}, tok
}

// TestTwoInstancesSteadyLoad: two instances on one PostgreSQL under a
// steady mixed load (90% lookups, 10% writes read back through the other
// instance): every answer right, and each process's memory flat (no
// growth trend in its RSS beyond a bound once warmed up).
func TestTwoInstancesSteadyLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: not in -short")
	}
	_, servers, tok := twoInstances(t, 2000)
	dur := soak(t, 20*time.Second)
	l := &load{servers: servers, token: tok, names: 2000, rate: 300, workers: 16, writePct: 10}

	type sample struct {
		at  float64
		rss [2]int64
	}
	var samples []sample
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	done := make(chan struct{})
	go func() { l.run(ctx); close(done) }()
	start := time.Now()
	tick := time.NewTicker(dur / 40)
	for sampling := true; sampling; {
		select {
		case <-tick.C:
			var sm sample
			sm.at = time.Since(start).Seconds()
			for i, s := range servers {
				v, err := rss(s.pid())
				if err != nil {
					t.Fatal(err)
				}
				sm.rss[i] = v
			}
			samples = append(samples, sm)
		case <-done:
			sampling = false
		}
	}
	tick.Stop()

	var bad []result
	var lat []time.Duration
	writes := 0
	for _, r := range l.results {
		if !r.ok() {
			bad = append(bad, r)
		}
		if r.write {
			writes++
		} else {
			lat = append(lat, r.latency)
		}
	}
	t.Logf("%d requests in %v (%.0f/s; %d writes), lookups p50 %v p99 %v max %v",
		len(l.results), dur, float64(len(l.results))/dur.Seconds(), writes,
		percentile(lat, 0.5), percentile(lat, 0.99), percentile(lat, 1))
	for i, r := range bad {
		if i == 10 {
			t.Errorf("... %d wrong answers in all", len(bad))
			break
		}
		t.Errorf("wrong answer: %v", r)
	}
	if want := int(0.5 * l.rate * dur.Seconds()); len(l.results) < want {
		t.Errorf("only %d requests answered, want at least %d (half the pace)", len(l.results), want)
	}

	// Memory: the first quarter is warm-up (connection pools, caches
	// filling, the runtime sizing its heap); over the rest the fitted
	// growth must stay under max(16 MiB, 15% of the level).
	warm := samples[len(samples)/4:]
	for i, s := range servers {
		var xs, ys []float64
		var sum float64
		for _, sm := range warm {
			xs = append(xs, sm.at)
			ys = append(ys, float64(sm.rss[i]))
			sum += float64(sm.rss[i])
		}
		mean := sum / float64(len(ys))
		growth := trend(xs, ys) * (xs[len(xs)-1] - xs[0])
		bound := max(16<<20, 0.15*mean)
		t.Logf("instance %d (%s): RSS %.1f MiB first, %.1f MiB last, mean %.1f MiB; fitted growth %.2f MiB over %.0fs (bound %.1f MiB)",
			i, s.URL, float64(samples[0].rss[i])/(1<<20), float64(samples[len(samples)-1].rss[i])/(1<<20), mean/(1<<20),
			growth/(1<<20), xs[len(xs)-1]-xs[0], bound/(1<<20))
		if growth > bound {
			t.Errorf("instance %d: RSS grows %.1f MiB over the run (bound %.1f MiB)", i, growth/(1<<20), bound/(1<<20))
		}
	}
}
