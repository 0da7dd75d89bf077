package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urikit/urikit/extract"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "clean", summary: "turn a typed or pasted URI into a strict one (delimiters, spaces, IDN, www.)", run: runClean})
}

func runClean(args []string, s *stdio) int {
	fs := newFlags("clean", "clean [URI-ish...]",
		"Turns what a person typed or pasted into a strict RFC 3986 URI, one a line:\n"+
			"surrounding <...> or quotes and a URL: prefix are removed, line breaks inside\n"+
			"dropped, spaces and non-ASCII text in the path, query and fragment\n"+
			"percent-encoded (UTF-8), internationalized host names mapped to ASCII\n"+
			"(IDNA), and www.… and ftp.… given their scheme (RFC 3986 draft Appendix F).\n"+
			"Input that is ambiguous (example.com/x, localhost:8080, a stray '%') is\n"+
			"refused with the reason; the exit status is then 1.\n"+
			"With no argument, each line of standard input is one input (blank lines\n"+
			"are skipped); to clean a URI broken across lines, pass it as one argument.", s)
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	inputs := fs.Args()
	fromStdin := len(inputs) == 0
	return eachInput(inputs, s, func(in string) bool {
		if fromStdin && strings.TrimSpace(in) == "" {
			return true
		}
		u, err := extract.CleanUserInput(in)
		if err != nil {
			var e *uri.Error
			if errors.As(err, &e) {
				fmt.Fprintln(s.err, "urikit clean: refused:")
				caret(s.err, in, e.Offset, e.Reason)
			} else {
				fmt.Fprintf(s.err, "urikit clean: refused %s: %v\n", excerpt(in, 0), err)
			}
			return false
		}
		fmt.Fprintln(s.out, u.String())
		return true
	})
}
