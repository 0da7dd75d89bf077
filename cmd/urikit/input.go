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
//
// Options may come anywhere before a "--", as GNU tools take them:
// "urikit normalize http://A/ --level scheme" normalizes one URI at the
// scheme level. After "--" every argument is an input, even one starting
// with "-"; a lone "-" is always an input (standard input, for extract).
func parseFlags(fs *flag.FlagSet, args []string, s *stdio) int {
	var opts, inputs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inputs = append(inputs, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			inputs = append(inputs, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if name == "h" || name == "help" {
			fs.SetOutput(s.out)
			fs.Usage()
			return exitOK
		}
		opts = append(opts, a)
		// An option that takes a value, written apart ("--level scheme"),
		// takes the next argument with it.
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			opts = append(opts, args[i])
		}
	}
	if err := fs.Parse(append(append(opts, "--"), inputs...)); err != nil {
		return exitUsage
	}
	return -1
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
