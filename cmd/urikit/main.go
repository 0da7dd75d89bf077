// Command urikit parses, resolves, normalizes, compares, inspects and
// extracts URIs and URNs. Each subcommand lives in its own file and calls a
// package; this file only dispatches.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Exit statuses shared by every subcommand.
const (
	exitOK      = 0
	exitInvalid = 1 // some input was not valid
	exitUsage   = 2 // the command line itself was wrong
)

// command is one subcommand.
type command struct {
	name    string
	summary string // one line for the command list
	run     func(args []string, io *stdio) int
}

// stdio is the process's standard streams, replaceable in tests.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// color is true when out is a terminal that should get ANSI colours.
	color bool
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func main() {
	os.Exit(run(os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, color: isTerminal(os.Stdout)}))
}

func run(args []string, s *stdio) int {
	if len(args) == 0 {
		usage(s.err)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(s.out)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(s.err, "urikit: unknown command %q\n\n", args[0])
		usage(s.err)
		return exitUsage
	}
	return c.run(args[1:], s)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "urikit: a toolkit for URIs, URLs and URNs (RFC 3986, RFC 8141)")
	fmt.Fprintln(w, "\nusage: urikit COMMAND [options] [ARG...]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'urikit COMMAND --help' for a command's options.")
	fmt.Fprintln(w, "With no ARG, commands read one input a line from standard input.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 invalid input, 2 usage error.")
}

func isTerminal(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// caret renders a syntax error: the input, a caret under the offending byte,
// and the reason. Control characters are shown escaped so the caret lines up.
func caret(w io.Writer, input string, offset int, reason string) {
	var shown strings.Builder
	col := -1
	for i := 0; i < len(input); i++ {
		if i == offset {
			col = shown.Len()
		}
		c := input[i]
		if c < 0x20 || c == 0x7f {
			fmt.Fprintf(&shown, "\\x%02x", c)
		} else {
			shown.WriteByte(c)
		}
	}
	if col < 0 {
		col = shown.Len()
	}
	fmt.Fprintf(w, "  %s\n  %s^ %s (byte %d)\n", shown.String(), strings.Repeat(" ", runeWidth(shown.String()[:col])), reason, offset)
}

// runeWidth counts the columns the prefix takes: one per rune, so a caret
// lines up under non-ASCII text too.
func runeWidth(s string) int { return len([]rune(s)) }
