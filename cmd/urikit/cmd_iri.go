package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/urikit/urikit/internal/batch"
	"github.com/urikit/urikit/iri"
	"github.com/urikit/urikit/scheme"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "iri", summary: "parse IRIs (RFC 3987): components, URI form, URI form with IDNA host", run: runIRI})
	register(command{name: "to-iri", summary: "turn URIs into the IRIs a person should see (RFC 3987 §3.2)", run: runToIRI})
}

const iriAbout = "Parses each IRI reference (RFC 3987 §2.2, absolute or relative; non-ASCII text\n" +
	"allowed where the RFC allows it, bidi formatting characters never) and prints its\n" +
	"components as written, then its URI by RFC 3987 §3.1 (non-ASCII percent-encoded)\n" +
	"and the URI a browser fetches (the host converted by IDNA, UTS #46 as the WHATWG\n" +
	"URL Standard sets it), and the spoofing warnings of RFC 3987 §4 and §8."

func runIRI(args []string, s *stdio) int {
	fs := newFlags("iri", "iri [--json] [--nfc] [IRI...]", iriAbout, s)
	asJSON := fs.Bool("json", false, "print one JSON object per input (the batch protocol's iri response)")
	nfc := fs.Bool("nfc", false, "normalize to NFC first: for an IRI typed from paper or transcoded from a non-Unicode encoding (RFC 3987 §3.1 step 1 a, b)")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	return parseIRIs(fs.Args(), s, *asJSON, *nfc)
}

// parseIRIs is urikit iri, and urikit parse --iri.
func parseIRIs(args []string, s *stdio, asJSON, nfc bool) int {
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	first := true
	return eachInput(args, s, func(in string) bool {
		if nfc {
			in = iri.NFC(in)
		}
		x, err := iri.ParseReference(in)
		if asJSON {
			if err != nil {
				enc.Encode(errorObject(in, err))
				return false
			}
			enc.Encode(batch.IRIFields(x))
			return true
		}
		if !first {
			fmt.Fprintln(s.out)
		}
		first = false
		if err != nil {
			reportIRIError(s.out, err)
			return false
		}
		printIRI(s.out, x)
		return true
	})
}

// reportIRIError prints an IRI parse error with a caret under the offending character.
func reportIRIError(w io.Writer, err error) {
	var e *iri.Error
	if errors.As(err, &e) {
		fmt.Fprintln(w, "invalid IRI:")
		caret(w, e.Input, e.Offset, e.Reason)
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}

func printIRI(w io.Writer, x iri.IRI) {
	fmt.Fprintln(w, x.String())
	row := func(name, raw string, defined bool, note string) {
		val := "(undefined)"
		if defined {
			val = raw
			if raw == "" {
				val = `""`
			}
		}
		if note != "" {
			val += "  (" + note + ")"
		}
		fmt.Fprintf(w, "  %-10s %s\n", name, val)
	}
	kind := ""
	if x.HasAuthority() {
		kind = x.HostKind().String()
	}
	row("scheme", x.Scheme(), x.HasScheme(), "")
	row("authority", x.Authority(), x.HasAuthority(), "")
	row("userinfo", x.Userinfo(), x.HasUserinfo(), "")
	row("host", x.Host(), x.HasAuthority(), kind)
	row("port", x.Port(), x.HasPort(), "")
	row("path", x.Path(), true, "")
	row("query", x.Query(), x.HasQuery(), "")
	row("fragment", x.Fragment(), x.HasFragment(), "")
	fmt.Fprintf(w, "  %-10s %s\n", "uri", x.URI())
	if u, err := x.URIWithIDNA(); err == nil {
		fmt.Fprintf(w, "  %-10s %s\n", "uri_idna", u)
	} else {
		fmt.Fprintf(w, "  %-10s (none: %v)\n", "uri_idna", err)
	}
	for _, warn := range iri.Inspect(x) {
		fmt.Fprintf(w, "  warning    %s: %s\n", warn.Code, warn.Message)
	}
}

func runToIRI(args []string, s *stdio) int {
	fs := newFlags("to-iri", "to-iri [URI...]",
		"Prints the IRI of each URI reference (RFC 3987 §3.2), one a line: percent-encoded\n"+
			"UTF-8 decoded for display, except what would change the meaning (reserved\n"+
			"characters, '%', bytes that are not UTF-8, bidi formatting characters, private-use\n"+
			"characters outside the query). xn-- host labels stay as they are.", s)
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	return eachInput(fs.Args(), s, func(in string) bool {
		x, err := iri.FromURIString(in)
		if err != nil {
			reportURIError(s.err, err)
			return false
		}
		fmt.Fprintln(s.out, x.String())
		return true
	})
}

// inspectTarget reads what urikit inspect was given: a URI reference, or
// else an IRI reference, inspected through its URI (RFC 3987 §3.1). It
// returns the IRI too, for the checks of RFC 3987 §4 and §8.
func inspectTarget(in string) (u uri.URI, x iri.IRI, isIRI bool, err error) {
	u, err = uri.ParseReference(in)
	if err == nil {
		x, ierr := iri.FromURI(u)
		if ierr != nil {
			x = iri.IRI{}
		}
		return u, x, false, nil
	}
	x, ierr := iri.ParseReference(in)
	if ierr != nil {
		if isASCIIText(in) {
			return u, x, false, err // the URI error says it in URI terms
		}
		return u, x, false, ierr
	}
	return x.URI(), x, true, nil
}

// withIRIWarnings adds the warnings of iri.Inspect (mixed-script, bidi,
// confusable-delimiter) to those of scheme.Inspect, sorted by code.
func withIRIWarnings(ws []scheme.Warning, x iri.IRI) []scheme.Warning {
	if x.IsZero() {
		return ws
	}
	for _, w := range iri.Inspect(x) {
		ws = append(ws, scheme.Warning{Code: w.Code, Message: w.Message})
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Code < ws[j].Code })
	return ws
}

func isASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// errorOffset returns the reason and offset of a *uri.Error or *iri.Error.
func errorOffset(err error) (reason string, offset int, ok bool) {
	var ue *uri.Error
	if errors.As(err, &ue) {
		return ue.Reason, ue.Offset, true
	}
	var ie *iri.Error
	if errors.As(err, &ie) {
		return ie.Reason, ie.Offset, true
	}
	return "", 0, false
}

// iriToURI is urikit extract --to-uri: the URI that a browser fetches for
// an IRI found in text (its uri_idna form), or its percent-encoded URI
// where IDNA cannot convert the host.
func iriToURI(s string) string {
	x, err := iri.Parse(s)
	if err != nil {
		return s // cannot happen: the scanner yields valid IRIs
	}
	if u, err := x.URIWithIDNA(); err == nil {
		return u.String()
	}
	return x.URI().String()
}
