package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is one running (or stopped) PostgreSQL server with its own data
// directory. Its methods are safe for concurrent use.
type Cluster struct {
	bin     string
	acct    account
	base    string // temporary directory holding data, socket and log; removed by Close (primary only)
	data    string
	sock    string
	logPath string
	port    int
	opts    Options
	primary *Cluster // for a replica: the cluster it streams from

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has exited
	replicas []*Cluster
	closed   bool

	dbs      atomic.Int64 // databases made by NewDB, for unique names
	unusable error        // set by Main when no cluster could be made
}

// New makes and starts a cluster: initdb into a new temporary directory,
// then the server on a free loopback port. Close stops it and removes the
// directory. The error wraps ErrNotInstalled when there are no binaries.
func New(opts Options) (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp("", "urikit-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin, acct: acct, base: base, opts: opts,
		data: filepath.Join(base, "data"), sock: filepath.Join(base, "sock"), logPath: filepath.Join(base, "server.log")}
	fail := func(err error) (*Cluster, error) {
		os.RemoveAll(base)
		return nil, err
	}
	if err := os.Mkdir(c.sock, 0o700); err != nil {
		return fail(err)
	}
	if err := acct.chownTree(base); err != nil {
		return fail(fmt.Errorf("pgtest: giving %s to %s: %w", base, acct.name, err))
	}
	// initdb: C locale and UTF-8, so that text sorts by bytes (the order
	// the stores promise for keys) whatever the machine's locale is.
	out, err := c.run(context.Background(), "initdb", "-D", c.data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if err != nil {
		return fail(fmt.Errorf("pgtest: initdb: %w\n%s", err, out))
	}
	if err := c.startFresh(); err != nil {
		return fail(err)
	}
	return c, nil
}

// run runs one of the PostgreSQL programs as the cluster's account.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.base
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = c.acct.procAttr()
	return cmd.CombinedOutput()
}

func (a account) procAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if !a.self {
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, NoSetGroups: true}
	}
	return attr
}

// freePort returns a loopback TCP port that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startFresh picks a port and starts the server, trying another port when
// someone else took the one picked in between.
func (c *Cluster) startFresh() error {
	var err error
	for range 5 {
		if c.port, err = freePort(); err != nil {
			return err
		}
		if err = c.Start(); err == nil || !errors.Is(err, errPortTaken) {
			return err
		}
	}
	return err
}

var errPortTaken = errors.New("port taken")

// Start starts the server (again) on its port and waits until it accepts
// connections; starting a running server does nothing.
func (c *Cluster) Start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("pgtest: cluster closed")
	}
	if c.cmd != nil {
		return nil
	}
	args := []string{"-D", c.data, "-p", strconv.Itoa(c.port), "-k", c.sock,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
		"-c", "shared_buffers=64MB", "-c", "log_min_messages=warning", "-c", "log_checkpoints=off"}
	settings := map[string]string{}
	if !c.opts.Durable {
		settings["fsync"] = "off"
		settings["full_page_writes"] = "off"
	}
	for k, v := range c.opts.Settings {
		settings[k] = v
	}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-c", k+"="+settings[k])
	}
	logf, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	offset, _ := logf.Seek(0, 2)
	cmd := exec.Command(filepath.Join(c.bin, "postgres"), args...)
	cmd.Dir = c.base
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = c.acct.procAttr()
	// If the test binary dies (a panic, a timeout, kill -9), the server
	// shuts down at once instead of living on. Go sets this after
	// switching users, so the switch does not clear it.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			msg := logSince(c.logPath, offset)
			if containsAny(msg, "could not bind", "Address already in use") {
				return fmt.Errorf("pgtest: %w: %d", errPortTaken, c.port)
			}
			return fmt.Errorf("pgtest: postgres exited at start:\n%s", msg)
		default:
		}
		if c.ping() == nil {
			c.cmd, c.exited = cmd, exited
			return nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Signal(syscall.SIGQUIT)
			<-exited
			return fmt.Errorf("pgtest: postgres did not accept connections within a minute:\n%s", logSince(c.logPath, offset))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *Cluster) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// Stop shuts the server down the way an administrator does (fast
// shutdown: connections are closed, everything committed is on disk) and
// waits for it to exit. Stopping a stopped server does nothing.
func (c *Cluster) Stop() error { return c.stop(syscall.SIGINT) }

// Crash stops the server the way a power failure would (immediate
// shutdown, no checkpoint): the next Start recovers from the WAL.
func (c *Cluster) Crash() error { return c.stop(syscall.SIGQUIT) }

func (c *Cluster) stop(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return nil
	}
	cmd, exited := c.cmd, c.exited
	c.cmd, c.exited = nil, nil
	for _, p := range serverProcs(cmd.Process.Pid) {
		syscall.Kill(p.pid, syscall.SIGCONT) // a frozen server could not stop
	}
	cmd.Process.Signal(sig)
	select {
	case <-exited:
		return nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-exited
		return errors.New("pgtest: postgres did not stop within a minute; killed")
	}
}

