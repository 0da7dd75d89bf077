package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockName is the lock file a server holds in its data directory
// (Options.Exclusive).
const LockName = "serve.lock"

// ErrLocked is returned (wrapped) by Open with Options.Exclusive when
// another process holds the data directory's lock file.
var ErrLocked = errors.New("the data directory is in use by another urikit serve")

// dirLock is an advisory lock on the lock file, held by an open file
// descriptor: the operating system drops it when the process ends, however
// it ends (kill -9 included), so a crash never leaves a stale lock behind.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, errWouldBlock) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "unknown process"
			}
			return nil, fmt.Errorf("%w (%s holds %s); stop it first, or use its HTTP API", ErrLocked, who, path)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	// Say who holds it, for the error another server will print. Written
	// after the lock is ours, so it never overwrites the holder's note.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
