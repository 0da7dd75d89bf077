package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/urikit/urikit/resolver/sqlite"
)

// TestServeAdminToken: the first start prints a one-time admin token that
// works; later starts print none and the token still works;
// URIKIT_ADMIN_TOKEN wins when it is set.
func TestServeAdminToken(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data)
	if srv.Token == "" || !strings.Contains(srv.Out, "shown this once") {
		t.Fatalf("first start printed no admin token:\n%s", srv.Out)
	}
	// A new store is created, not "migrated from version 0".
	if log := srv.Log.String(); !strings.Contains(log, `"schema":"SQLite schema version `+strconv.Itoa(sqlite.Latest)+`, created"`) ||
		strings.Contains(log, "migrated") {
		t.Fatalf("first start's schema line:\n%s", log)
	}
	cli(t, exitOK, "authority", "list", "--server", srv.URL, "--token", srv.Token)
	_, errs := cli(t, exitInvalid, "authority", "list", "--server", srv.URL, "--token", "urikit_wrong")
	if !strings.Contains(errs, "unknown token") {
		t.Fatalf("a wrong token: %s", errs)
	}
	_, errs = cli(t, exitInvalid, "authority", "list", "--server", srv.URL)
	if !strings.Contains(errs, "(give the token with --token or URIKIT_TOKEN)") {
		t.Fatalf("no token: %s", errs)
	}
	if err := srv.Stop(t); err != nil {
		t.Fatalf("serve: %v", err)
	}

	again := startServer(t, data)
	if again.Token != "" || strings.Contains(again.Out, "admin token") {
		t.Fatalf("the second start printed a token again:\n%s", again.Out)
	}
	if log := again.Log.String(); !strings.Contains(log, `"schema":"SQLite schema version `+strconv.Itoa(sqlite.Latest)+`, up to date"`) {
		t.Fatalf("second start's schema line:\n%s", log)
	}
	cli(t, exitOK, "authority", "list", "--server", again.URL, "--token", srv.Token)
	again.Stop(t)

	// Configured by the environment alone: URIKIT_ADDR, URIKIT_DATA and
	// URIKIT_ADMIN_TOKEN.
	envData := filepath.Join(t.TempDir(), "from-env")
	fresh := startServerArgs(t, nil, envAddr+"=127.0.0.1:0", "URIKIT_DATA="+envData, envAdminToken+"=urikit_from-the-environment")
	if fresh.Token != "" {
		t.Fatalf("URIKIT_ADMIN_TOKEN set, yet a token was printed:\n%s", fresh.Out)
	}
	if !strings.Contains(fresh.Out, "(data directory "+envData+")") {
		t.Fatalf("URIKIT_DATA not used:\n%s", fresh.Out)
	}
	cli(t, exitOK, "authority", "list", "--server", fresh.URL, "--token", "urikit_from-the-environment")
}

