package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

func init() {
	register(command{name: "register", summary: "create or replace a name's record in a resolver (PUT)", run: runRegister})
	register(command{name: "withdraw", summary: "withdraw a name from a resolver for good (410 Gone from then on)", run: runWithdraw})
	register(command{name: "lookup", summary: "show the record a name resolves to in a resolver", run: runLookup})
	register(command{name: "locate", summary: "list every name of a resolver that lists a URL as a location", run: runLocate})
}

// targetHelp is the paragraph every resolver command's help ends with.
const targetHelp = `
Where: against a running server with --server URL (or URIKIT_SERVER) and
--token TOKEN (or URIKIT_TOKEN); else directly on a data directory with
--data DIR (or URIKIT_DATA; default ./urikit-data), or on a PostgreSQL
database with --db postgres://… (or URIKIT_DB). Working directly, names are
written on behalf of the naming authority that owns each one, and
authorities and rules are managed as the admin.
Exit status: 0 done, 1 refused (invalid input, not found, conflict, not
allowed, unreachable), 2 usage error.`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runRegister(args []string, s *stdio) int {
	fs := newFlags("register", "register URN URL... [--type T]... [--label L]... [--alias A]... [--metadata JSON] [--redirect 30x] [--if-match ETAG]",
		"Creates the record of URN with the locations URL... in order of preference,\n"+
			"or replaces the whole record of the live name equivalent to URN (RFC 8141\n"+
			"§3.1 and the namespace's own rules): aliases, locations and metadata not\n"+
			"given again are dropped (a dropped alias stays reserved to the record).\n"+
			"The i-th --type and --label go with the i-th URL. Registering the same\n"+
			"record again changes nothing. With --if-match, only while the record\n"+
			"still has the entity-tag lookup showed.\n"+targetHelp, s)
	t := addTarget(fs)
	var types, labels, aliases stringList
	fs.Var(&types, "type", "the media type of a location (repeat, in the order of the URLs)")
	fs.Var(&labels, "label", "a label for people of a location (repeat, in the order of the URLs)")
	fs.Var(&aliases, "alias", "another URN of the same resource (repeat for several)")
	meta := fs.String("metadata", "", "the record's metadata for I2C/N2C, a JSON object")
	redirect := fs.Int("redirect", 0, "the status of the redirect to the first location: 301, 302, 303 (the default) or 307")
	asJSON := fs.Bool("json", false, "print the stored record as JSON")
	ifMatch := addIfMatch(fs)
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) < 2 {
		return usageErr(s, "register", "give a URN and at least one URL")
	}
	tag, err := ifMatchTag(fs, *ifMatch)
	if err != nil {
		return usageErr(s, "register", "%v", err)
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "register", "%v", err)
	}
	urls := pos[1:]
	if len(types) > len(urls) || len(labels) > len(urls) {
		return usageErr(s, "register", "%d URLs but %d --type and %d --label", len(urls), len(types), len(labels))
	}
	in := resolver.RecordInput{Aliases: aliases, Redirect: *redirect}
	for i, u := range urls {
		l := resolver.Location{URL: u}
		if i < len(types) {
			l.Type = types[i]
		}
		if i < len(labels) {
			l.Label = labels[i]
		}
		in.Locations = append(in.Locations, l)
	}
	if *meta != "" {
		if msg := metadataFault(*meta); msg != "" {
			return usageErr(s, "register", "%s", msg)
		}
		in.Metadata = json.RawMessage(*meta)
	}
	if !checkName(s, "register", pos[0]) {
		return exitInvalid
	}
	return withDir(s, "register", t, true, func(ctx context.Context, d directory) int {
		rec, created, err := d.Put(ctx, pos[0], in, tag)
		if err != nil {
			return failName(s, "register", t, pos[0], err)
		}
		if *asJSON {
			printJSON(s.out, rec)
			return exitOK
		}
		verb := "replaced (or unchanged)"
		if created {
			verb = "created"
		}
		fmt.Fprintf(s.out, "%s %s (%s)\n", verb, rec.URN, plural(len(rec.Locations), "location", "locations"))
		return exitOK
	})
}

