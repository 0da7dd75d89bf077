package main

import (
	"fmt"

	"github.com/urikit/urikit/internal/batch"
)

func init() {
	register(command{name: "batch", summary: "answer JSON Lines requests on standard input (conformance protocol)", run: runBatch})
}

func runBatch(args []string, s *stdio) int {
	fs := newFlags("batch", "batch < requests.jsonl",
		"Reads one JSON request a line and writes one JSON response a line, in order.\nOps: "+fmt.Sprint(batch.Ops()), s)
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(s.err, "urikit batch: takes no arguments; requests come on standard input")
		return exitUsage
	}
	if err := batch.Run(s.in, s.out); err != nil {
		fmt.Fprintf(s.err, "urikit batch: %v\n", err)
		return exitInvalid
	}
	return exitOK
}
