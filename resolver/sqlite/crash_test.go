package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/urn"
)

// The crash test runs this test binary again as a child that writes
// through the Service until the parent kills it with SIGKILL.
const (
	envCrashDir   = "URIKIT_SQLITE_CRASH_DIR"
	envCrashRound = "URIKIT_SQLITE_CRASH_ROUND"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envCrashDir); dir != "" {
		crashChild(dir, os.Getenv(envCrashRound))
		os.Exit(0)
	}
	code := m.Run()
	if lookupDir != "" {
		os.RemoveAll(lookupDir) // the benchmarks' fixture
	}
	os.Exit(code)
}

func crashName(round string, i int) string { return fmt.Sprintf("urn:example:crash:%s-%d", round, i) }

func crashInput(i int, locations int) resolver.RecordInput {
	in := resolver.RecordInput{Metadata: []byte(fmt.Sprintf(`{"i":%d}`, i))}
	for l := range locations {
		in.Locations = append(in.Locations, resolver.Location{URL: fmt.Sprintf("https://example.org/crash/%d/%d", i, l)})
	}
	return in
}

// crashChild writes until it is killed, and prints one line per write
// after the Service acknowledged it: "put N" for a new record (by Put or in
// a PutMany batch), "upd N" for record N replaced with two locations. Each
// line is written straight to the pipe (os.Stdout is unbuffered), so what
// the parent reads is exactly what was acknowledged.
func crashChild(dir, round string) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	svc := resolver.New(st, resolver.Options{})
	deadline := time.Now().Add(time.Minute) // the parent kills it long before
	for i, step := 0, 0; time.Now().Before(deadline); step++ {
		switch step % 3 {
		case 0:
			if _, _, err := svc.Put(ctx, resolver.Operator, crashName(round, i), crashInput(i, 1)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Printf("put %d\n", i)
			i++
		case 1:
			var batch []resolver.NamedInput
			for j := i; j < i+20; j++ {
				batch = append(batch, resolver.NamedInput{URN: crashName(round, j), RecordInput: crashInput(j, 1)})
			}
			res, err := svc.PutMany(ctx, resolver.Operator, batch)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			for j, r := range res {
				if r.Err != nil {
					fmt.Fprintln(os.Stderr, r.Err)
					os.Exit(2)
				}
				fmt.Printf("put %d\n", i+j)
			}
			i += 20
		case 2:
			if _, _, err := svc.Put(ctx, resolver.Operator, crashName(round, i-1), crashInput(i-1, 2)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Printf("upd %d\n", i-1)
			i++
		}
	}
}

// TestCrash: kill -9 a process writing through the Service, several times
// at random moments; after each, every write it reported is there and
// intact, the file passes SQLite's integrity check, and the history
// verifies.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	ctx := context.Background()
	dir := t.TempDir()
	f := newFixture(t, dir)
	f.st.Close()

	for round := range 4 {
		r := strconv.Itoa(round)
		acked := runAndKill(t, dir, r, time.Duration(200+rand.IntN(600))*time.Millisecond)

		st := openStore(t, dir, sqlite.Options{})
		svc := resolver.New(st, resolver.Options{})
		puts, upds := 0, 0
		for line := range acked {
			op, n, _ := strings.Cut(line, " ")
			i, err := strconv.Atoi(n)
			if err != nil || (op != "put" && op != "upd") {
				t.Fatalf("child said %q", line)
			}
			if op == "upd" {
				upds++ // checked with the record's "put" line, which came first
				continue
			}
			puts++
			rec, err := svc.Lookup(ctx, urn.MustParse(crashName(r, i)))
			if err != nil {
				t.Fatalf("round %d: acknowledged %q is gone: %v", round, line, err)
			}
			want := crashInput(i, 1)
			if acked["upd "+n] {
				want = crashInput(i, 2)
			}
			// A put not reported as replaced may have been replaced by an
			// update the child did not live to report: one or two locations.
			if len(rec.Locations) != len(want.Locations) && (acked["upd "+n] || len(rec.Locations) != 2) {
				t.Fatalf("round %d: %s has %d locations, want %d", round, rec.URN, len(rec.Locations), len(want.Locations))
			}
			for l, loc := range rec.Locations {
				if wantURL := fmt.Sprintf("https://example.org/crash/%d/%d", i, l); loc.URL != wantURL {
					t.Fatalf("round %d: %s location %d is %q, want %q", round, rec.URN, l, loc.URL, wantURL)
				}
			}
			if string(rec.Metadata) != string(want.Metadata) {
				t.Fatalf("round %d: %s metadata %s, want %s", round, rec.URN, rec.Metadata, want.Metadata)
			}
		}
		var check string
		if err := rawDB(t, st).QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("round %d: integrity check: %q %v", round, check, err)
		}
		n, err := svc.Verify(ctx, nil)
		if err != nil {
			t.Fatalf("round %d: verify: %v", round, err)
		}
		t.Logf("round %d: %d puts and %d updates acknowledged before kill -9; all there; %d history entries verify", round, puts, upds, n)
		if puts == 0 {
			t.Fatalf("round %d: the child acknowledged nothing before it was killed", round)
		}
		st.Close()
	}
}

// runAndKill runs the child for about d (at least until its first
// acknowledged write), kills it with SIGKILL, and returns every line it
// printed.
func runAndKill(t *testing.T, dir, round string, d time.Duration) map[string]bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashRound+"="+round)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1<<16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	acked := map[string]bool{}
	timer := time.NewTimer(d)
	giveUp := time.NewTimer(30 * time.Second)
	defer giveUp.Stop()
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the child ended by itself: %s", stderr.String())
			}
			acked[l] = true
		case <-timer.C:
			if len(acked) > 0 {
				break wait
			}
			timer.Reset(10 * time.Millisecond)
		case <-giveUp.C:
			cmd.Process.Kill()
			t.Fatalf("the child acknowledged nothing in 30s: %s", stderr.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for l := range lines { // what it printed before it died
		acked[l] = true
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("the child did not die of the kill: %v: %s", err, stderr.String())
	}
	return acked
}