func runWithdraw(args []string, s *stdio) int {
	fs := newFlags("withdraw", "withdraw URN [--reason R] [--successor URI] [--if-match ETAG]",
		"Withdraws the record of URN for good: the name answers 410 Gone from now on\n"+
			"(with a Link to the successor, when one is named) and is never given to\n"+
			"another record. On a withdrawn name it restates the notice: --reason or\n"+
			"--successor replaces that part (a successor named later, or corrected;\n"+
			"--successor \"\" drops it; the history keeps every notice), and what is\n"+
			"not given stays. With --if-match, only while the record still has the\n"+
			"entity-tag lookup showed.\n"+targetHelp, s)
	t := addTarget(fs)
	reason := fs.String("reason", "", "why the name is withdrawn, for people")
	successor := fs.String("successor", "", "the URI (often a URN) of what replaces it")
	ifMatch := addIfMatch(fs)
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) != 1 {
		return usageErr(s, "withdraw", "give exactly one URN")
	}
	tag, err := ifMatchTag(fs, *ifMatch)
	if err != nil {
		return usageErr(s, "withdraw", "%v", err)
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "withdraw", "%v", err)
	}
	if !checkName(s, "withdraw", pos[0]) {
		return exitInvalid
	}
	return withDir(s, "withdraw", t, false, func(ctx context.Context, d directory) int {
		// A withdrawn name's notice is restated part by part: what the
		// command line does not give stays as it is (the API replaces the
		// whole notice, so the parts not given are sent as they are). The
		// notice read here must still be the name's when the withdrawal
		// is made: unless --if-match says otherwise, its entity-tag goes
		// with it, so that a notice restated meanwhile is not undone.
		before, err := d.Get(ctx, pos[0])
		wasWithdrawn := err == nil && before.Status == resolver.Withdrawn
		if wasWithdrawn {
			if !flagSet(fs, "reason") {
				*reason = before.Reason
			}
			if !flagSet(fs, "successor") {
				*successor = before.Successor
			}
			if tag == "" {
				tag = before.ETag()
			}
		}
		rec, err := d.Withdraw(ctx, pos[0], *reason, *successor, tag)
		if err != nil {
			return failName(s, "withdraw", t, pos[0], err)
		}
		switch {
		case wasWithdrawn && rec.ETag() == before.ETag():
			fmt.Fprintf(s.out, "%s was withdrawn already; its notice is unchanged", rec.URN)
		case wasWithdrawn:
			fmt.Fprintf(s.out, "restated the withdrawal notice of %s", rec.URN)
		default:
			fmt.Fprintf(s.out, "withdrawn %s", rec.URN)
		}
		if rec.Successor != "" {
			fmt.Fprintf(s.out, " (successor: %s)", rec.Successor)
		}
		fmt.Fprintln(s.out)
		return exitOK
	})
}

func runLookup(args []string, s *stdio) int {
	fs := newFlags("lookup", "lookup [--json] [--all-predecessors] URN...",
		"Shows the record each URN resolves to: its name as registered, status,\n"+
			"locations, aliases, metadata, times and entity-tag (for --if-match; not in\n"+
			"--json, which is the API's body). Equivalent spellings and aliases\n"+
			"find the same record. No token is needed against a server.\n"+targetHelp, s)
	t := addTarget(fs)
	asJSON := fs.Bool("json", false, "print each record as JSON (the body of GET /api/v1/names/{urn}), one a line")
	allPredecessors := fs.Bool("all-predecessors", false, "list every name a record replaces, not only the first "+strconv.Itoa(resolver.MaxPredecessors)+
		" (read a page at a time from GET /api/v1/names/{urn}/predecessors; in --json, as predecessors)")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) == 0 {
		return usageErr(s, "lookup", "give at least one URN")
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "lookup", "%v", err)
	}
	return withDir(s, "lookup", t, false, func(ctx context.Context, d directory) int {
		status := exitOK
		for i, name := range pos {
			if !checkName(s, "lookup", name) {
				status = exitInvalid
				continue
			}
			rec, err := d.Get(ctx, name)
			if err != nil {
				if failName(s, "lookup", t, name, err) != exitOK {
					status = exitInvalid
				}
				if resolver.KindOf(err) == resolver.KindUnavailable {
					return exitInvalid
				}
				continue
			}
			if *allPredecessors && rec.MorePredecessors {
				all, err := d.AllPredecessors(ctx, rec)
				if err != nil {
					return fail(s, "lookup", t, err)
				}
				rec.Predecessors, rec.MorePredecessors = all, false
			}
			if *asJSON {
				printJSON(s.out, rec)
				continue
			}
			if i > 0 {
				fmt.Fprintln(s.out)
			}
			printRecord(s.out, rec)
		}
		return status
	})
}

