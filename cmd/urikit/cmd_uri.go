package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urikit/urikit/internal/batch"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "parse", summary: "break URI references into their RFC 3986 components", run: runParse})
	register(command{name: "resolve", summary: "resolve references against a base URI (RFC 3986 §5)", run: runResolve})
	register(command{name: "normalize", summary: "normalize URIs (RFC 3986 §6.2.2 syntax, §6.2.3 scheme)", run: runNormalize})
	register(command{name: "equal", summary: "compare two URIs at a rung of the RFC 3986 §6.2 ladder", run: runEqual})
}

// reportURIError prints a parse error with a caret under the offending byte.
func reportURIError(w io.Writer, err error) {
	var e *uri.Error
	if errors.As(err, &e) {
		fmt.Fprintln(w, "invalid URI:")
		caret(w, e.Input, e.Offset, e.Reason)
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}

func runParse(args []string, s *stdio) int {
	fs := newFlags("parse", "parse [--json] [--allow-zone-id] [--iri] [URI...]",
		"Parses each URI reference (RFC 3986 §4.1, absolute or relative) and prints its\ncomponents: raw as written, with the decoded value where it differs.\n'(undefined)' means the delimiter is absent; \"\" means present and empty.", s)
	asJSON := fs.Bool("json", false, "print one JSON object per input (the batch protocol's parse response)")
	zone := fs.Bool("allow-zone-id", false, "accept RFC 6874 IPv6 zone identifiers ([fe80::1%25eth0]), which RFC 9844 removed")
	asIRI := fs.Bool("iri", false, "parse IRI references (RFC 3987) instead: what urikit iri does")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	if *asIRI {
		return parseIRIs(fs.Args(), s, *asJSON, false)
	}
	p := uri.Parser{AllowZoneID: *zone}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	first := true
	return eachInput(fs.Args(), s, func(in string) bool {
		u, err := p.ParseReference(in)
		if *asJSON {
			if err != nil {
				var e *uri.Error
				errors.As(err, &e)
				enc.Encode(map[string]any{"ok": false, "input": in, "error": e.Reason, "offset": e.Offset})
				return false
			}
			enc.Encode(batch.ParseFields(u))
			return true
		}
		if !first {
			fmt.Fprintln(s.out)
		}
		first = false
		if err != nil {
			reportURIError(s.out, err)
			return false
		}
		printComponents(s.out, u)
		return true
	})
}

// printComponents is the table for people.
func printComponents(w io.Writer, u uri.URI) {
	fmt.Fprintln(w, u.String())
	row := func(name, raw string, defined bool, decoded string, note string) {
		val := "(undefined)"
		if defined {
			val = raw
			if raw == "" {
				val = `""`
			}
			if decoded != raw {
				val += "  → " + fmt.Sprintf("%q", decoded)
			}
		}
		if note != "" {
			val += "  (" + note + ")"
		}
		fmt.Fprintf(w, "  %-10s %s\n", name, val)
	}
	kind := ""
	if u.HasAuthority() {
		kind = u.HostKind().String()
	}
	row("scheme", u.Scheme(), u.HasScheme(), u.Scheme(), "")
	row("authority", u.Authority(), u.HasAuthority(), u.Authority(), "")
	row("userinfo", u.Userinfo(), u.HasUserinfo(), u.DecodedUserinfo(), "")
	row("host", u.Host(), u.HasAuthority(), u.DecodedHost(), kind)
	row("port", u.Port(), u.HasPort(), u.Port(), "")
	row("path", u.Path(), true, u.DecodedPath(), "")
	row("query", u.Query(), u.HasQuery(), u.DecodedQuery(), "")
	row("fragment", u.Fragment(), u.HasFragment(), u.DecodedFragment(), "")
}

func runResolve(args []string, s *stdio) int {
	fs := newFlags("resolve", "resolve [--non-strict] [--rfc2396 | --draft-1997] BASE [REF...]",
		"Resolves each reference against BASE (an absolute URI) by RFC 3986 §5.2 and\nprints one result a line. With no REF, references are read a line at a time.", s)
	nonStrict := fs.Bool("non-strict", false, "§5.2.2's backward-compatible reading: a reference with the base's scheme is relative (http:g)")
	rfc2396 := fs.Bool("rfc2396", false, "resolve by RFC 2396 §5.2 (its Appendix C: ?y gives http://a/b/c/?y, ../../../g gives http://a/../g)")
	draft1997 := fs.Bool("draft-1997", false, "resolve as draft-fielding-url-syntax-05 (May 1997) did: as --rfc2396, but the query is reduced with the path (g?y/../x gives http://a/b/c/x)")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(s.err, "urikit resolve: missing BASE")
		fs.Usage()
		return exitUsage
	}
	base, err := uri.Parse(fs.Arg(0))
	if err != nil {
		fmt.Fprint(s.err, "base: ")
		reportURIError(s.err, err)
		return exitInvalid
	}
	var opts uri.ResolveOption
	if *nonStrict {
		opts |= uri.SameSchemeIsRelative
	}
	if *rfc2396 {
		opts |= uri.RFC2396
	}
	if *draft1997 {
		opts |= uri.Draft1997
	}
	return eachInput(fs.Args()[1:], s, func(in string) bool {
		ref, err := uri.ParseReference(in)
		if err != nil {
			reportURIError(s.err, err)
			return false
		}
		res, err := base.ResolveWith(ref, opts)
		if err != nil {
			fmt.Fprintf(s.err, "error: %v\n", err)
			return false
		}
		fmt.Fprintln(s.out, res.String())
		return true
	})
}

