package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestMain lets the test binary stand in for urikit: with
// URIKIT_TEST_CHILD=1 it runs the command line it was given, so that tests
// start real processes (a server to send SIGTERM to, an import to kill -9)
// without building the command first.
func TestMain(m *testing.M) {
	if os.Getenv("URIKIT_TEST_CHILD") == "1" {
		os.Exit(run(os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
	}
	os.Exit(m.Run())
}

// hermetic clears the environment the resolver commands read, so that a
// developer's URIKIT_SERVER never receives a test's writes.
func hermetic(t testing.TB) {
	t.Helper()
	for _, v := range []string{envServer, envToken, envData, envDB, envAddr, envReadDB, envDNS, envAdminToken, envCache, envLogFormat, envLogLevel} {
		t.Setenv(v, "")
	}
}

// childEnv is the environment of a child urikit: this one without any
// URIKIT_ variable, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "URIKIT_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "URIKIT_TEST_CHILD=1"), extra...)
}

// child is a urikit process (this test binary) running args.
func child(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = childEnv()
	return cmd
}

// syncBuffer is a buffer written by one goroutine and read by another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// server is a urikit serve process on a loopback port the system picked.
type server struct {
	URL, Token string // Token: the admin token it printed, if it printed one
	Out        string // what it printed on standard output at start
	Log        *syncBuffer
	cmd        *exec.Cmd
	done       chan struct{}
	exitErr    error
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)
var tokenRE = regexp.MustCompile(`(?m)^\s+(urikit_[A-Za-z0-9_-]{20,})\s*$`)

// startServer runs urikit serve on data with extra environment
// variables, and waits until it answers /healthz. It is stopped (SIGTERM)
// when the test ends, unless the test stopped it.
func startServer(t *testing.T, data string, env ...string) *server {
	t.Helper()
	return startServerArgs(t, []string{"--data", data}, env...)
}

// startServerArgs runs urikit serve with args (which say where the store
// is) on a loopback port.
func startServerArgs(t *testing.T, args []string, env ...string) *server {
	t.Helper()
	base := []string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}
	for _, kv := range env {
		if strings.HasPrefix(kv, envAddr+"=") {
			base = []string{"serve", "--log-format", "json"} // the address comes from the environment
		}
	}
	cmd := child(append(base, args...)...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{Log: &syncBuffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = s.Log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.exitErr = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.Stop(t) })

	// The address line and the token block come in one write.
	got := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		var b strings.Builder
		for {
			line, err := r.ReadString('\n')
			b.WriteString(line)
			if listeningRE.MatchString(line) {
				for r.Buffered() > 0 {
					more, err := r.ReadString('\n')
					b.WriteString(more)
					if err != nil {
						break
					}
				}
				got <- b.String()
				io.Copy(io.Discard, r)
				return
			}
			if err != nil {
				got <- b.String()
				return
			}
		}
	}()
	select {
	case s.Out = <-got:
	case <-time.After(60 * time.Second):
		t.Fatalf("urikit serve printed no address in 60s; log:\n%s", s.Log)
	}
	m := listeningRE.FindStringSubmatch(s.Out)
	if m == nil {
		<-s.done
		t.Fatalf("urikit serve did not start (%v):\n%s\n%s", s.exitErr, s.Out, s.Log)
	}
	s.URL = m[1]
	if m := tokenRE.FindStringSubmatch(s.Out); m != nil {
		s.Token = m[1]
	}
	for i := 0; ; i++ {
		res, err := http.Get(s.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if i > 200 {
			t.Fatalf("urikit serve at %s does not answer: %v\n%s", s.URL, err, s.Log)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return s
}

// Stop sends SIGTERM and waits for the process to end; it returns the
// exit error (nil for status 0).
func (s *server) Stop(t *testing.T) error {
	select {
	case <-s.done:
		return s.exitErr
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(45 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("urikit serve did not stop within 45s of SIGTERM; log:\n%s", s.Log)
	}
	return s.exitErr
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// get sends GET target and returns the status, a header and the body.
func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	res, err := noRedirect.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// cli runs urikit in process and fails the test unless it exits with
// want; it returns standard output and standard error.
func cli(t testing.TB, want int, args ...string) (string, string) {
	t.Helper()
	code, out, errs := runCLI("", args...)
	if code != want {
		t.Fatalf("urikit %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errs)
	}
	return out, errs
}

// tokenIn returns the token a command printed.
func tokenIn(t *testing.T, out string) string {
	t.Helper()
	m := tokenRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no token in %q", out)
	}
	return m[1]
}

// openData opens a data directory's store for checks.
func openData(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openDB opens the PostgreSQL store at dsn for the test's length.
func openDB(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// history counts a store's history entries by action.
func history(t *testing.T, st resolver.Store) map[resolver.Action]int {
	t.Helper()
	n := map[resolver.Action]int{}
	var after int64
	for {
		es, err := st.Log(context.Background(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			return n
		}
		for _, e := range es {
			n[e.Action]++
		}
		after = es[len(es)-1].Seq
	}
}

// countRecords counts a store's records by status.
func countRecords(t *testing.T, st resolver.Store) (active, withdrawn int) {
	t.Helper()
	var after int64
	for {
		recs, err := st.Records(context.Background(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			return
		}
		for _, r := range recs {
			if r.Status == resolver.Withdrawn {
				withdrawn++
			} else {
				active++
			}
		}
		after = recs[len(recs)-1].ID
	}
}

// genRecords writes n records as JSON Lines: every 10th has two
// locations, every 7th metadata, every 13th an alias, every 500th is
// withdrawn. It returns the number withdrawn.
func genRecords(t testing.TB, path string, n int) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	withdrawn := 0
	for i := range n {
		fmt.Fprintf(w, `{"urn":"urn:example:rec-%07d"`, i)
		if i%13 == 0 {
			fmt.Fprintf(w, `,"aliases":["urn:example:alias-%07d"]`, i)
		}
		fmt.Fprintf(w, `,"locations":[{"url":"https://example.org/items/%d","type":"text/html"}`, i)
		if i%10 == 0 {
			fmt.Fprintf(w, `,{"url":"https://mirror.example.net/%d","label":"mirror"}`, i)
		}
		w.WriteString("]")
		if i%7 == 0 {
			fmt.Fprintf(w, `,"metadata":{"title":"Item %d"}`, i)
		}
		if i%500 == 499 {
			fmt.Fprintf(w, `,"status":"withdrawn","reason":"test","successor":"urn:example:rec-%07d"`, i-1)
			withdrawn++
		}
		w.WriteString("}\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return withdrawn
}