// TestServeAdminTokenRotation: URIKIT_ADMIN_TOKEN set to a new token
// replaces the generated one for good (a restart without the variable
// does not bring the old one back), admin-token rotate beside a running
// server revokes the token at once, the store verifies after both, and a
// short URIKIT_ADMIN_TOKEN is warned of at start.
func TestServeAdminTokenRotation(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data)
	first := srv.Token
	if first == "" {
		t.Fatalf("no token printed:\n%s", srv.Out)
	}
	srv.Stop(t)

	const second = "urikit_the-operators-new-token"
	withEnv := startServer(t, data, envAdminToken+"="+second)
	cli(t, exitOK, "authority", "list", "--server", withEnv.URL, "--token", second)
	cli(t, exitInvalid, "authority", "list", "--server", withEnv.URL, "--token", first)
	withEnv.Stop(t)

	// Restarted without the variable: the generated token stays revoked.
	plain := startServer(t, data)
	if plain.Token != "" {
		t.Fatalf("a token was generated again:\n%s", plain.Out)
	}
	if _, errs := cli(t, exitInvalid, "authority", "list", "--server", plain.URL, "--token", first); !strings.Contains(errs, "unknown token") {
		t.Fatalf("the old generated token after a restart without the variable: %s", errs)
	}
	cli(t, exitOK, "authority", "list", "--server", plain.URL, "--token", second)

	// Rotated beside the running server: at once, no restart.
	out, _ := cli(t, exitOK, "admin-token", "rotate", "--data", data)
	third := tokenIn(t, out)
	if !strings.Contains(out, "shown once") || third == first || third == second {
		t.Fatalf("admin-token rotate printed:\n%s", out)
	}
	cli(t, exitInvalid, "authority", "list", "--server", plain.URL, "--token", second)
	cli(t, exitOK, "authority", "list", "--server", plain.URL, "--token", third)
	plain.Stop(t)
	if out, _ := cli(t, exitOK, "verify", "--data", data); !strings.Contains(out, "admin token") {
		t.Fatalf("verify after the rotations:\n%s", out)
	}

	// Started again with the variable of before the rotation (a stale
	// configuration): it starts and says so, and the store keeps the
	// current token, which a server without the variable still takes.
	stale := startServer(t, data, envAdminToken+"="+second)
	if !strings.Contains(stale.Log.String(), "a rotation replaced") {
		t.Fatalf("no warning of the replaced admin token in the log:\n%s", stale.Log.String())
	}
	stale.Stop(t)
	again := startServer(t, data)
	cli(t, exitInvalid, "authority", "list", "--server", again.URL, "--token", second)
	cli(t, exitOK, "authority", "list", "--server", again.URL, "--token", third)
	again.Stop(t)

	// A one-character token: the server starts (deployments in use set
	// short tokens), and its log warns of it, with what to do.
	short := startServer(t, data, envAdminToken+"=a")
	if code, _, _ := get(t, short.URL+"/healthz"); code != 200 {
		t.Fatalf("serve with a one-character admin token: /healthz %d", code)
	}
	if log := short.Log.String(); !strings.Contains(log, `"msg":"URIKIT_ADMIN_TOKEN is too short to be safe"`) ||
		!strings.Contains(log, "it is 1 bytes long; it should be at least 16") || !strings.Contains(log, "urikit admin-token rotate") {
		t.Fatalf("no warning of the short admin token in the log:\n%s", log)
	}
}

// TestBackupWhileServing: urikit backup copies the data directory of a
// running server, writes under way, into a new directory that verifies
// and has the history head the original had; an existing OUT is refused.
func TestBackupWhileServing(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	srv := startServer(t, data)
	o, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
	mtok := tokenIn(t, o)
	for i := range 5 {
		cli(t, exitOK, "register", fmt.Sprintf("urn:example:b%d", i), "https://example.org/", "--server", srv.URL, "--token", mtok)
	}
	// Writes go on while the copy is made: the copy is of one moment.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			runCLI("", "register", fmt.Sprintf("urn:example:w%d", i), "https://example.org/", "--server", srv.URL, "--token", mtok)
		}
	}()
	out := filepath.Join(dir, "copy")
	o, _ = cli(t, exitOK, "backup", "--data", data, out)
	<-done
	m := regexp.MustCompile(`history head (\d+) ([0-9a-f]{64})\n$`).FindStringSubmatch(o)
	if m == nil {
		t.Fatalf("backup printed %q", o)
	}
	if v, _ := cli(t, exitOK, "verify", "--data", out); !strings.Contains(v, "history verified: "+m[1]+" entries, the last "+m[1]+" with hash "+m[2]) {
		t.Fatalf("verify of the copy:\n%s", v)
	}
	// The original's history has the copy's head at the same place.
	log, err := openData(t, data).Log(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 7 || len(log) < n || fmt.Sprintf("%x", log[n-1].Hash) != m[2] {
		t.Fatalf("the copy's head %s %s is not the original's entry %s (of %d)", m[1], m[2], m[1], len(log))
	}
	srv.Stop(t)
	if head, err := openData(t, out).Head(context.Background()); err != nil || head.Seq != int64(n) {
		t.Fatalf("the copy's head: %+v %v", head, err)
	}
	if _, errs := cli(t, exitInvalid, "backup", "--data", data, out); !strings.Contains(errs, "exists already") {
		t.Fatalf("backup onto an existing directory: %s", errs)
	}
}

