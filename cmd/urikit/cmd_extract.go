package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urikit/urikit/extract"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "extract", summary: "find the URIs written in text (mail, news, Markdown, HTML-ish)", run: runExtract})
}

// extractRecord is one line of urikit extract --json.
type extractRecord struct {
	URI     string `json:"uri"`
	File    string `json:"file,omitempty"`
	Offset  int64  `json:"offset"`
	End     int64  `json:"end"`
	Line    int    `json:"line"`
	Wrapper string `json:"wrapper"`
}

func runExtract(args []string, s *stdio) int {
	fs := newFlags("extract", "extract [--json] [--unique] [--iri [--to-uri]] [FILE...]",
		"Prints the URIs found in the text of each FILE (standard input by default,\n"+
			"or for \"-\"), one a line, in order of appearance. The rules are those of\n"+
			"RFC 3986 Appendix C as the extract op of the batch protocol states them:\n"+
			"wrappers <...>, \"...\", '...' and URL: are removed, trailing punctuation\n"+
			"dropped, mentions such as \"file://\" and prose such as \"Note:\" ignored.", s)
	asJSON := fs.Bool("json", false, "print one JSON object a line: uri, file, offset, end, line, wrapper")
	unique := fs.Bool("unique", false, "print each URI once (syntax-based equivalence, RFC 3986 §6.2.2)")
	asIRI := fs.Bool("iri", false, "find IRIs (RFC 3987) as written, non-ASCII text and all; without it a link holding non-ASCII text is skipped")
	toURI := fs.Bool("to-uri", false, "with --iri, print each IRI's URI: the host by IDNA as a browser fetches it, else percent-encoded")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	if *toURI && !*asIRI {
		fmt.Fprintln(s.err, "urikit extract: --to-uri needs --iri")
		return exitUsage
	}
	out := bufio.NewWriterSize(s.out, 64*1024)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	seen := map[string]bool{}
	status := exitOK

	scan := func(r io.Reader, name string) error {
		sc := extract.NewScanner(r, extract.Options{IRI: *asIRI})
		for sc.Scan() {
			m := sc.Match()
			if *toURI {
				m.URI = iriToURI(m.URI)
			}
			if *unique {
				key := m.URI
				if u, err := uri.Parse(m.URI); err == nil {
					key = string(u.AppendNormalized(nil, uri.Syntax))
				}
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			if *asJSON {
				if err := enc.Encode(extractRecord{URI: m.URI, File: name, Offset: m.Offset, End: m.End, Line: m.Line, Wrapper: m.Wrapper}); err != nil {
					return err
				}
			} else {
				out.WriteString(m.URI)
				if err := out.WriteByte('\n'); err != nil {
					return err
				}
			}
		}
		return sc.Err()
	}

	files := fs.Args()
	if len(files) == 0 {
		if err := scan(s.in, ""); err != nil {
			fmt.Fprintf(s.err, "urikit extract: reading standard input: %v\n", err)
			return exitInvalid
		}
		return status
	}
	for _, name := range files {
		if name == "-" {
			if err := scan(s.in, name); err != nil {
				fmt.Fprintf(s.err, "urikit extract: reading standard input: %v\n", err)
				status = exitInvalid
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			out.Flush()
			fmt.Fprintf(s.err, "urikit extract: %v\n", err)
			status = exitInvalid
			continue
		}
		err = scan(f, name)
		f.Close()
		if err != nil {
			out.Flush()
			fmt.Fprintf(s.err, "urikit extract: %s: %v\n", name, err)
			status = exitInvalid
		}
	}
	return status
}