func runLocate(args []string, s *stdio) int {
	fs := newFlags("locate", "locate [--withdrawn] [--json] URL",
		"Lists every record that lists URL as a location, compared after scheme-based\n"+
			"normalization (RFC 3986 §6.2.3) as L2Ns compares it, in registration order:\n"+
			"all of them, where L2Ns answers with the first 100. Withdrawn records are\n"+
			"left out unless --withdrawn, which lists them too, each name with its status.\n"+
			"Against a server it reads GET /api/v1/locations a page at a time; no token\n"+
			"is needed. Exit status 0 even when no record lists the URL.\n"+targetHelp, s)
	t := addTarget(fs)
	withdrawn := fs.Bool("withdrawn", false, "include withdrawn records, and say each record's status")
	asJSON := fs.Bool("json", false, "print each record as JSON (as GET /api/v1/names/{urn} shows it, without the records it replaces), one a line")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) != 1 {
		return usageErr(s, "locate", "give one URL")
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "locate", "%v", err)
	}
	return withDir(s, "locate", t, false, func(ctx context.Context, d directory) int {
		n := 0
		err := d.ByLocation(ctx, pos[0], *withdrawn, func(rec resolver.Record) error {
			n++
			switch {
			case *asJSON:
				printJSON(s.out, rec)
			case *withdrawn:
				fmt.Fprintf(s.out, "%s (%s)\n", rec.URN, rec.Status)
			default:
				fmt.Fprintln(s.out, rec.URN)
			}
			return nil
		})
		if err != nil {
			return fail(s, "locate", t, err)
		}
		if !*asJSON {
			which := "active "
			if *withdrawn {
				which = ""
			}
			fmt.Fprintf(s.err, "%s listed by %s\n", pos[0], plural(n, which+"record", which+"records"))
		}
		return exitOK
	})
}

// withDir opens t's directory, runs fn with a context that ends on
// SIGINT, and closes the directory.
func withDir(s *stdio, cmd string, t *target, create bool, fn func(context.Context, directory) int) int {
	ctx, stop := interruptible()
	defer stop()
	d, err := t.open(ctx, s, cmd, create)
	if err != nil {
		return fail(s, cmd, t, err)
	}
	defer d.Close()
	return fn(ctx, d)
}

// failName reports an error about a name. When the name itself is not a
// URN it says so with a caret under the byte at fault, from a parse done
// here: the server's message says the same, less readably.
func failName(s *stdio, cmd string, t *target, name string, err error) int {
	if k := resolver.KindOf(err); k == resolver.KindInvalid || k == resolver.KindNotFound {
		if _, perr := urn.Parse(name); perr != nil {
			return badName(s, cmd, name, perr)
		}
	}
	return fail(s, cmd, t, err)
}

