// Command pgcluster starts a throwaway PostgreSQL cluster for the
// benchmarks (internal/pgtest: initdb into a temporary directory as an
// unprivileged account, a free loopback port, durable settings), creates
// one database, prints its DSN on the first line of standard output, and
// removes the cluster on SIGTERM or SIGINT.
//
//	go run ./bench/pgcluster -db bench > /tmp/pg.dsn &
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urikit/urikit/internal/pgtest"
)

func main() {
	db := flag.String("db", "bench", "name of the database to create")
	sharedBuffers := flag.String("shared-buffers", "256MB", "PostgreSQL's shared_buffers")
	// PostgreSQL's advice for bulk loads ("Populating a Database":
	// increase max_wal_size): with the default 1GB, an import of a
	// million records forces checkpoints, and after each one the first
	// change to every page writes the whole page to the WAL again.
	maxWAL := flag.String("max-wal-size", "8GB", "PostgreSQL's max_wal_size")
	flag.Parse()
	c, err := pgtest.New(pgtest.Options{
		Durable:  true,
		Settings: map[string]string{"shared_buffers": *sharedBuffers, "max_wal_size": *maxWAL, "max_connections": "200"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcluster:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	dsn, err := c.CreateDB(ctx, *db)
	cancel()
	if err != nil {
		c.Close()
		fmt.Fprintln(os.Stderr, "pgcluster:", err)
		os.Exit(1)
	}
	fmt.Println(dsn)
	fmt.Fprintf(os.Stderr, "pgcluster: data in %s; SIGTERM removes it\n", c.DataDir())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "pgcluster:", err)
		os.Exit(1)
	}
}
