package loadtest

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// failFast bounds every answer while PostgreSQL is down: a request must
// end in a 503 within this, never hang until a client gives up.
const failFast = 3 * time.Second

// TestPostgresStopsUnderLoad stops PostgreSQL under the mixed load on two
// instances and starts it again: /readyz turns unready on both, every
// request in the outage is answered 503 (or rightly) within failFast, the
// instances recover by themselves (same processes), and every write
// answered 201 is there afterwards, through both instances.
func TestPostgresStopsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: not in -short")
	}
	c, servers, tok := twoInstances(t, 500)
	l := &load{servers: servers, token: tok, names: 500, rate: 200, workers: 16, writePct: 20}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	time.Sleep(3 * time.Second)
	stopping := time.Now()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	t.Logf("PostgreSQL stopped in %v", stopped.Sub(stopping))
	for i, s := range servers {
		deadline := time.Now().Add(10 * time.Second)
		for ready(s) == 200 {
			if time.Now().After(deadline) {
				t.Fatalf("instance %d: /readyz still 200 10s after PostgreSQL stopped", i)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("instance %d: /readyz unready %v after the stop", i, time.Since(stopped).Round(time.Millisecond))
	}
	time.Sleep(4 * time.Second)
	starting := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	var recovered time.Time
	for i, s := range servers {
		deadline := time.Now().Add(30 * time.Second)
		for ready(s) != 200 {
			if time.Now().After(deadline) {
				t.Fatalf("instance %d: /readyz not ready 30s after PostgreSQL started:\n%s", i, s.log)
			}
			time.Sleep(50 * time.Millisecond)
		}
		recovered = time.Now()
		t.Logf("instance %d: ready again %v after PostgreSQL was up", i, recovered.Sub(started).Round(time.Millisecond))
	}
	time.Sleep(3 * time.Second)
	cancel()
	<-done

	var before, during, after, unavailable int
	var outage []time.Duration
	for _, r := range l.results {
		end := r.start.Add(r.latency)
		switch {
		case end.Before(stopping):
			before++
			if !r.ok() {
				t.Errorf("before the stop: %v", r)
			}
		case r.start.After(stopped) && end.Before(starting):
			during++
			outage = append(outage, r.latency)
			if r.status == 503 {
				unavailable++
			} else if !r.ok() {
				t.Errorf("PostgreSQL down: want 503 (or a right answer), got %v", r)
			}
			if r.latency > failFast {
				t.Errorf("PostgreSQL down: answered after %v (bound %v): %v", r.latency, failFast, r)
			}
		case r.start.After(recovered):
			after++
			if !r.ok() {
				t.Errorf("after recovery: %v", r)
			}
		}
	}
	t.Logf("requests: %d before the stop, %d in the outage (%d answered 503; latency p50 %v, p99 %v, max %v), %d after recovery",
		before, during, unavailable, percentile(outage, 0.5), percentile(outage, 0.99), percentile(outage, 1), after)
	if unavailable == 0 {
		t.Error("no request was answered 503 while PostgreSQL was down: the outage was not observed")
	}
	if after == 0 {
		t.Error("no request after recovery")
	}

	// Every acknowledged write is there, through both instances.
	missing := 0
	for nm, want := range l.acked {
		for i, s := range servers {
			st, loc, _, err := i2l(s, nm)
			if err != nil || st != 303 || loc != want {
				missing++
				if missing <= 10 {
					t.Errorf("acknowledged write %s through instance %d: %d %q %v, want 303 %q", nm, i, st, loc, err, want)
				}
			}
		}
	}
	t.Logf("%d acknowledged writes checked through both instances, %d missing", len(l.acked), missing)
}

// TestEmbeddedKill9WhileWriting kills `urikit serve` on the embedded
// store with SIGKILL while clients write, three times: after each restart
// every write answered 201 is there and resolves to its location, and
// `urikit verify` finds the history chain intact.
func TestEmbeddedKill9WhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: not in -short")
	}
	data := t.TempDir()
	s := startServer(t, "--data", data)
	tok := newAuthority(t, s)
	acked := map[string]string{}
	var mu sync.Mutex
	for round := range 3 {
		var wg sync.WaitGroup
		stopAt := time.Now().Add(1500 * time.Millisecond)
		for w := range 6 {
			wg.Go(func() {
				for k := 0; ; k++ {
					nm, loc := wname(round*100+w, k), wloc(round*100+w, k)
					st, err := put(s, tok, nm, loc)
					if err != nil && st == 0 {
						return // the server is gone
					}
					if st == 201 {
						mu.Lock()
						acked[nm] = loc
						mu.Unlock()
					}
					if time.Now().After(stopAt.Add(10 * time.Second)) {
						return
					}
				}
			})
		}
		time.Sleep(time.Until(stopAt))
		s.kill()
		wg.Wait()
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n == 0 {
			t.Fatalf("round %d: no write acknowledged before the kill", round)
		}
		s = startServer(t, "--data", data)
		missing := 0
		for nm, want := range acked {
			st, loc, _, err := i2l(s, nm)
			if err != nil || st != 303 || loc != want {
				missing++
				if missing <= 10 {
					t.Errorf("round %d: acknowledged write %s: %d %q %v, want 303 %q", round, nm, st, loc, err, want)
				}
			}
		}
		t.Logf("round %d: killed with %d acknowledged writes in all; %d missing after restart", round, n, missing)
	}
	s.stop(t)
	out, err := exec.Command(urikitBin, "verify", "--data", data).CombinedOutput()
	if err != nil {
		t.Errorf("urikit verify after the crashes: %v\n%s", err, out)
	}
	t.Logf("urikit verify: %s", out)
}
