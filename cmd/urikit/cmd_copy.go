package main

// urikit copy: everything of one store into another, empty one, of either
// kind (resolver.Copy).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
)

func init() {
	register(command{name: "copy", summary: "copy a whole store (history, tokens, rules, reserved names) into an empty one, e.g. a data directory into PostgreSQL", run: runCopy})
}

// copyTimeout bounds each page's transaction on PostgreSQL: a page of a
// thousand records, with their keys, goes in one round trip, but a busy
// server may take longer than a request's 5 s.
const copyTimeout = 5 * time.Minute

func runCopy(args []string, s *stdio) int {
	fs := newFlags("copy", "copy (--from-data DIR | --from-db DSN) (--to-data DIR | --to-db DSN) [--quiet]",
		"Copies everything the source store holds into the target store, which\n"+
			"must be empty (a new data directory, or a new PostgreSQL database): the\n"+
			"naming authorities with their IDs, their tokens (hashes, labels,\n"+
			"revocations) and the admin token's hash, so the same tokens work; the\n"+
			"delegation rules; every record with all its keys, the aliases it dropped\n"+
			"included, which stay reserved; and the history entry for entry, so the\n"+
			"target's last entry (its number and hash) is the source's, as-of lookups\n"+
			"reach as far back, and urikit verify passes on it. Either store may be a\n"+
			"data directory or a PostgreSQL database: this is how a directory moves\n"+
			"from the embedded store to PostgreSQL (or back).\n\n"+
			"Nobody may write the source meanwhile: stop every urikit serve on it. A\n"+
			"data directory is locked for the copy's length (a server running on it\n"+
			"makes the copy refuse to start); on PostgreSQL the copy reads in pages,\n"+
			"not one snapshot, and fails at the end if the history moved meanwhile.\n"+
			"It reads and writes a page at a time, whatever the size of the source,\n"+
			"each page in a transaction of its own: a copy that fails or is\n"+
			"interrupted leaves the target partly filled. Remove it (a new directory,\n"+
			"or DROP DATABASE and CREATE DATABASE) and start again.", s)
	var from, to storeConfig
	fs.StringVar(&from.data, "from-data", "", "the source's data directory")
	fs.StringVar(&from.db, "from-db", "", "the source's PostgreSQL database, postgres://…")
	fs.StringVar(&to.data, "to-data", "", "the target's data directory (created if missing)")
	fs.StringVar(&to.db, "to-db", "", "the target's PostgreSQL database, postgres://… (created by CREATE DATABASE, empty)")
	quiet := fs.Bool("quiet", false, "no progress lines")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	switch {
	case len(pos) > 0:
		return usageErr(s, "copy", "takes no arguments")
	case (from.data == "") == (from.db == ""):
		return usageErr(s, "copy", "give the source with one of --from-data DIR and --from-db DSN")
	case (to.data == "") == (to.db == ""):
		return usageErr(s, "copy", "give the target with one of --to-data DIR and --to-db DSN")
	case from.data != "" && sameDir(from.data, to.data), from.db != "" && from.db == to.db:
		return usageErr(s, "copy", "the source and the target are the same store")
	}
	from.mustExist, from.direct, from.exclusive, from.timeout = true, true, true, copyTimeout
	to.direct, to.exclusive, to.timeout = true, true, copyTimeout
	from.notice, from.cmd, to.notice, to.cmd = s.err, "copy", s.err, "copy"
	fromName, toName := storeName(from), storeName(to)

	if from.data != "" {
		// openStore's own message names --data, which copy does not take.
		if _, err := os.Stat(filepath.Join(from.data, sqlite.FileName)); err != nil {
			fmt.Fprintf(s.err, "urikit copy: no urikit data directory at %s (no %s in it): --from-data names the data directory of the store to copy\n", from.data, sqlite.FileName)
			return exitInvalid
		}
	}
	ctx, stop := interruptible()
	defer stop()
	src, err := openStore(ctx, from)
	if err != nil {
		fmt.Fprintf(s.err, "urikit copy: the source: %v\n", err)
		return exitInvalid
	}
	defer src.Close()
	dst, err := openStore(ctx, to)
	if err != nil {
		fmt.Fprintf(s.err, "urikit copy: the target: %v\n", err)
		return exitInvalid
	}
	defer dst.Close()
	loader, ok := dst.(resolver.Loader)
	if !ok {
		fmt.Fprintf(s.err, "urikit copy: the target %s cannot be loaded\n", toName)
		return exitInvalid
	}

	start, last := time.Now(), time.Now()
	opts := resolver.CopyOptions{Progress: func(p resolver.CopyProgress) {
		if *quiet || time.Since(last) < 10*time.Second {
			return
		}
		last = time.Now()
		fmt.Fprintf(s.err, "urikit copy: %s, %s of %d (%.0fs)\n", counted(p.Records, "record", "records"),
			counted(p.Entries, "history entry", "history entries"), p.Head, time.Since(start).Seconds())
	}}
	prog, err := resolver.Copy(ctx, src, loader, opts)
	switch {
	case errors.Is(err, resolver.ErrNotEmpty):
		fmt.Fprintf(s.err, "urikit copy: %v (%s): copy into a new data directory or an empty database\n", err, toName)
		return exitInvalid
	case errors.Is(err, resolver.ErrSourceChanged):
		fmt.Fprintf(s.err, "urikit copy: %v: stop every server on %s, empty the target and copy again\n", err, fromName)
		return exitInvalid
	case err != nil:
		fmt.Fprintf(s.err, "urikit copy: %v\nurikit copy: the target %s is partly filled: empty it and copy again\n", err, toName)
		return exitInvalid
	}
	head, err := dst.Head(ctx)
	if err != nil {
		fmt.Fprintf(s.err, "urikit copy: reading the target's head: %v\n", err)
		return exitInvalid
	}
	fmt.Fprintf(s.out, "copied %s and %s from the %s to the %s (%.1fs); the last entry is %d, hash %x\n",
		counted(prog.Records, "record", "records"), counted(prog.Entries, "history entry", "history entries"),
		fromName, toName, time.Since(start).Seconds(), head.Seq, head.Hash)
	return exitOK
}

// storeName says which store c opens, for messages.
func storeName(c storeConfig) string {
	if c.db != "" {
		return "database " + redactDSN(c.db)
	}
	return "data directory " + c.data
}

// The embedded store is a Loader, and so is PostgreSQL's (checked in its
// package): every pair of stores can be copied.
var _ resolver.Loader = (*sqlite.Store)(nil)

// sameDir reports whether a and b name one directory, however spelled
// (d and d/., a symbolic link): the copy would find the target locked by
// itself.
func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
