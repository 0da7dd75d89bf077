package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// urikitBin is the urikit binary TestMain builds once for every test.
var urikitBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "urikit-loadtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	urikitBin = filepath.Join(dir, "urikit")
	build := exec.Command("go", "build", "-o", urikitBin, "github.com/urikit/urikit/cmd/urikit")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: building urikit:", err)
		return 1
	}
	return m.Run()
}

// soak is how long the steady load runs: URIKIT_SOAK, default d.
func soak(t *testing.T, d time.Duration) time.Duration {
	if s := os.Getenv("URIKIT_SOAK"); s != "" {
		v, err := time.ParseDuration(s)
		if err != nil || v <= 0 {
			t.Fatalf("URIKIT_SOAK=%q is not a duration", s)
		}
		return v
	}
	return d
}

const adminToken = "loadtest-admin-token-0123456789"

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

// server is one `urikit serve` process.
type server struct {
	URL  string
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	err  error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer starts `urikit serve` on a free loopback port with args
// added, and waits until it answers /healthz.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(urikitBin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "URIKIT_ADMIN_TOKEN="+adminToken)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.stop(t) })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case u, ok := <-addr:
		if !ok {
			<-s.done
			t.Fatalf("urikit serve did not start (%v):\n%s", s.err, s.log)
		}
		s.URL = u
	case <-time.After(60 * time.Second):
		t.Fatalf("urikit serve printed no address in 60s:\n%s", s.log)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := client.Get(s.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("urikit serve at %s does not answer /healthz: %v\n%s", s.URL, err, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop ends the server gracefully (SIGTERM) unless it has ended already.
func (s *server) stop(t *testing.T) {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(40 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("urikit serve did not stop within 40s of SIGTERM:\n%s", s.log)
	}
}

// kill ends the server with SIGKILL, as a crash does.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// rss is the resident set of process pid in bytes, from /proc.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			kib, err := strconv.ParseInt(f[0], 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// client never follows redirects: a 303 is the answer under test. Its
// timeout is far above every bound the tests assert, so that a hang shows
// as a measured latency, not as a client error.
var client = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Transport: &http.Transport{
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	},
}

// do sends one request and returns the status, the Location header and
// the body (read whole, so the connection is reused).
func do(method, url, token string, body any) (int, string, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, "", nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, "", nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), b, err
}

// newAuthority creates a naming authority owning urn:example: through s
// and returns its token.
func newAuthority(t *testing.T, s *server) string {
	t.Helper()
	st, _, b, err := do("POST", s.URL+"/api/v1/authorities", adminToken,
		map[string]any{"name": "Load test", "prefixes": []string{"urn:example:"}})
	if err != nil || st != 201 {
		t.Fatalf("creating the authority: %d %v %s", st, err, b)
	}
	var a struct{ Token string }
	if err := json.Unmarshal(b, &a); err != nil || a.Token == "" {
		t.Fatalf("creating the authority: no token in %s (%v)", b, err)
	}
	return a.Token
}

// put registers name with one location through s; it returns the status.
func put(s *server, token, name, loc string) (int, error) {
	st, _, b, err := do("PUT", s.URL+"/api/v1/names/"+escapeName(name), token,
		map[string]any{"locations": []map[string]string{{"url": loc}}})
	if err == nil && st != 200 && st != 201 && st != 503 {
		err = fmt.Errorf("PUT %s: %d %s", name, st, b)
	}
	return st, err
}

// escapeName makes a name one path segment (its / and % encoded).
func escapeName(name string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F").Replace(name)
}

// i2l resolves name through s and returns the status, the location and
// the time it took.
func i2l(s *server, name string) (int, string, time.Duration, error) {
	start := time.Now()
	st, loc, _, err := do("GET", s.URL+"/uri-res/I2L?"+name, "", nil)
	return st, loc, time.Since(start), err
}

func ready(s *server) int {
	st, _, _, err := do("GET", s.URL+"/readyz", "", nil)
	if err != nil {
		return 0
	}
	return st
}

func name(i int) string     { return fmt.Sprintf("urn:example:load:%06d", i) }
func location(i int) string { return fmt.Sprintf("https://example.org/load/%d", i) }
func wname(w, i int) string { return fmt.Sprintf("urn:example:write:%d:%06d", w, i) }
func wloc(w, i int) string  { return fmt.Sprintf("https://example.org/write/%d/%d", w, i) }

// trend fits a least-squares line to the samples (seconds, bytes) and
// returns its slope in bytes per second.
func trend(xs []float64, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
