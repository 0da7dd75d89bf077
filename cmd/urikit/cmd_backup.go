package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
)

func init() {
	register(command{name: "backup", summary: "copy an embedded store consistently, while it serves, into a new data directory", run: runBackup})
}

func runBackup(args []string, s *stdio) int {
	const cmd = "backup"
	fs := newFlags(cmd, cmd+" [--data DIR] OUT",
		"Copies the embedded store of the data directory --data DIR (or URIKIT_DATA;\n"+
			"default ./urikit-data) into OUT, a new data directory, consistently while\n"+
			"urikit serve and imports read and write it: the copy is the store as one\n"+
			"moment left it (SQLite's VACUUM INTO, a read transaction that holds up no\n"+
			"writer), compacted. OUT must not exist. The copy is a data directory like\n"+
			"any other: urikit verify --data OUT checks it, urikit serve --data OUT\n"+
			"serves it. It prints the copy's history head (seq and hash), which the\n"+
			"history of the original has at the same seq.\n\n"+
			"A PostgreSQL database (--db) is backed up with PostgreSQL's own tools:\n"+
			"pg_dump -Fc while it serves, pg_restore into a new database (README).\n"+
			"Exit status: 0 copied, 1 not copied, 2 usage error.", s)
	t := &target{}
	fs.StringVar(&t.data, "data", "", "the data directory (or "+envData+"; default ./"+defaultData+")")
	fs.StringVar(&t.db, "db", "", "refused: back a PostgreSQL database up with pg_dump")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) != 1 {
		return usageErr(s, cmd, "give exactly one OUT, the new data directory to copy into")
	}
	if t.db != "" {
		return usageErr(s, cmd, "--db: back a PostgreSQL database up with pg_dump -Fc (and restore it with pg_restore), not with urikit")
	}
	if t.data == "" {
		if t.data = os.Getenv(envData); t.data == "" {
			t.data = defaultData
		}
	}
	ctx, stop := interruptible()
	defer stop()
	if err := sqlite.Backup(ctx, t.data, pos[0]); err != nil {
		return fail(s, cmd, t, err)
	}
	// The copy's head, read from the copy: what it holds is what was
	// written, and verify checks it entry by entry.
	store, err := openStoreQuiet(ctx, storeConfig{data: pos[0], mustExist: true, direct: true})
	if err != nil {
		return fail(s, cmd, t, err)
	}
	defer store.Close()
	head, err := store.Head(ctx)
	switch {
	case errors.Is(err, resolver.ErrNotFound):
		fmt.Fprintf(s.out, "copied %s into %s: its history is empty\n", t.data, pos[0])
	case err != nil:
		return fail(s, cmd, t, err)
	default:
		fmt.Fprintf(s.out, "copied %s into %s: history head %d %x\n", t.data, pos[0], head.Seq, head.Hash)
	}
	return exitOK
}