func uriLevelFlag(name string) (uri.Level, error) {
	l, ok := uri.ParseLevel(name)
	if !ok {
		return 0, fmt.Errorf("unknown level %q (want simple, syntax or scheme)", name)
	}
	return l, nil
}

func runNormalize(args []string, s *stdio) int {
	fs := newFlags("normalize", "normalize [--level syntax|scheme] [URI...]",
		"Prints each URI reference normalized: 'syntax' lowers the scheme and host,\nupper-cases percent-encodings, decodes unreserved characters and removes dot\nsegments (§6.2.2); 'scheme' also drops default ports, gives http(s), ws(s)\nand ftp an empty path of '/' and file the empty host for localhost (§6.2.3,\n§3.2.2).", s)
	lv := fs.String("level", "syntax", "normalization level: syntax or scheme")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	level, err := uriLevelFlag(*lv)
	if err != nil {
		fmt.Fprintf(s.err, "urikit normalize: %v\n", err)
		return exitUsage
	}
	var buf []byte
	return eachInput(fs.Args(), s, func(in string) bool {
		u, err := uri.ParseReference(in)
		if err != nil {
			reportURIError(s.err, err)
			return false
		}
		buf = u.AppendNormalized(buf[:0], level)
		buf = append(buf, '\n')
		s.out.Write(buf)
		return true
	})
}

func runEqual(args []string, s *stdio) int {
	fs := newFlags("equal", "equal [--level simple|syntax|scheme] [A B]",
		"Says whether A and B identify the same resource at the given rung of the\n"+
			"comparison ladder (RFC 3986 §6.2), and shows what was compared. With no\n"+
			"arguments, reads pairs from standard input (two URIs a line, separated by\n"+
			"white space). Exit status 0 when every pair is equal, 1 when some pair is\n"+
			"not equal or not valid (like cmp), 2 for a usage error.", s)
	lv := fs.String("level", "syntax", "comparison level: simple, syntax or scheme")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	level, err := uriLevelFlag(*lv)
	if err != nil {
		fmt.Fprintf(s.err, "urikit equal: %v\n", err)
		return exitUsage
	}
	compare := func(a, b string) bool {
		var us [2]uri.URI
		for i, in := range [2]string{a, b} {
			u, err := uri.ParseReference(in)
			if err != nil {
				reportURIError(s.err, err)
				return false
			}
			us[i] = u
		}
		eq := uri.Equal(us[0], us[1], level)
		na := string(us[0].AppendNormalized(nil, level))
		nb := string(us[1].AppendNormalized(nil, level))
		verdict := "equal"
		if !eq {
			verdict = "not equal"
		}
		fmt.Fprintf(s.out, "%s at level %s\n  %s\n  %s\n", verdict, level, na, nb)
		if !eq && na != nb {
			i := 0
			for i < len(na) && i < len(nb) && na[i] == nb[i] {
				i++
			}
			fmt.Fprintf(s.out, "  %s^ first difference\n", strings.Repeat(" ", i))
		}
		return eq
	}
	switch fs.NArg() {
	case 2:
		if compare(fs.Arg(0), fs.Arg(1)) {
			return exitOK
		}
		return exitInvalid
	case 0:
		return eachInput(nil, s, func(line string) bool {
			f := strings.Fields(line)
			if len(f) != 2 {
				fmt.Fprintf(s.err, "urikit equal: want two URIs on the line, got %d: %s\n", len(f), excerpt(line, 0))
				return false
			}
			return compare(f[0], f[1])
		})
	}
	fmt.Fprintln(s.err, "urikit equal: takes two URIs, or none to read pairs from standard input")
	return exitUsage
}
