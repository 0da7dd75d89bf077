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
		// One blank line between the text and the options, whether about
		// ends with a newline or not.
		fmt.Fprintf(out, "usage: urikit %s\n\n%s\n", synopsis, strings.TrimRight(about, "\n"))
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
		if n, _, _ := strings.Cut(name, "="); n == "h" || n == "help" {
			fs.SetOutput(s.out)
			fs.Usage()
			return exitOK
		} else if n != "" && fs.Lookup(n) == nil {
			as, _, _ := strings.Cut(a, "=") // as the user wrote it
			return usageErr(s, fs.Name(), "flag provided but not defined: %s%s", as, didYouMean(n, flagNames(fs)))
		}
		opts = append(opts, a)
		// An option that takes a value, written apart ("--level scheme"),
		// takes the next argument with it.
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
			if i+1 == len(args) {
				// Else the "--" added below would be taken for its value.
				return usageErr(s, fs.Name(), "flag needs an argument: %s", a)
			}
			i++
			opts = append(opts, args[i])
		}
	}
	// The flag package prints its error and then the whole help, under
	// which the error scrolls away: its error is printed here instead,
	// as every other usage error is (usageErr).
	out, help := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(append(append(opts, "--"), inputs...))
	fs.SetOutput(out)
	fs.Usage = help
	if err != nil {
		return usageErr(s, fs.Name(), "%s", doubleDash(err.Error()))
	}
	return -1
}

// doubleDash writes the flag in the flag package's messages ("invalid
// value "x" for flag -cache: …", "flag needs an argument: -data") with two
// dashes, as the help and the documentation write flags.
func doubleDash(msg string) string {
	for _, p := range []string{"for flag -", "for -", "needs an argument: -"} {
		if i := strings.Index(msg, p); i >= 0 && !strings.HasPrefix(msg[i+len(p):], "-") {
			return msg[:i+len(p)] + "-" + msg[i+len(p):]
		}
	}
	return msg
}

// flagNames lists the flags fs defines.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// didYouMean returns " (did you mean --NAME?)" for the one candidate close
// to name (a letter off, two swapped, or the start of it), else "".
func didYouMean(name string, candidates []string) string {
	if c := closest(name, candidates); c != "" {
		prefix := "--"
		if len(c) == 1 {
			prefix = "-"
		}
		return " (did you mean " + prefix + c + "?)"
	}
	return ""
}

// closest returns the one candidate near name: the one candidate name
// starts, if there is one (a name cut short: "dry" for "dry-run"); else
// the one at the smallest edit distance (editDistance), if that is 1, or 2
// for a name of 5 letters or more. "" when there is none, or a tie.
func closest(name string, candidates []string) string {
	name = strings.ToLower(name)
	var prefixed []string
	for _, c := range candidates {
		if len(name) >= 3 && strings.HasPrefix(c, name) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestD, tie := "", 3, false
	for _, c := range candidates {
		d := editDistance(name, c)
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if best != "" && !tie && (bestD <= 1 || bestD == 2 && len(name) >= 5) {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b:
// the insertions, deletions, substitutions and swaps of two neighbouring
// bytes that turn one into the other ("tpye" is 1 from "type").
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
