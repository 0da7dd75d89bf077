package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urikit/urikit/scheme"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "inspect", summary: "show a URI's components and its security warnings (RFC 3986 §7)", run: runInspect})
}

// ANSI styles of the inspect output. The userinfo is drawn in inverse red
// and the host in bold green, so the part before "@" can never pass for the
// host (the advice of RFC 3986 §7.6).
const (
	ansiReset    = "\x1b[0m"
	ansiUserinfo = "\x1b[7;31m"
	ansiHost     = "\x1b[1;32m"
	ansiWarn     = "\x1b[1;33m"
	ansiDim      = "\x1b[2m"
)

func runInspect(args []string, s *stdio) int {
	fs := newFlags("inspect", "inspect [--json] [URI...]",
		"Shows each URI's components, labelled (on a terminal the userinfo in inverse red,\n"+
			"the host in bold green), then the warnings of RFC 3986 §7 with a sentence each:\n"+
			"userinfo, password, rare-ip, port-mismatch, escaped-control, dot-segments;\n"+
			"and those of RFC 3987 §4 and §8 for the IRI (or the IRI form of the URI):\n"+
			"mixed-script, bidi, confusable-delimiter. An IRI is inspected through its URI.\n"+
			"Exit status 1 when some input is not a valid URI-reference; warnings alone do not fail.", s)
	asJSON := fs.Bool("json", false, "write one JSON object per URI")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	return eachInput(fs.Args(), s, func(in string) bool {
		u, x, isIRI, err := inspectTarget(in)
		if err != nil {
			if *asJSON {
				enc.Encode(errorObject(in, err))
			} else {
				fmt.Fprintf(s.err, "urikit inspect: not a valid URI-reference or IRI-reference:\n")
				if reason, off, ok := errorOffset(err); ok {
					caret(s.err, in, off, reason)
				} else {
					fmt.Fprintf(s.err, "  %v\n", err)
				}
			}
			return false
		}
		ws := withIRIWarnings(scheme.Inspect(u), x)
		if *asJSON {
			obj := inspectObject(u, ws)
			if isIRI {
				obj["iri"] = in
			}
			enc.Encode(obj)
			return true
		}
		if isIRI {
			fmt.Fprintf(s.out, "IRI %s, as a URI (RFC 3987 §3.1):\n", in)
		}
		printInspect(s.out, u, ws, s.color)
		return true
	})
}

func errorObject(in string, err error) map[string]any {
	o := map[string]any{"input": in, "ok": false, "error": err.Error()}
	if reason, off, ok := errorOffset(err); ok {
		o["error"], o["offset"] = reason, off
	}
	return o
}

// components lists the labelled components of u, absent ones as nil.
func components(u uri.URI) [][2]any {
	opt := func(v string, ok bool) any {
		if !ok {
			return nil
		}
		return v
	}
	var hostType any
	if u.HasAuthority() {
		hostType = u.HostKind().String()
	}
	return [][2]any{
		{"scheme", opt(u.Scheme(), u.HasScheme())},
		{"userinfo", opt(u.Userinfo(), u.HasUserinfo())},
		{"host", opt(u.Host(), u.HasAuthority())},
		{"host_type", hostType},
		{"port", opt(u.Port(), u.HasPort())},
		{"path", u.Path()},
		{"query", opt(u.Query(), u.HasQuery())},
		{"fragment", opt(u.Fragment(), u.HasFragment())},
	}
}

func inspectObject(u uri.URI, ws []scheme.Warning) map[string]any {
	comp := map[string]any{}
	for _, c := range components(u) {
		comp[c[0].(string)] = c[1]
	}
	list := make([]map[string]any, len(ws))
	for i, w := range ws {
		list[i] = map[string]any{"code": w.Code, "message": w.Message}
		if w.Addr.IsValid() {
			list[i]["address"] = w.Addr.String()
		}
	}
	return map[string]any{"input": u.String(), "ok": true, "components": comp, "warnings": list}
}

func printInspect(w io.Writer, u uri.URI, ws []scheme.Warning, color bool) {
	paint := func(style, text string) string {
		if !color || text == "" {
			return text
		}
		return style + text + ansiReset
	}
	// The URI itself, userinfo and host marked.
	fmt.Fprintln(w, markedURI(u, paint))
	var rare string
	for _, x := range ws {
		if x.Code == scheme.CodeRareIP {
			rare = x.Addr.String()
		}
	}
	for _, c := range components(u) {
		label := c[0].(string)
		if c[1] == nil {
			fmt.Fprintf(w, "  %-10s %s\n", label, paint(ansiDim, "(undefined)"))
			continue
		}
		v := c[1].(string)
		shown := fmt.Sprintf("%q", v)
		switch label {
		case "userinfo":
			shown = paint(ansiUserinfo, shown) + "  <- not the host"
		case "host":
			shown = paint(ansiHost, shown)
			if d := u.DecodedHost(); d != v {
				shown += fmt.Sprintf("  (decoded %q)", d)
			}
			if rare != "" {
				shown += "  (read as IPv4 " + rare + ")"
			}
		case "host_type", "scheme":
			shown = v
		}
		fmt.Fprintf(w, "  %-10s %s\n", label, shown)
	}
	if len(ws) == 0 {
		fmt.Fprintln(w, "  no warnings")
		return
	}
	fmt.Fprintf(w, "  %d warning(s):\n", len(ws))
	for _, x := range ws {
		fmt.Fprintf(w, "    %s %s\n", paint(ansiWarn, x.Code+":"), x.Message)
	}
}

// markedURI writes the URI with its userinfo and host painted; without
// colour it is the text as given.
func markedURI(u uri.URI, paint func(style, text string) string) string {
	s := u.String()
	if !u.HasAuthority() {
		return s
	}
	i := strings.Index(s, "//") + 2
	var b strings.Builder
	b.WriteString(s[:i])
	rest := s[i:]
	if u.HasUserinfo() {
		b.WriteString(paint(ansiUserinfo, u.Userinfo()))
		b.WriteByte('@')
		rest = rest[len(u.Userinfo())+1:]
	}
	host := u.Host()
	if k := u.HostKind(); k == uri.IPv6 || k == uri.IPvFuture {
		host = "[" + host + "]"
	}
	b.WriteString(paint(ansiHost, host))
	b.WriteString(rest[len(host):])
	return b.String()
}
