// Package pgtest gives tests a real, throwaway PostgreSQL server: a cluster
// made with initdb in a temporary directory, started on a free loopback
// port, and removed with everything in it when the tests end, whether they
// passed or not. It can also make a streaming replica of a cluster with
// pg_basebackup, and stop, start or crash a server, for fault tests.
//
// One cluster per test binary (the usual way):
//
//	var cluster *pgtest.Cluster
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &cluster, pgtest.Options{})) }
//
//	func TestSomething(t *testing.T) {
//		dsn := cluster.NewDB(t) // a fresh database, dropped when t ends
//		...
//	}
//
// Or one cluster for one test, e.g. a fault test that stops the server:
//
//	c := pgtest.Start(t, pgtest.Options{})
//	dsn := c.NewDB(t)
//	c.Stop(); ...; c.Start()
//
// The PostgreSQL binaries are looked for in $URIKIT_PG_BIN, then in
// /usr/lib/postgresql/<version>/bin (Debian's layout; the newest version
// wins), then on $PATH. When there are none, the tests that need a server
// skip, saying so: on Debian, `apt-get install postgresql` provides them.
//
// The server refuses to run as root. When the tests run as root, the
// cluster belongs to the "postgres" account if there is one (Debian's
// package makes it), else to "nobody", and every PostgreSQL program runs
// under that account; the database superuser is always "postgres", with
// trust authentication on loopback and the cluster's own socket directory.
// The server process is a child of the test binary that gets SIGQUIT
// (immediate shutdown) if the test binary dies, so that a crashed or killed
// test run leaves no server behind.
package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned by New when no PostgreSQL binaries are found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL server binaries (initdb, postgres, pg_basebackup) not found: install Debian's postgresql package, or set URIKIT_PG_BIN to their directory")

// Options configure a cluster. The zero value is a fast cluster for tests.
type Options struct {
	// Durable keeps PostgreSQL's crash safety (fsync, full page writes,
	// synchronous commit). Without it the cluster skips fsync: tests run
	// faster, and a server crash (Crash) still loses nothing acknowledged,
	// since only an operating system crash needs the fsyncs. Benchmarks
	// that report write rates set it.
	Durable bool
	// Settings are more server settings (name → value), passed as -c.
	Settings map[string]string
}

// findBin returns the directory of the PostgreSQL server binaries.
func findBin() (string, error) {
	has := func(dir string) bool {
		for _, p := range []string{"initdb", "postgres", "pg_basebackup"} {
			if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("URIKIT_PG_BIN"); d != "" {
		if has(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w (URIKIT_PG_BIN=%s holds none)", ErrNotInstalled, d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

// pgVersion reads the version number out of /usr/lib/postgresql/N/bin.
func pgVersion(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// account is the operating system user the server runs as.
type account struct {
	name     string
	uid, gid uint32
	self     bool // the test's own user: no switch needed
}

func serverAccount() (account, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		name := "self"
		if err == nil {
			name = u.Username
		}
		return account{name: name, uid: uint32(os.Geteuid()), gid: uint32(os.Getegid()), self: true}, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return account{}, errors.New(`pgtest: running as root, and there is neither a "postgres" nor a "nobody" account to run the server as (PostgreSQL refuses to run as root)`)
}

// chownTree gives dir and everything in it to the account.
func (a account) chownTree(dir string) error {
	if a.self {
		return nil
	}
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(a.uid), int(a.gid))
	})
}

// tail returns the last lines of a log file, for error messages.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}