// TestServeEndToEnd: a fresh server answers as the quick start
// says, the CLI manages it, and its pages, health and metrics are there.
func TestServeEndToEnd(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data)

	// The first request, on a fresh directory.
	code, h, body := get(t, srv.URL+"/uri-res/N2L?urn:example:foo")
	if code != 404 || h.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, "no record for urn:example:foo") {
		t.Fatalf("fresh N2L: %d %s %s", code, h, body)
	}
	// A second server on the same directory is refused at once.
	cmd := child("serve", "--addr", "127.0.0.1:0", "--data", data)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another urikit serve") {
		t.Fatalf("second serve on one directory: %v %s", err, out)
	}

	t.Setenv(envServer, srv.URL)
	t.Setenv(envToken, srv.Token)
	o, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:")
	mtok := tokenIn(t, o)
	t.Setenv(envToken, mtok)
	// A maintainer finds its tokens' IDs (for token revoke) through the
	// server, as the admin does.
	for _, tok := range []string{srv.Token, mtok} {
		if o, _ := cli(t, exitOK, "authority", "show", "1", "--token", tok); !regexp.MustCompile(`(?m)^  1 +Example +\S+Z +-$`).MatchString(o) {
			t.Fatalf("authority show through the server: %q", o)
		}
	}
	cli(t, exitOK, "register", "urn:example:foo", "https://example.org/foo", "https://mirror.example/foo", "--type", "text/html")
	// An error about one input names it and its offset once, as on a
	// data directory.
	_, errs := cli(t, exitInvalid, "register", "urn:example:r1", "not-a-url")
	if errs != "urikit register: locations[0].url: not an absolute URI: missing ':' after scheme (at byte 9)\n" {
		t.Fatalf("register a bad URL through the server: %q", errs)
	}
	code, h, _ = get(t, srv.URL+"/uri-res/N2L?URN:EXAMPLE:foo")
	if code != 303 || h.Get("Location") != "https://example.org/foo" {
		t.Fatalf("N2L: %d %v", code, h)
	}
	code, _, body = get(t, srv.URL+"/urn:example:foo?s=I2Ls")
	if code != 200 || !strings.Contains(body, "https://mirror.example/foo") {
		t.Fatalf("I2Ls: %d %s", code, body)
	}
	o, _ = cli(t, exitOK, "lookup", "urn:example:foo")
	if !strings.Contains(o, "https://example.org/foo  (text/html)") {
		t.Fatalf("lookup: %s", o)
	}
	_, errs = cli(t, exitInvalid, "authority", "list")
	if !strings.Contains(errs, "only the admin token") {
		t.Fatalf("a maintainer listing authorities: %s", errs)
	}
	cli(t, exitOK, "withdraw", "urn:example:foo", "--successor", "urn:example:bar")
	code, h, _ = get(t, srv.URL+"/urn:example:foo")
	if code != 410 || !strings.Contains(h.Get("Link"), "urn:example:bar") {
		t.Fatalf("withdrawn: %d %v", code, h)
	}

	// Delegation: a rule added through the CLI is followed at once.
	t.Setenv(envToken, srv.Token)
	cli(t, exitOK, "rules", "add", "urn:nbn:de:", "https://dnb.example/")
	code, h, _ = get(t, srv.URL+"/urn:nbn:de:101-42")
	if code/100 != 3 || !strings.HasPrefix(h.Get("Location"), "https://dnb.example/uri-res/N2L?urn:nbn:de:101-42") {
		t.Fatalf("delegated: %d %v", code, h)
	}
	o, _ = cli(t, exitOK, "rules", "test", "urn:nbn:de:101-42")
	if !strings.Contains(o, h.Get("Location")) {
		t.Fatalf("rules test says another redirect than the server:\n%s\n%s", o, h.Get("Location"))
	}

	cli(t, exitOK, "register", "urn:example:x", "HTTP://Shared.Example/", "--token", mtok)
	cli(t, exitOK, "register", "urn:example:y", "http://shared.example:80/", "--token", mtok)
	o, _ = cli(t, exitOK, "duplicates")
	if o != "http://shared.example/\n  urn:example:x\n  urn:example:y\n" {
		t.Fatalf("duplicates: %q", o)
	}
	// Withdrawn, y no longer makes x a duplicate, but for --withdrawn.
	cli(t, exitOK, "withdraw", "urn:example:y", "--token", mtok)
	if o, _ = cli(t, exitOK, "duplicates"); o != "" {
		t.Fatalf("duplicates, y withdrawn: %q", o)
	}
	o, _ = cli(t, exitOK, "duplicates", "--withdrawn")
	if o != "http://shared.example/\n  urn:example:x (active)\n  urn:example:y (withdrawn)\n" {
		t.Fatalf("duplicates --withdrawn: %q", o)
	}

	// The Go runtime's and the process's series beside the handler's.
	if code, _, body := get(t, srv.URL+"/metrics"); code != 200 || !strings.Contains(body, "\ngo_goroutines ") ||
		!strings.Contains(body, "\nprocess_resident_memory_bytes ") {
		t.Errorf("/metrics: %d, no go_goroutines or process_resident_memory_bytes:\n%.2000s", code, body)
	}
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/metrics": "urikit_http_requests_total",
		"/api/v1/openapi.json": `"/api/v1/duplicates"`, "/": "<form", "/names/urn:example:x": "urn:example:x"} {
		code, _, body := get(t, srv.URL+path)
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, body lacks %q", path, code, want)
		}
	}
	if err := srv.Stop(t); err != nil {
		t.Fatalf("serve: %v\n%s", err, srv.Log)
	}
	// The data directory is usable directly once the server is gone.
	t.Setenv(envServer, "")
	o, _ = cli(t, exitOK, "lookup", "urn:example:x", "--data", data)
	if !strings.Contains(o, "HTTP://Shared.Example/") {
		t.Fatalf("local lookup after serve: %s", o)
	}
	if !strings.Contains(srv.Log.String(), `"msg":"request"`) || !strings.Contains(srv.Log.String(), `"msg":"stopped"`) {
		t.Fatalf("the JSON log lacks requests or the stop:\n%s", srv.Log)
	}
}

