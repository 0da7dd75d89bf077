package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// In WAL mode a commit appends the pages it changed to the -wal file, and a
// checkpoint later copies them into the database file. SQLite checkpoints
// on the connection that commits, inside its COMMIT, once the WAL holds
// wal_autocheckpoint pages: an import then waited at every few batches
// while a checkpoint read back and wrote tens of megabytes (a tenth of its
// time). A checkpointer does that work on a connection of its own, on
// another CPU, while the writer goes on: after commits, at most every
// checkpointEvery, it runs a passive checkpoint, which never waits for the
// writer or the readers and copies what none of them still needs.
//
// The writer keeps its automatic checkpoint, at writerCheckpoint pages, as
// a backstop: it bounds the WAL when the checkpointer cannot keep up or
// another process holds the checkpoint lock (every store on the file has
// its own checkpointer; one at a time checkpoints, the others find it busy
// and skip their turn). The WAL starts again from its beginning only when
// a write transaction starts with every page of it copied, which a
// checkpoint running beside a busy writer rarely achieves; the backstop's
// checkpoint, which runs on the writer, does, and finds little left to
// copy. So the WAL stays as large as before at most, and the copying is
// done beside the writer.
const (
	checkpointEvery  = 200 * time.Millisecond
	writerCheckpoint = 8192 // pages
)

type checkpointer struct {
	db   *sql.DB
	wake chan struct{} // one slot: commits since the last checkpoint
	stop context.CancelFunc
	done chan struct{}
}

// startCheckpointer opens the checkpointer's connection on path and starts
// its goroutine.
func startCheckpointer(path, busy string) (*checkpointer, error) {
	// synchronous=FULL: a checkpoint syncs the WAL before it copies and
	// the database file after; cache_size small: it reads each page once.
	db, err := sql.Open("sqlite", dsn(path, "busy_timeout("+busy+")", "synchronous(FULL)", "cache_size(-256)"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go c.run(ctx)
	return c, nil
}

// committed tells the checkpointer that the WAL grew. It never blocks.
func (c *checkpointer) committed() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	pace := time.NewTimer(0)
	defer pace.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		// A checkpoint that fails (busy: another process's checkpointer,
		// or an I/O error, which the next commit reports too) is left to
		// the next turn or the writer's backstop.
		c.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		pace.Reset(checkpointEvery)
		select {
		case <-ctx.Done():
			return
		case <-pace.C:
		}
	}
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	c.stop()
	<-c.done
	return c.db.Close()
}