// Freeze stops every process of the server (SIGSTOP) without closing
// anything: connections stay open and unanswered, as with a server that
// hangs or a network that drops packets. Thaw resumes it.
func (c *Cluster) Freeze() error { return c.signalAll(syscall.SIGSTOP) }

// Thaw resumes a frozen server.
func (c *Cluster) Thaw() error { return c.signalAll(syscall.SIGCONT) }

// signalAll signals the postmaster and every process it started (each
// backend is a session of its own, so a process group does not reach
// them). The postmaster goes first on SIGSTOP, so that it forks no new
// backend meanwhile, and last on SIGCONT.
func (c *Cluster) signalAll(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return errors.New("pgtest: server not running")
	}
	root := c.cmd.Process.Pid
	if sig == syscall.SIGSTOP {
		if err := syscall.Kill(root, sig); err != nil {
			return err
		}
	}
	for _, p := range serverProcs(root) {
		if p.pid != root {
			syscall.Kill(p.pid, sig) // one may have exited meanwhile
		}
	}
	if sig != syscall.SIGSTOP {
		return syscall.Kill(root, sig)
	}
	return nil
}

// Running reports whether the server process is up.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return false
	}
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// Close stops the server and its replicas and removes every file of the
// cluster. It is safe to call more than once.
func (c *Cluster) Close() error {
	c.mu.Lock()
	reps := c.replicas
	c.replicas = nil
	c.mu.Unlock()
	var errs []error
	for _, r := range reps {
		errs = append(errs, r.Close())
	}
	errs = append(errs, c.Stop())
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if c.primary == nil {
		errs = append(errs, os.RemoveAll(c.base))
	} else {
		errs = append(errs, os.RemoveAll(c.data))
	}
	return errors.Join(errs...)
}

// Port is the server's TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// DataDir is the cluster's data directory.
func (c *Cluster) DataDir() string { return c.data }

// Log returns the server's log so far (for a failing test's message).
func (c *Cluster) Log() string { return tail(c.logPath, 200) }

// DSN is a connection string for database db as the superuser "postgres",
// over TCP on loopback.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// CreateDB creates database name and returns its DSN.
func (c *Cluster) CreateDB(ctx context.Context, name string) (string, error) {
	if err := c.exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.DSN(name), nil
}

// DropDB drops database name, closing the connections still open to it.
func (c *Cluster) DropDB(ctx context.Context, name string) error {
	return c.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// Exec runs SQL statements in the "postgres" database as the superuser.
func (c *Cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// uniqueName returns a database name no other NewDB of any process picks.
func (c *Cluster) uniqueName() string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("t%d_%s", c.dbs.Add(1), hex.EncodeToString(b[:]))
}

// NewReplica makes a streaming replica of c with pg_basebackup -R into a
// data directory beside c's, starts it (hot standby, read-only) on another
// loopback port, and waits until it accepts connections and streams from
// c. Close on c closes the replica too.
func (c *Cluster) NewReplica() (*Cluster, error) {
	c.mu.Lock()
	n := len(c.replicas) + 1
	c.mu.Unlock()
	r := &Cluster{bin: c.bin, acct: c.acct, base: c.base, opts: c.opts, primary: c,
		data:    filepath.Join(c.base, fmt.Sprintf("replica%d", n)),
		sock:    c.sock,
		logPath: filepath.Join(c.base, fmt.Sprintf("replica%d.log", n))}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.run(ctx, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", "postgres",
		"-D", r.data, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	if err != nil {
		return nil, fmt.Errorf("pgtest: pg_basebackup: %w\n%s", err, out)
	}
	if err := r.startFresh(); err != nil {
		os.RemoveAll(r.data)
		return nil, err
	}
	if err := r.waitStreaming(ctx); err != nil {
		r.Stop()
		os.RemoveAll(r.data)
		return nil, err
	}
	c.mu.Lock()
	c.replicas = append(c.replicas, r)
	c.mu.Unlock()
	return r, nil
}

// waitStreaming waits until a standby's WAL receiver streams from its
// primary: a standby that has just started may first replay what it has
// and retry the connection seconds later.
func (c *Cluster) waitStreaming(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for {
		var status string
		err := conn.QueryRow(ctx, "SELECT coalesce((SELECT status FROM pg_stat_wal_receiver), '')").Scan(&status)
		if err != nil {
			return fmt.Errorf("pgtest: replica: %w", err)
		}
		if status == "streaming" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgtest: replica not streaming (%q): %w\n%s", status, ctx.Err(), c.Log())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func logSince(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < offset {
		return ""
	}
	return string(b[offset:])
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