// TestServeGracefulShutdown: SIGTERM while a request is half sent; the
// request is still answered and its write kept, then the process ends
// with status 0 and new connections are refused.
func TestServeGracefulShutdown(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data)
	o, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
	mtok := tokenIn(t, o)

	addr := strings.TrimPrefix(srv.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"locations":[{"url":"https://example.org/slow"}]}`
	fmt.Fprintf(c, "PUT /api/v1/names/urn:example:slow HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		addr, mtok, len(body), body[:10])
	time.Sleep(300 * time.Millisecond) // the server is now reading the body
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case <-srv.done:
		t.Fatalf("the server ended with a request under way: %v\n%s", srv.exitErr, srv.Log)
	default:
	}
	io.WriteString(c, body[10:])
	c.SetDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to the request under way: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("the request under way: %d", res.StatusCode)
	}
	select {
	case <-srv.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not end after SIGTERM")
	}
	if srv.exitErr != nil {
		t.Fatalf("exit: %v\n%s", srv.exitErr, srv.Log)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("the server still accepts connections")
	}
	log := srv.Log.String()
	if !strings.Contains(log, "shutting down") || !strings.Contains(log, `"msg":"stopped"`) {
		t.Fatalf("log:\n%s", log)
	}
	// The write was kept, and the store was closed cleanly: it opens.
	cli(t, exitOK, "lookup", "urn:example:slow", "--data", data)
	cli(t, exitOK, "verify", "--data", data)
}

// TestServeDNS: with --dns, a name with no record and no rule is found by
// DDDS discovery (RFC 3404) through a DNS server on loopback.
func TestServeDNS(t *testing.T) {
	hermetic(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	zone := `nbn.urn.arpa. 300 IN NAPTR 100 10 "U" "THTTP+I2L+I2R" "!^(urn:nbn:[^?#]*).*$!https://ddds.example/resolve?\\1!" .`
	rr, err := dns.NewRR(zone)
	if err != nil {
		t.Fatal(err)
	}
	h := dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		m.Authoritative = true
		if len(q.Question) == 1 && strings.EqualFold(q.Question[0].Name, "nbn.urn.arpa.") && q.Question[0].Qtype == dns.TypeNAPTR {
			m.Answer = append(m.Answer, rr)
		} else {
			m.Rcode = dns.RcodeNameError
		}
		w.WriteMsg(m)
	})
	ds := &dns.Server{PacketConn: pc, Handler: h}
	go ds.ActivateAndServe()
	defer ds.Shutdown()

	srv := startServer(t, filepath.Join(t.TempDir(), "data"), envDNS+"="+pc.LocalAddr().String())
	code, hd, body := get(t, srv.URL+"/urn:nbn:fi:abc-123")
	if code/100 != 3 || hd.Get("Location") != "https://ddds.example/resolve?urn:nbn:fi:abc-123" {
		t.Fatalf("DDDS: %d %v %s\n%s", code, hd, body, srv.Log)
	}
	code, _, _ = get(t, srv.URL+"/urn:example:none")
	if code != 404 {
		t.Fatalf("a name outside the zone: %d", code)
	}
}
