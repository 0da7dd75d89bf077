// Command urikit parses, resolves, normalizes, compares, inspects and
// extracts URIs and URNs. Each subcommand lives in its own file and calls a
// package; this file only dispatches.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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
	case "--version", "-version", "version":
		fmt.Fprintln(s.out, "urikit", versionString())
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		return unknownCommand(s, "", args[0], names)
	}
	return c.run(args[1:], s)
}

// unknownCommand reports a command (a subcommand of parent, when parent is
// not "") that does not exist, on one line: the one it is close to, if
// there is one, and where the list is, rather than the list itself, under
// which the error would scroll away.
func unknownCommand(s *stdio, parent, name string, names []string) int {
	cmd, what := "urikit", "command"
	if parent != "" {
		cmd, what = "urikit "+parent, "subcommand"
	}
	msg := fmt.Sprintf("%s: unknown %s %q", cmd, what, name)
	if c := closest(name, names); c != "" {
		msg += fmt.Sprintf(" (did you mean '%s %s'?)", cmd, c)
	}
	fmt.Fprintf(s.err, "%s; '%s --help' lists the %ss\n", msg, cmd, what)
	return exitUsage
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
	fmt.Fprintln(w, "'urikit --version' prints the version.")
}

// version is set at link time for releases:
//
//	go build -ldflags "-X main.version=v1.0.0" ./cmd/urikit
var version = ""

// versionString is the release version, else the module version go install
// recorded, else "(devel)"; with the VCS revision when the build has one,
// and the Go version that built it.
func versionString() string {
	v, rev := version, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, kv := range info.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				rev = kv.Value[:12]
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev != "" {
		v += " " + rev
	}
	return v + " " + runtime.Version()
}

func isTerminal(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// caretWindow is how many characters of the input a message shows on
// each side of the offending byte: an error on a 10 MB line shows a line
// of the terminal, not the 10 MB.
const caretWindow = 40

// caret renders a syntax error: a window of the input around the offending
// byte, a caret under it, and the reason with the byte's offset. Bytes that
// are not valid UTF-8 and characters that do not print are shown escaped
// (\xff, \x01, \u200b), so that the caret lines up and the terminal gets
// text only; "…" marks where the window cuts the input.
func caret(w io.Writer, input string, offset int, reason string) {
	shown, col := window(input, offset)
	fmt.Fprintf(w, "  %s\n  %s^ %s (byte %d)\n", shown, strings.Repeat(" ", col), reason, offset)
}

// excerpt is the window of s around offset, for a message on one line.
func excerpt(s string, offset int) string {
	shown, _ := window(s, offset)
	return shown
}

// window returns the text to show for input around offset and the column
// of offset in it.
func window(input string, offset int) (string, int) {
	offset = min(max(offset, 0), len(input))
	from := offset
	for n := 0; n < caretWindow && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(input[:from])
		from -= size
	}
	to := offset
	for n := 0; n < caretWindow && to < len(input); n++ {
		_, size := utf8.DecodeRuneInString(input[to:])
		to += size
	}
	var b strings.Builder
	col := 0
	if from > 0 {
		b.WriteString("…")
		col = 1
	}
	for i := from; i < to; {
		r, size := utf8.DecodeRuneInString(input[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size <= 1:
			piece = fmt.Sprintf("\\x%02x", input[i])
		case r < 0x80 && !unicode.IsPrint(r):
			piece = fmt.Sprintf("\\x%02x", r)
		case !unicode.IsPrint(r):
			piece = fmt.Sprintf("\\u%04x", r)
		default:
			piece = string(r)
		}
		if i < offset {
			col += utf8.RuneCountInString(piece)
		}
		b.WriteString(piece)
		i += size
	}
	if to < len(input) {
		b.WriteString("…")
	}
	return b.String(), col
}
