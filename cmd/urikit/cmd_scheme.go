package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/urikit/urikit/scheme"
	"github.com/urikit/urikit/uri"
)

func init() {
	register(command{name: "scheme", summary: "break a URI into its scheme's own fields (ftp, gopher, mailto, file, ...)", run: runScheme})
}

func runScheme(args []string, s *stdio) int {
	fs := newFlags("scheme", "scheme [--json] [URI...]",
		"Breaks each URI into the fields its scheme's specification defines, decoded.\nSchemes: "+schemeNames()+".\n"+
			"Exit status 1 when some input is not a valid URI of a known scheme.", s)
	asJSON := fs.Bool("json", false, "write one JSON object per URI")
	if st := parseFlags(fs, args, s); st >= 0 {
		return st
	}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	return eachInput(fs.Args(), s, func(in string) bool {
		u, err := uri.Parse(in)
		var name string
		var fields scheme.Fields
		if err == nil {
			name, fields, err = scheme.FieldsOf(u)
		}
		if err != nil {
			if *asJSON {
				enc.Encode(errorObject(in, err))
				return false
			}
			var e *uri.Error
			if errors.As(err, &e) {
				fmt.Fprintln(s.err, "urikit scheme: not a valid URI:")
				caret(s.err, in, e.Offset, e.Reason)
			} else {
				fmt.Fprintf(s.err, "urikit scheme: %s: %v\n", in, err)
			}
			return false
		}
		if *asJSON {
			enc.Encode(map[string]any{"input": in, "ok": true, "scheme": name, "fields": fields.Map()})
			return true
		}
		sch, _ := scheme.Lookup(name)
		fmt.Fprintln(s.out, in)
		fmt.Fprintf(s.out, "  %-10s %s (%s)\n", "scheme", name, sch.Info().RFC)
		for _, f := range fields {
			fmt.Fprintf(s.out, "  %-10s %s\n", f.Name, formatValue(f.Value))
		}
		return true
	})
}

func schemeNames() string {
	var out string
	for i, sc := range scheme.All() {
		if i > 0 {
			out += ", "
		}
		out += sc.Name()
	}
	return out
}

// formatValue renders a field value for people: strings quoted, absent
// values as "(undefined)" (the word parse and inspect use), lists in
// order, objects sorted by key.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "(undefined)"
	case string:
		return strconv.Quote(v)
	case int:
		return strconv.Itoa(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case map[string]string:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		q := make([]string, len(keys))
		for i, k := range keys {
			q[i] = strconv.Quote(k) + ": " + strconv.Quote(v[k])
		}
		return "{" + strings.Join(q, ", ") + "}"
	}
	return fmt.Sprint(v)
}
