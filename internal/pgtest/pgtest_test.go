package pgtest_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/urikit/urikit/internal/pgtest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &cluster, pgtest.Options{})) }

func query(t *testing.T, dsn, sql string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if strings.HasPrefix(sql, "CREATE") {
		_, err = conn.Exec(ctx, sql, args...)
	} else {
		err = conn.QueryRow(ctx, sql, args...).Scan(&n)
	}
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestDatabasesAreSeparate: each NewDB is its own empty database.
func TestDatabasesAreSeparate(t *testing.T) {
	a, b := cluster.NewDB(t), cluster.NewDB(t)
	if a == b {
		t.Fatal("two tests got one database")
	}
	query(t, a, "CREATE TABLE x AS SELECT 1::int8 AS n")
	if n := query(t, b, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'"); n != 0 {
		t.Fatal("a table made in one database is in the other")
	}
	if n := query(t, a, "SELECT n FROM x"); n != 1 {
		t.Fatal(n)
	}
}

// TestStopStartCrashReplica: a cluster of its own, stopped, crashed and
// restarted with its data, and a replica that follows it.
func TestStopStartCrashReplica(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	dsn := c.NewDB(t)
	query(t, dsn, "CREATE TABLE x AS SELECT 41::int8 AS n")
	r := c.Replica(t)
	if r.Port() == c.Port() {
		t.Fatal("replica on the primary's port")
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if c.Running() {
		t.Fatal("running after Stop")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := pgx.Connect(ctx, dsn); err == nil {
		t.Fatal("connected to a stopped server")
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	query(t, dsn, "UPDATE x SET n = n + 1 RETURNING n")
	if err := c.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if n := query(t, dsn, "SELECT n FROM x"); n != 42 {
		t.Fatalf("after crash recovery n = %d, want 42", n)
	}
	// The replica is read-only and catches up with the primary.
	rdsn := r.DSN(dbName(dsn))
	if n := query(t, rdsn, "SELECT pg_is_in_recovery()::int::int8"); n != 1 {
		t.Fatal("replica is not in recovery")
	}
	deadline := time.Now().Add(30 * time.Second)
	for query(t, rdsn, "SELECT n FROM x") != 42 {
		if time.Now().After(deadline) {
			t.Fatal("replica did not catch up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	dir := c.DataDir()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data directory left behind: %v", err)
	}
}

func dbName(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		panic(err)
	}
	return cfg.Database
}
