package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urikit/urikit/urn"
)

func init() {
	register(command{name: "urn", summary: "parse, check, canonicalize and compare URNs (RFC 8141)", run: runURN})
}

const urnUsage = `usage: urikit urn SUBCOMMAND [options] [ARG...]

subcommands:
  parse   show the parts of each URN (RFC 8141, the 2012 draft's ?s= form,
          or the 1993 form <URN:encoding:scheme-id:authority-id:opaque>)
  check   validate each URN: syntax, namespace rules, NID class (warnings)
  canon   print the canonical form (--level lexical) or the namespace key
          (--level namespace)
  equal   tell whether two URNs are equivalent and which rule decided

With no ARG, each subcommand reads one input a line from standard input
(equal reads two URNs a line, separated by white space).
Run 'urikit urn SUBCOMMAND --help' for its options.
`

func runURN(args []string, s *stdio) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, urnUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(s.out, urnUsage)
		return exitOK
	case "parse":
		return runURNParse(args[1:], s)
	case "check":
		return runURNCheck(args[1:], s)
	case "canon":
		return runURNCanon(args[1:], s)
	case "equal":
		return runURNEqual(args[1:], s)
	}
	return unknownCommand(s, "urn", args[0], []string{"parse", "check", "canon", "equal"})
}

// urnFail reports a parse error with a caret under the offending byte, on
// standard output like the other subcommands' reports.
func urnFail(s *stdio, err error) {
	var e *urn.Error
	if errors.As(err, &e) {
		fmt.Fprintln(s.out, "invalid URN:")
		caret(s.out, e.Input, e.Offset, e.Reason)
		return
	}
	fmt.Fprintf(s.out, "invalid URN: %v\n", err)
}

func urnJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func urnOpt(v string, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

func runURNParse(args []string, s *stdio) int {
	fs := newFlags("urn parse", "urn parse [--json] [URN...]",
		"Shows the NID, NSS (raw and decoded), r-, q- and f-components, canonical form,\n"+
			"namespace key and NID class of each URN, and the resolution directives\n"+
			"(s=, c=) of a request in the 2012 draft's form (urn:...?s=I2L) or in an\n"+
			"r-component (urn:...?+s=I2L). Input starting with \"<\" is read as the\n"+
			"1993 form <URN:encoding:scheme-id:authority-id:opaque>.", s)
	asJSON := fs.Bool("json", false, "write one JSON object a line")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	return eachInput(fs.Args(), s, func(in string) bool {
		if strings.HasPrefix(in, "<") {
			l, err := urn.ParseLegacy(in)
			if err != nil {
				urnFail(s, err)
				return false
			}
			if *asJSON {
				urnJSON(s.out, map[string]any{"form": "1993", "encoding": l.Encoding, "scheme_id": l.Scheme,
					"authority_id": l.Authority, "opaque": l.Opaque, "string": l.String()})
				return true
			}
			enc := l.Encoding
			if enc == "" {
				enc = "(empty: ASCII)"
			}
			fmt.Fprintf(s.out, "%s\n  form          1993 draft (Weider & Deutsch)\n  encoding      %s\n  scheme-id     %s\n  authority-id  %s\n  opaque        %s\n",
				in, enc, l.Scheme, l.Authority, l.Opaque)
			return true
		}
		req, err := urn.ParseRequest(in)
		if err != nil {
			urnFail(s, err)
			return false
		}
		u := req.URN
		r, hasR := u.RComponent()
		q, hasQ := u.QComponent()
		f, hasF := u.FComponent()
		if req.Draft {
			f, hasF = req.Fragment, req.HasFragment
		}
		class, why := urn.ClassifyNID(u.NID())
		svc, hasSvc := req.Directives.Service()
		comp, hasComp := req.Directives.Component()
		if *asJSON {
			m := map[string]any{"form": "rfc8141", "nid": u.NID(), "nss": u.NSS(), "nss_decoded": u.DecodedNSS(),
				"r_component": urnOpt(r, hasR), "q_component": urnOpt(q, hasQ), "f_component": urnOpt(f, hasF),
				"canonical": u.CanonicalString(), "key": u.Key(), "class": class.String(),
				"service": urnOpt(svc, hasSvc), "component": urnOpt(comp, hasComp)}
			if req.Draft {
				m["form"] = "draft-2012"
			}
			urnJSON(s.out, m)
			return true
		}
		fmt.Fprintln(s.out, in)
		row := func(k, v string) { fmt.Fprintf(s.out, "  %-12s %s\n", k, v) }
		row("nid", u.NID())
		row("nss", u.NSS())
		if d := u.DecodedNSS(); d != u.NSS() {
			row("nss decoded", fmt.Sprintf("%q", d))
		}
		if hasR {
			row("r-component", r)
		}
		if hasQ {
			row("q-component", q)
		}
		if hasF {
			row("f-component", f)
		}
		row("canonical", u.CanonicalString())
		if k := u.Key(); k != u.CanonicalString() {
			row("key", k)
		}
		row("class", class.String()+": "+why)
		if req.Draft {
			row("form", "2012 draft query (?keywd=value)")
		}
		for _, d := range req.Directives.List {
			row("directive", d.Keyword+"="+d.Value)
		}
		for _, k := range req.Directives.Ignored {
			row("ignored", k+"= (given more than once, draft §2.3)")
		}
		if hasSvc {
			row("service", svc)
		}
		return true
	})
}

func runURNCheck(args []string, s *stdio) int {
	fs := newFlags("urn check", "urn check [--json] [URN...]",
		"Checks each URN against RFC 8141's syntax and, for the namespaces urikit\n"+
			"knows ("+strings.Join(urn.Namespaces(), ", ")+"), the namespace's own rules.\n"+
			"Reports the NID class (RFC 8141 §5) and warns unless it is formal or informal.\n"+
			"Exit status 1 when any input is invalid; warnings do not change it.", s)
	asJSON := fs.Bool("json", false, "write one JSON object a line")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	return eachInput(fs.Args(), s, func(in string) bool {
		u, err := urn.Parse(in)
		if err != nil {
			if *asJSON {
				var e *urn.Error
				errors.As(err, &e)
				urnJSON(s.out, map[string]any{"input": in, "valid": false, "rule": e.Reason, "offset": e.Offset})
				return false
			}
			urnFail(s, err)
			return false
		}
		class, why := urn.ClassifyNID(u.NID())
		nsErr := u.Validate()
		if *asJSON {
			m := map[string]any{"input": in, "valid": nsErr == nil, "class": class.String(), "class_reason": why, "warning": class.Warn()}
			if nsErr != nil {
				m["rule"] = nsErr.Error()
			}
			urnJSON(s.out, m)
			return nsErr == nil
		}
		if nsErr != nil {
			fmt.Fprintf(s.out, "invalid  %s\n  %v\n", in, nsErr)
			return false
		}
		if class.Warn() {
			fmt.Fprintf(s.out, "warning  %s\n  NID %q is %s: %s\n", in, u.NID(), class, why)
			return true
		}
		fmt.Fprintf(s.out, "ok       %s (%s)\n", in, class)
		return true
	})
}

func urnLevelFlag(fs interface {
	String(name, value, usage string) *string
}) *string {
	return fs.String("level", "lexical", "lexical (RFC 8141 §3.1) or namespace (adds the namespace's own rules)")
}

func runURNCanon(args []string, s *stdio) int {
	fs := newFlags("urn canon", "urn canon [--level lexical|namespace] [URN...]",
		"Prints the RFC 8141 §3.1 canonical form of each URN (lower-case \"urn\" and NID,\n"+
			"upper-case percent-encoding hex, r/q/f-components dropped), or with\n"+
			"--level namespace the namespace key (urn:ISBN:0-395-36341-1 gives\n"+
			"urn:isbn:9780395363416).", s)
	lv := urnLevelFlag(fs)
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	level, err := urn.ParseLevel(*lv)
	if err != nil {
		fmt.Fprintf(s.err, "urikit urn canon: %v\n", err)
		return exitUsage
	}
	return eachInput(fs.Args(), s, func(in string) bool {
		u, err := urn.Parse(in)
		if err != nil {
			urnFail(s, err)
			return false
		}
		if level == urn.NamespaceLevel {
			fmt.Fprintln(s.out, u.Key())
		} else {
			fmt.Fprintln(s.out, u.CanonicalString())
		}
		return true
	})
}

func runURNEqual(args []string, s *stdio) int {
	fs := newFlags("urn equal", "urn equal [--level lexical|namespace] [--json] [A B]",
		"Tells whether two URNs are equivalent and which rule decided. With no\n"+
			"arguments, reads pairs (two URNs a line, separated by white space).\n"+
			"Exit status 0 when every pair is equivalent, 1 when some pair is not\n"+
			"equivalent or not valid (like cmp), 2 for a usage error.", s)
	lv := urnLevelFlag(fs)
	asJSON := fs.Bool("json", false, "write one JSON object a line")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	level, err := urn.ParseLevel(*lv)
	if err != nil {
		fmt.Fprintf(s.err, "urikit urn equal: %v\n", err)
		return exitUsage
	}
	compare := func(a, b string) bool {
		ua, err := urn.Parse(a)
		if err != nil {
			urnFail(s, err)
			return false
		}
		ub, err := urn.Parse(b)
		if err != nil {
			urnFail(s, err)
			return false
		}
		c := urn.Compare(ua, ub, level)
		if *asJSON {
			urnJSON(s.out, map[string]any{"a": a, "b": b, "level": level.String(), "equal": c.Equal, "rule": c.Rule})
			return c.Equal
		}
		verdict := "not equivalent"
		if c.Equal {
			verdict = "equivalent"
		}
		fmt.Fprintf(s.out, "%s (%s)\n  %s\n", verdict, level, c.Rule)
		return c.Equal
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
				fmt.Fprintf(s.err, "urikit urn equal: want two URNs on the line, got %d: %s\n", len(f), excerpt(line, 0))
				return false
			}
			return compare(f[0], f[1])
		})
	}
	fmt.Fprintln(s.err, "urikit urn equal: takes two URNs, or none to read pairs from standard input")
	return exitUsage
}
