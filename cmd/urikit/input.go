package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strings"
)

// eachInput calls fn for each argument, or, when there are none, for each
// line of standard input (so a command works in pipelines over large files).
// fn returns false when the input was invalid; eachInput returns the exit
// status for the whole run.
func eachInput(args []string, s *stdio, fn func(string) bool) int {
	status := exitOK
	if len(args) > 0 {
		for _, a := range args {
			if !fn(a) {
				status = exitInvalid
			}
		}
		return status
	}
	r := bufio.NewReaderSize(s.in, 64*1024)
	for {
		line, err := r.ReadString('\n')
		if len(line) > 0 {
			line = strings.TrimSuffix(line, "\n")
			line = strings.TrimSuffix(line, "\r")
			if !fn(line) {
				status = exitInvalid
			}
		}
		if err == io.EOF {
			return status
		}
		if err != nil {
			fmt.Fprintf(s.err, "urikit: reading standard input: %v\n", err)
			return exitInvalid
		}
	}
}

// newFlags makes a FlagSet for a subcommand whose --help prints the synopsis
// and the flags, and whose errors are usage errors.
func newFlags(name, synopsis, about string, s *stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage: urikit %s\n\n%s\n", synopsis, about)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(out, "\noptions:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args; it returns the exit status to stop with, or -1 to
// go on. --help prints to standard output and succeeds.
func parseFlags(fs *flag.FlagSet, args []string, s *stdio) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(s.out)
			fs.Usage()
			return exitOK
		}
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	return -1
}