// metadataFault says what is wrong with --metadata, which must be a JSON
// object, or "" when nothing is.
func metadataFault(meta string) string {
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(meta), &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && int(se.Offset) >= len(meta) {
			return `--metadata is not JSON: it ends before the JSON value does (a closing "}", "]" or '"' is missing)`
		}
		if errors.As(err, &se) {
			return fmt.Sprintf("--metadata is not JSON: %s (at byte %d)", se.Error(), max(se.Offset-1, 0))
		}
		return "--metadata is not JSON: " + err.Error()
	}
	var kind string
	switch v := strings.TrimSpace(meta); v[0] {
	case '{', 'n': // null: no metadata, as the directory reads it
		return ""
	case '[':
		kind = "an array"
	case '"':
		kind = "a string"
	case 't', 'f':
		kind = v
	default:
		kind = "a number"
	}
	return `--metadata must be a JSON object, such as {"title":"A"}, not ` + kind
}

// checkName checks a name before anything is asked of the directory; it
// has reported the error when it returns false.
func checkName(s *stdio, cmd, name string) bool {
	if _, err := urn.Parse(name); err != nil {
		badName(s, cmd, name, err)
		return false
	}
	return true
}

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// printRecord shows a record for people, one fact a line.
func printRecord(w io.Writer, r resolver.Record) {
	fmt.Fprintln(w, r.URN)
	row := func(k, v string) { fmt.Fprintf(w, "  %-10s %s\n", k, v) }
	row("status", string(r.Status))
	if r.Status == resolver.Withdrawn {
		if r.Reason != "" {
			row("reason", r.Reason)
		}
		if r.Successor != "" {
			row("successor", r.Successor)
		}
	}
	for _, l := range r.Locations {
		v := l.URL
		var extra []string
		if l.Type != "" {
			extra = append(extra, l.Type)
		}
		if l.Label != "" {
			extra = append(extra, strconv.Quote(l.Label))
		}
		if len(extra) > 0 {
			v += "  (" + strings.Join(extra, ", ") + ")"
		}
		row("location", v)
	}
	for _, a := range r.Aliases {
		row("alias", a)
	}
	for _, p := range r.Predecessors {
		row("replaces", p)
	}
	if r.MorePredecessors {
		row("replaces", fmt.Sprintf("… and more (the first %d are shown; --all-predecessors lists them all)", len(r.Predecessors)))
	}
	row("redirect", strconv.Itoa(r.Redirect))
	if len(r.Metadata) > 0 && string(r.Metadata) != "{}" {
		row("metadata", string(r.Metadata))
	}
	if r.AuthorityID != 0 {
		row("authority", strconv.FormatInt(r.AuthorityID, 10))
	}
	row("created", r.Created.UTC().Format(time.RFC3339))
	row("updated", r.Updated.UTC().Format(time.RFC3339))
	row("etag", r.ETag())
}

// addIfMatch defines --if-match, the If-Match of register and withdraw.
func addIfMatch(fs *flag.FlagSet) *string {
	return fs.String("if-match", "", `write only while the record's entity-tag is this one, as lookup shows it (its quotes may be left out), or "*" for any record`)
}

// ifMatchTag returns --if-match as an If-Match entity-tag (RFC 9110
// §8.8.3), quoted; "" when the flag was not given. A shell drops the
// quotes lookup shows around a tag unless they are quoted themselves, so
// a tag without them is taken as meant with them.
func ifMatchTag(fs *flag.FlagSet, v string) (string, error) {
	if !flagSet(fs, "if-match") {
		return "", nil
	}
	v = strings.TrimSpace(v)
	switch {
	case v == "*":
		return v, nil
	case v == "":
		return "", errors.New(`--if-match is empty: give the entity-tag lookup shows, or "*"`)
	case strings.HasPrefix(v, "W/"):
		// If-Match compares strongly (RFC 9110 §13.1.1): such a tag would
		// never match.
		return "", fmt.Errorf("--if-match %s is a weak entity-tag, which never matches: give the entity-tag lookup shows", v)
	}
	opaque, start := v, 0
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		opaque, start = v[1:len(v)-1], 1
	}
	for i := 0; i < len(opaque); i++ {
		// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
		if c := opaque[i]; c <= ' ' || c == '"' || c == 0x7f {
			return "", fmt.Errorf("--if-match %s is not an entity-tag: no space, quote or control character inside (at byte %d)", v, start+i)
		}
	}
	return `"` + opaque + `"`, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
