package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
)

func init() {
	register(command{name: "authority", summary: "create, list and hand over naming authorities and their tokens (admin)", run: runAuthority})
	register(command{name: "rules", summary: "delegation rules: names under a prefix go to another resolver (admin)", run: runRules})
	register(command{name: "duplicates", summary: "list the locations that several names of a resolver share", run: runDuplicates})
	register(command{name: "migrate", summary: "bring a resolver store's schema and name keys up to date", run: runMigrate})
	register(command{name: "admin-token", summary: "rotate the admin token: a new one, printed once; the old one is admin no more", run: runAdminToken})
	register(command{name: "verify", summary: "check a resolver's hash-chained history, and its records and keys against it", run: runVerify})
}

// interruptible returns a context that ends at the first SIGINT or
// SIGTERM; a second one kills the process the usual way.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// parseID reads a positive integer argument.
func parseID(s *stdio, cmd, what, v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		usageErr(s, cmd, "%s must be a positive integer, not %q", what, v)
		return 0, false
	}
	return n, true
}

// authorityAbout is what authority's help and its subcommands' say; the
// subcommands' end with targetHelp, which says where and the exit status.
const authorityAbout = `subcommands:
  add NAME PREFIX...          create a naming authority owning the name prefixes
                              (a NID, urn:nbn:, or a NID and the start of an NSS,
                              urn:nbn:de:101-); prints its first token, once
  list                        every authority, its ID and prefixes
  show ID                     one authority: its prefixes and its tokens (ID,
                              label, created, revoked), the TOKEN-ID that
                              token revoke takes; never a token's secret
  token add ID [LABEL]        a new maintainer token for authority ID, printed once
  token revoke ID TOKEN-ID    revoke one of its tokens (never the last valid one)
  transfer ID NEWNAME         hand the authority to a new owner: every token is
                              revoked and a first token for the new owner printed;
                              names, prefixes and history stay

Only the admin token manages authorities (a maintainer may show its own
authority, and add and revoke its tokens).`

const authorityUsage = "usage: urikit authority SUBCOMMAND [options] ARG...\n\n" + authorityAbout + `
Options: --server URL --token TOKEN, or --data DIR, or --db DSN (see
'urikit register --help'). Exit status: 0 done, 1 refused, 2 usage error.
`

func runAuthority(args []string, s *stdio) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, authorityUsage)
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(s.out, authorityUsage)
		return exitOK
	case "token":
		if len(args) < 2 || (args[1] != "add" && args[1] != "revoke") {
			if len(args) >= 2 && (args[1] == "--help" || args[1] == "-h") {
				fmt.Fprint(s.out, authorityUsage)
				return exitOK
			}
			if len(args) < 2 {
				return usageErr(s, "authority", "token: say add or revoke")
			}
			return unknownCommand(s, "authority token", args[1], []string{"add", "revoke"})
		}
		sub = "token " + args[1]
		args = args[1:]
	case "add", "list", "show", "transfer":
	default:
		return unknownCommand(s, "authority", sub, []string{"add", "list", "show", "token", "transfer"})
	}
	cmd := "authority " + sub
	synopsis := map[string]string{
		"add":          "authority add NAME PREFIX...",
		"list":         "authority list",
		"show":         "authority show ID",
		"token add":    "authority token add ID [LABEL]",
		"token revoke": "authority token revoke ID TOKEN-ID",
		"transfer":     "authority transfer ID NEWNAME",
	}[sub]
	fs := newFlags(cmd, synopsis, authorityAbout+"\n"+targetHelp, s)
	t := addTarget(fs)
	pos, st := parseArgs(fs, args[1:], s)
	if st >= 0 {
		return st
	}
	arity := map[string][2]int{"add": {2, -1}, "list": {0, 0}, "show": {1, 1}, "token add": {1, 2}, "token revoke": {2, 2}, "transfer": {2, 2}}[sub]
	if len(pos) < arity[0] || arity[1] >= 0 && len(pos) > arity[1] {
		return usageErr(s, cmd, "usage: urikit %s", synopsis)
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, cmd, "%v", err)
	}
	var id, tokID int64
	if sub != "add" && sub != "list" {
		var ok bool
		if id, ok = parseID(s, cmd, "ID", pos[0]); !ok {
			return exitUsage
		}
		if sub == "token revoke" {
			if tokID, ok = parseID(s, cmd, "TOKEN-ID", pos[1]); !ok {
				return exitUsage
			}
		}
	}
	return withDir(s, cmd, t, sub != "list" && sub != "show", func(ctx context.Context, d directory) int {
		switch sub {
		case "add":
			a, tok, err := d.CreateAuthority(ctx, pos[0], pos[1:])
			if err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "authority %d (%s) owns %s\n", a.ID, a.Name, strings.Join(a.Prefixes, " "))
			printSecret(s, "its first maintainer token", tok)
		case "list":
			as, err := d.Authorities(ctx)
			if err != nil {
				return fail(s, cmd, t, err)
			}
			if len(as) == 0 {
				fmt.Fprintln(s.out, "no naming authorities yet (urikit authority add NAME PREFIX...)")
				return exitOK
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPREFIXES")
			for _, a := range as {
				fmt.Fprintf(tw, "%d\t%s\t%s\n", a.ID, a.Name, strings.Join(a.Prefixes, " "))
			}
			tw.Flush()
		case "show":
			a, toks, err := d.Authority(ctx, id)
			if err != nil {
				return fail(s, cmd, t, err)
			}
			printAuthority(s, a, toks)
		case "token add":
			label := ""
			if len(pos) > 1 {
				label = pos[1]
			}
			tid, tok, err := d.AddToken(ctx, id, label)
			if err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "token %d of authority %d\n", tid, id)
			printSecret(s, "the token", tok)
		case "token revoke":
			if err := d.RevokeToken(ctx, id, tokID); err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "token %d of authority %d is revoked\n", tokID, id)
		case "transfer":
			a, tok, err := d.Transfer(ctx, id, pos[1])
			if err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "authority %d now belongs to %s; every earlier token is revoked\n", a.ID, a.Name)
			printSecret(s, "the new owner's first token", tok)
		}
		return exitOK
	})
}

// printAuthority shows an authority and its tokens, the valid ones and
// the revoked, in the order they were made.
func printAuthority(s *stdio, a resolver.Authority, toks []resolver.Token) {
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	fmt.Fprintf(s.out, "authority %d (%s)\nprefixes: %s\ncreated: %s\n", a.ID, a.Name, strings.Join(a.Prefixes, " "), at(a.Created))
	fmt.Fprintln(s.out, "tokens:")
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TOKEN-ID\tLABEL\tCREATED\tREVOKED")
	for _, t := range toks {
		revoked := "-"
		if !t.Active() {
			revoked = at(t.Revoked)
		}
		label := t.Label
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", t.ID, label, at(t.Created), revoked)
	}
	tw.Flush()
}

// printSecret shows a token that cannot be read back.
func printSecret(s *stdio, what, tok string) {
	fmt.Fprintf(s.out, "%s (shown once, keep it safe):\n  %s\n", what, tok)
}

// rulesAbout is what rules' help and its subcommands' say (see
// authorityAbout).
const rulesAbout = `subcommands:
  add PREFIX TARGET   send every name under PREFIX (a NID, or a NID and the
                      start of an NSS) that has no record here to the resolver
                      at TARGET (its base URL), by redirect (RFC 2276)
  list                every rule, its ID, prefix and target
  remove ID           delete a rule
  test URN            the rule URN takes (the longest matching prefix, compared
                      in canonical form or in the name's key form) and the
                      redirect it gives; when none does, what the server's
                      DDDS discovery (serve --dns) finds: the NAPTR and SRV
                      records taken and the redirect, or why there is none;
                      exit status 1 when there is no redirect

add and remove take --dry-run: the change is checked as the server would
check it and written nowhere; the rules it meets are listed, and each name
given with --try URN (repeat) or --try-file FILE (one a line) is shown with
where it goes now and where it would go after the change.

A name's own record comes before every rule. Rules are managed with the
admin token.`

const rulesUsage = "usage: urikit rules SUBCOMMAND [options] ARG...\n\n" + rulesAbout + `
Options: --server URL --token TOKEN, or --data DIR, or --db DSN (see
'urikit register --help'). Exit status: 0 done, 1 refused, 2 usage error.
`

func runRules(args []string, s *stdio) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, rulesUsage)
		return exitUsage
	}
	sub := args[0]
	synopsis := map[string]string{
		"add":  "rules add PREFIX TARGET [--dry-run [--try URN]... [--try-file FILE] [--service I2L]]",
		"list": "rules list", "remove": "rules remove ID [--dry-run [--try URN]... [--try-file FILE] [--service I2L]]",
		"test": "rules test URN [--service I2L]",
	}
	switch sub {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(s.out, rulesUsage)
		return exitOK
	}
	if _, ok := synopsis[sub]; !ok {
		return unknownCommand(s, "rules", sub, slices.Sorted(maps.Keys(synopsis)))
	}
	cmd := "rules " + sub
	fs := newFlags(cmd, synopsis[sub], rulesAbout+"\n"+targetHelp, s)
	t := addTarget(fs)
	service := "I2L"
	var dryRun bool
	var tries stringList
	var tryFile string
	if sub == "add" || sub == "remove" {
		fs.BoolVar(&dryRun, "dry-run", false, "check the change and show what it would do to the names of --try and --try-file; write nothing")
		fs.Var(&tries, "try", "with --dry-run: a name to show before and after the change (repeat)")
		fs.StringVar(&tryFile, "try-file", "", "with --dry-run: a file of names to show before and after the change, one a line")
	}
	if sub == "test" || sub == "add" || sub == "remove" {
		fs.StringVar(&service, "service", "I2L", "the resolution service whose redirect to show (I2L, I2Ls, N2C, ...)")
	}
	pos, st := parseArgs(fs, args[1:], s)
	if st >= 0 {
		return st
	}
	if !dryRun && (len(tries) > 0 || tryFile != "" || flagSet(fs, "service") && sub != "test") {
		return usageErr(s, cmd, "--try, --try-file and --service go with --dry-run")
	}
	want := map[string]int{"add": 2, "list": 0, "remove": 1, "test": 1}[sub]
	if len(pos) != want {
		return usageErr(s, cmd, "usage: urikit %s", synopsis[sub])
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, cmd, "%v", err)
	}
	var id int64
	if sub == "remove" {
		var ok bool
		if id, ok = parseID(s, cmd, "ID", pos[0]); !ok {
			return exitUsage
		}
	}
	if dryRun {
		return rulesDryRunCmd(s, cmd, t, sub, pos, id, tries, tryFile, service)
	}
	return withDir(s, cmd, t, sub == "add", func(ctx context.Context, d directory) int {
		switch sub {
		case "add":
			r, err := d.AddRule(ctx, pos[0], pos[1])
			if err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "rule %d: %s → %s\n", r.ID, r.Prefix, r.Target)
		case "list":
			rs, err := d.Rules(ctx)
			if err != nil {
				return fail(s, cmd, t, err)
			}
			if len(rs) == 0 {
				fmt.Fprintln(s.out, "no delegation rules (urikit rules add PREFIX TARGET)")
				return exitOK
			}
			tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPREFIX\tTARGET\tCREATED")
			var old []string
			for _, r := range rs {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.ID, r.Prefix, r.Target, r.Created.UTC().Format(time.RFC3339))
				if err := resolver.CheckRuleTarget(r.Target); err != nil {
					old = append(old, fmt.Sprintf("note: rule %d's target is refused today (%s): names under %s are answered 502 delegation-failed; remove the rule and add it again with a good target", r.ID, err, r.Prefix))
				}
			}
			tw.Flush()
			for _, n := range old {
				fmt.Fprintln(s.out, n)
			}
		case "remove":
			if err := d.RemoveRule(ctx, id); err != nil {
				return fail(s, cmd, t, err)
			}
			fmt.Fprintf(s.out, "rule %d removed\n", id)
		case "test":
			return rulesTest(ctx, s, t, d, pos[0], service)
		}
		return exitOK
	})
}

// rulesTest prints the rule name takes and why, using the same function
// the server's delegation uses (federate.ByRules).
func rulesTest(ctx context.Context, s *stdio, t *target, d directory, name, service string) int {
	const cmd = "rules test"
	u, err := resolver.ParseName("urn", name)
	if err != nil {
		return failName(s, cmd, t, name, err)
	}
	rules, err := d.Rules(ctx)
	if err != nil {
		return fail(s, cmd, t, err)
	}
	// The count the next resolver sees: one more than the name came with
	// (none: 0), as the server hands it on.
	hops, _, err := federate.Hops(u)
	if err != nil {
		return failName(s, cmd, t, name, err)
	}
	ref, ok, err := federate.ByRules(rules, u, service, min(hops+1, federate.MaxHops)) // past the limit: only named in the 508
	if err != nil {
		return fail(s, cmd, t, err)
	}
	canon := u.CanonicalString()
	if rec, err := d.Get(ctx, name); err == nil {
		fmt.Fprintf(s.out, "note: %s has its own record here (%s), which is answered before any rule\n", name, rec.URN)
	} else if errors.Is(err, resolver.ErrReserved) {
		fmt.Fprintf(s.out, "no rule applies to %s: it was an alias of a record here, reserved to that record: answered 404, never handed on\n", name)
		return exitInvalid
	} else if k := resolver.KindOf(err); k != resolver.KindNotFound {
		return fail(s, cmd, t, err)
	}
	if !ok {
		return noRule(ctx, s, t, d, name, canon, rules, service)
	}
	fmt.Fprintf(s.out, "%s takes rule %d: %s → %s\n", name, ref.Rule.ID, ref.Rule.Prefix, ref.Rule.Target)
	form := "canonical form " + canon
	if _, f, _ := resolver.RuleFor([]resolver.Rule{ref.Rule}, u); f != canon {
		form = "key form " + f // the namespace's equivalence (federate.ByRules)
	}
	fmt.Fprintf(s.out, "  why        its %s starts with %s; %s\n", form, ref.Rule.Prefix, ref.Why)
	if hops >= federate.DefaultHopLimit {
		// The server would not hand it on again (RFC 5842 §7.2).
		fmt.Fprintf(s.out, "  %-10s 508 Loop Detected: it was handed on %d times already (the default limit is %d)\n", service, hops, federate.DefaultHopLimit)
		return exitInvalid
	}
	fmt.Fprintf(s.out, "  %-10s %s\n", service, ref.URL)
	return exitOK
}

// noRule prints, for rules test, that no rule applies to name and what
// the server's DDDS discovery (urikit serve --dns) finds for it instead,
// record by record (the directory's Discover), and returns the exit
// status: 0 when discovery gives a redirect, else 1.
func noRule(ctx context.Context, s *stdio, t *target, d directory, name, canon string, rules []resolver.Rule, service string) int {
	why := "there are no rules"
	switch {
	case len(rules) == 1:
		why = fmt.Sprintf("its canonical form %s does not lie under the one rule's prefix, %s", canon, rules[0].Prefix)
	case len(rules) > 1:
		why = fmt.Sprintf("its canonical form %s lies under none of the %d rules' prefixes", canon, len(rules))
	}
	disc, ok, err := d.Discover(ctx, name, service)
	switch {
	case errors.Is(err, resolver.ErrDiscoveryUnavailable):
		fmt.Fprintf(s.out, "no rule applies to %s: %s\n  DDDS       the server's DNS server failed (a request is answered 503): %s\n", name, why, bareError(err))
		return exitInvalid
	case err != nil:
		return fail(s, "rules test", t, err)
	case !ok && t.remote():
		fmt.Fprintf(s.out, "no rule applies to %s: %s\n  DDDS       the server cannot say what its DDDS discovery finds (it is older than this urikit); without it, a request is answered 404\n", name, why)
		return exitInvalid
	case !ok:
		fmt.Fprintf(s.out, "no rule applies to %s: %s\n  DDDS       a server running on this directory with --dns would then try DDDS discovery (rules test --server URL shows what it finds); without it, a request is answered 404\n", name, why)
		return exitInvalid
	case !disc.Enabled || disc.Status == http.StatusNotFound:
		fmt.Fprintf(s.out, "no rule applies to %s: %s\n  DDDS       %s; a request is answered 404\n", name, why, strings.TrimPrefix(disc.Why, "DDDS: "))
		return exitInvalid
	}
	fmt.Fprintf(s.out, "%s takes no rule (%s); the server's DDDS discovery finds it\n", name, why)
	for i, step := range disc.Path {
		fmt.Fprintf(s.out, "  %-10s %s\n", fmt.Sprintf("step %d", i+1), step)
	}
	if disc.Status == http.StatusLoopDetected {
		fmt.Fprintf(s.out, "  %-10s 508 Loop Detected: %s\n", service, disc.Why)
		return exitInvalid
	}
	fmt.Fprintf(s.out, "  %-10s %s\n", service, disc.URL)
	return exitOK
}

// bareError is err's message: a *resolver.Error's without the field it
// names.
func bareError(err error) string {
	var e *resolver.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// duplicateJSON is a line of duplicates --json: the statuses only with
// --withdrawn (without it, every record listed is active).
type duplicateJSON struct {
	Location string            `json:"location"`
	URNs     []string          `json:"urns"`
	Statuses []resolver.Status `json:"statuses,omitempty"`
	// MoreURNs: more records list the location than the first
	// resolver.MaxByLocation urns holds (urikit locate lists them all).
	MoreURNs bool `json:"more_urns,omitempty"`
}

func runDuplicates(args []string, s *stdio) int {
	fs := newFlags("duplicates", "duplicates [--withdrawn] [--json]",
		"Lists the locations that more than one active record lists, compared after\n"+
			"scheme-based normalization (RFC 3986 §6.2.3: HTTP://EXAMPLE.ORG:80/a and\n"+
			"http://example.org/a are one location), each with the names that share it.\n"+
			"Withdrawn records are left out: their locations can no longer be changed.\n"+
			"--withdrawn counts and lists them too, each name with its status.\n"+
			"A location lists its first 100 names (by registration); when more records\n"+
			"list it, a last line says so, and 'urikit locate URL' lists them all.\n"+
			"Against a server this needs the admin token.\n"+targetHelp, s)
	t := addTarget(fs)
	withdrawn := fs.Bool("withdrawn", false, "include withdrawn records, and say each record's status")
	asJSON := fs.Bool("json", false, `print one JSON object a line: {"location":…,"urns":[…]}, with --withdrawn also "statuses":[…] in the order of urns, and "more_urns":true when urns is cut`)
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) > 0 {
		return usageErr(s, "duplicates", "takes no arguments")
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "duplicates", "%v", err)
	}
	return withDir(s, "duplicates", t, false, func(ctx context.Context, d directory) int {
		n := 0
		err := d.Duplicates(ctx, *withdrawn, func(dup resolver.Duplicate) error {
			n++
			if *asJSON {
				obj := duplicateJSON{Location: dup.Key, URNs: dup.URNs, MoreURNs: dup.More}
				if *withdrawn {
					obj.Statuses = dup.Statuses
				}
				printJSON(s.out, obj)
				return nil
			}
			fmt.Fprintf(s.out, "%s\n", dup.Key)
			for i, u := range dup.URNs {
				if *withdrawn && i < len(dup.Statuses) {
					fmt.Fprintf(s.out, "  %s (%s)\n", u, dup.Statuses[i])
				} else {
					fmt.Fprintf(s.out, "  %s\n", u)
				}
			}
			if dup.More {
				flag := ""
				if *withdrawn {
					flag = "--withdrawn "
				}
				fmt.Fprintf(s.out, "  … and more records (the first %d are shown): urikit locate %s%s\n", len(dup.URNs), flag, dup.Key)
			}
			return nil
		})
		if err != nil {
			return fail(s, "duplicates", t, err)
		}
		if !*asJSON {
			which := "several active records"
			if *withdrawn {
				which = "several records"
			}
			fmt.Fprintf(s.err, "%s shared by %s\n", plural(n, "location", "locations"), which)
		}
		return exitOK
	})
}

// localOnly is the target of the commands that work on the store itself.
func localOnly(s *stdio, cmd string, args []string, about string) (*target, int) {
	fs := newFlags(cmd, cmd+" [--data DIR | --db DSN]", about+`

Where: the data directory --data DIR (or URIKIT_DATA; default ./urikit-data)
or the PostgreSQL database --db postgres://… (or URIKIT_DB). A running
server does not offer this over its API.`, s)
	t := &target{}
	fs.StringVar(&t.data, "data", "", "the data directory (or "+envData+"; default ./"+defaultData+")")
	fs.StringVar(&t.db, "db", "", "the PostgreSQL database, postgres://… (or "+envDB+")")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return nil, st
	}
	if len(pos) > 0 {
		return nil, usageErr(s, cmd, "takes no arguments")
	}
	if flagSet(fs, "data") && flagSet(fs, "db") {
		return nil, usageErr(s, cmd, "give --data or --db, not both")
	}
	if !flagSet(fs, "data") && t.db == "" {
		t.db = os.Getenv(envDB)
	}
	if t.db == "" && t.data == "" {
		if t.data = os.Getenv(envData); t.data == "" {
			t.data = defaultData
		}
	}
	return t, -1
}

const adminTokenUsage = `usage: urikit admin-token rotate [--data DIR | --db DSN]

subcommands:
  rotate   generate a new admin token, store its hash in place of the old
           one's (with an admin.token history entry) and print it, once
`

func runAdminToken(args []string, s *stdio) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, adminTokenUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(s.out, adminTokenUsage)
		return exitOK
	case "rotate":
	default:
		return unknownCommand(s, "admin-token", args[0], []string{"rotate"})
	}
	const cmd = "admin-token rotate"
	t, st := localOnly(s, cmd, args[1:],
		"Generates a new admin token, stores its hash in place of the old one's\n"+
			"(an admin.token history entry records the change, so urikit verify\n"+
			"holds the store to it) and prints it, once. The old token, generated or\n"+
			"once set by URIKIT_ADMIN_TOKEN, is admin no more, at once, for every\n"+
			"server on the store: they read the hash at each admin request. A server\n"+
			"started with URIKIT_ADMIN_TOKEN takes that token instead: change or unset\n"+
			"the variable too, and restart it. Safe while servers run.")
	if st >= 0 {
		return st
	}
	ctx, stop := interruptible()
	defer stop()
	store, err := openStore(ctx, storeConfig{data: t.data, db: t.db, mustExist: true, direct: true, notice: s.err, cmd: cmd})
	if err != nil {
		return fail(s, cmd, t, err)
	}
	defer store.Close()
	tok, err := resolver.New(store, resolver.Options{CacheSize: -1}).RotateAdminToken(ctx)
	if err != nil {
		return fail(s, cmd, t, err)
	}
	printSecret(s, "the new admin token", tok)
	if os.Getenv(envAdminToken) != "" {
		fmt.Fprintf(s.err, "urikit %s: %s is set here: a server started with it takes that token, not this one\n", cmd, envAdminToken)
	}
	return exitOK
}

func runMigrate(args []string, s *stdio) int {
	t, st := localOnly(s, "migrate", args,
		"Brings the store's schema up to this build's version (as urikit serve does\n"+
			"when it starts; safe while other instances start), then computes again,\n"+
			"with this build's equivalence rules, every name key stored under older\n"+
			"rules (urn.KeyVersion), so that lookups keep finding every record, and\n"+
			"the location index's keys when older normalization rules computed them\n"+
			"(resolver.LocationKeyVersion), so that L2N and L2L keep finding them.\n"+
			"Unlike serve's start, it takes over a newer build's migration of the\n"+
			"location keys: run it when that one was interrupted or rolled back.\n"+
			"A name whose new key another record holds is left as it was and listed:\n"+
			"two records have become equivalent, and people must decide which stays;\n"+
			"the exit status is then 1.")
	if st >= 0 {
		return st
	}
	ctx, stop := interruptible()
	defer stop()
	store, err := openStore(ctx, storeConfig{data: t.data, db: t.db, mustExist: true, direct: true})
	if err != nil {
		return fail(s, "migrate", t, err)
	}
	defer store.Close()
	fmt.Fprintf(s.out, "schema: %s\n", schemaReport(store))
	// An operator's migrate also ends a newer build's migration that was
	// interrupted (serve's start leaves one alone: it may be under way).
	rep, err := resolver.New(store, resolver.Options{CacheSize: -1}).MigrateOver(ctx)
	if err != nil {
		return fail(s, "migrate", t, err)
	}
	fmt.Fprintf(s.out, "keys: %d stored under older rules, %d re-keyed\n", rep.Checked, rep.Rekeyed)
	fmt.Fprintf(s.out, "successor keys: %d stored under older rules or not computed, %d re-keyed\n", rep.SuccessorsChecked, rep.SuccessorsRekeyed)
	switch {
	case rep.LocationsInterrupted != 0 && rep.LocationsFrom != 0:
		fmt.Fprintf(s.out, "location keys: a migration to version %d's rules was interrupted: computed them again by this urikit's (version %d): %s read, %d changed\n",
			rep.LocationsInterrupted, resolver.LocationKeyVersion, plural(rep.LocationRecords, "record", "records"), rep.LocationsRekeyed)
	case rep.LocationsFrom != 0:
		fmt.Fprintf(s.out, "location keys: computed again by version %d's rules (they were of version %d): %s read, %d changed\n",
			resolver.LocationKeyVersion, rep.LocationsFrom, plural(rep.LocationRecords, "record", "records"), rep.LocationsRekeyed)
	}
	if rep.LocationsTakenOver != 0 {
		fmt.Fprintf(s.out, "location keys: another urikit (version %d's rules) began migrating them meanwhile: this one stopped, and that one finishes\n",
			rep.LocationsTakenOver)
	}
	if rep.LocationsNewer != 0 {
		fmt.Fprintf(s.out, "location keys: the store's are of version %d, newer than this urikit's (%d): a newer urikit migrated them; upgrade this one\n",
			rep.LocationsNewer, resolver.LocationKeyVersion)
	}
	if rep.LocationsOlder != 0 {
		fmt.Fprintf(s.out, "location keys: the store's are of version %d, older than this urikit's (%d), as another urikit's migration left them: "+
			"once no migration is under way, this urikit refuses to store locations until it migrates them (run urikit migrate again)\n",
			rep.LocationsOlder, resolver.LocationKeyVersion)
	}
	if len(rep.Conflicts) > 0 {
		fmt.Fprintf(s.err, "urikit migrate: %s now equivalent to another record's name, left as it was:\n", plural(len(rep.Conflicts), "name is", "names are"))
		for _, c := range rep.Conflicts {
			fmt.Fprintf(s.err, "  %s\n", c)
		}
		return exitInvalid
	}
	return exitOK
}

func runVerify(args []string, s *stdio) int {
	t, st := localOnly(s, "verify", args,
		"Checks the directory's whole history, entry by entry: each entry's number,\n"+
			"its link to the hash of the entry before it, its own hash over its content,\n"+
			"and that its time is not earlier than the entry's before it (as-of lookups\n"+
			"rely on that order). Then checks that the directory as it stands is what\n"+
			"the history says: the naming authorities, their tokens (a token's hash\n"+
			"included) and the delegation rules against the history's entries about\n"+
			"them; every record against the last history entry about it; every key\n"+
			"against the names and aliases the history gives its record; and the\n"+
			"location index (L2N, L2L) against the records' locations. A change made to\n"+
			"the database directly (an edited, removed or reordered entry, or one set\n"+
			"back in time; an edited, added or deleted authority, token, rule, record,\n"+
			"key or index row) is found: the exit status is then 1 and the first entry,\n"+
			"authority, token, rule or record that does not fit is named, with what\n"+
			"differs. Records whose metadata a write refuses today (stored before a\n"+
			"rule: nested too deep, a member name given twice) get a note, not a\n"+
			"failure: they resolve as stored, but an import of their export refuses\n"+
			"them. It reads a page at a time, whatever the size of the directory.")
	if st >= 0 {
		return st
	}
	ctx, stop := interruptible()
	defer stop()
	store, err := openStore(ctx, storeConfig{data: t.data, db: t.db, mustExist: true, direct: true, notice: s.err, cmd: "verify"})
	if err != nil {
		return fail(s, "verify", t, err)
	}
	defer store.Close()
	svc := resolver.New(store, resolver.Options{CacheSize: -1})
	rep, err := svc.VerifyAll(ctx, nil)
	var ce *resolver.ChainError
	var se *resolver.StateError
	var ae *resolver.AccessError
	switch {
	case errors.As(err, &ce):
		what := ""
		if es, lerr := store.Log(ctx, ce.Seq-1, 1); lerr == nil && len(es) == 1 && es[0].Seq == ce.Seq {
			e := es[0]
			what = fmt.Sprintf(" (%s %s at %s)", e.Action, e.Subject, e.Time.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(s.err, "urikit verify: history entry %d%s does not fit: %s; the %s before it verified\n",
			ce.Seq, what, ce.Reason, plural(int(rep.Entries), "entry", "entries"))
		return exitInvalid
	case errors.As(err, &se):
		name := se.URN
		if name == "" {
			name = "(no name)"
		}
		fmt.Fprintf(s.err, "urikit verify: record %d, %s, is not what the history says: %s; the history (%s) verified, and the %s before it\n",
			se.RecordID, name, se.Reason, plural(int(rep.Entries), "entry", "entries"), plural(int(rep.Records), "record", "records"))
		return exitInvalid
	case errors.As(err, &ae):
		fmt.Fprintf(s.err, "urikit verify: %s is not what the history says: %s; the history (%s) verified\n",
			ae.Subject(), ae.Reason, plural(int(rep.Entries), "entry", "entries"))
		return exitInvalid
	case err != nil:
		return fail(s, "verify", t, err)
	}
	head, err := store.Head(ctx)
	if err != nil {
		return fail(s, "verify", t, err)
	}
	if head.Seq == 0 {
		// A store no change was ever made to: there is no last entry.
		fmt.Fprintln(s.out, "history verified: no entries yet")
	} else {
		fmt.Fprintf(s.out, "history verified: %s, the last %d with hash %x\n", plural(int(rep.Entries), "entry", "entries"), head.Seq, head.Hash)
	}
	fmt.Fprintf(s.out, "state verified: %s and %s, as the history says\n", plural(int(rep.Records), "record", "records"), plural(int(rep.Keys), "key", "keys"))
	fmt.Fprintf(s.out, "location index verified: %s, the keys of the records' locations\n", plural(int(rep.Locations), "row", "rows"))
	access := plural(int(rep.Authorities), "authority", "authorities") + ", " + plural(int(rep.Tokens), "token", "tokens")
	if rep.AdminToken {
		access += ", " + plural(int(rep.Rules), "delegation rule", "delegation rules") + " and the admin token"
	} else {
		access += " and " + plural(int(rep.Rules), "delegation rule", "delegation rules")
	}
	fmt.Fprintf(s.out, "access verified: %s, as the history says\n", access)
	if rep.UnpinnedTokens > 0 {
		fmt.Fprintf(s.out, "note: %s created before the history recorded token hashes: all but the hash checked\n",
			plural(int(rep.UnpinnedTokens), "token was", "tokens were"))
	}
	if rep.UnpinnedAdminToken {
		// Nothing in the store tells one from the other: only whoever
		// knows where the store comes from can.
		fmt.Fprintln(s.out, "note: an admin token's hash is stored, but no history entry records it: an older build generated it, "+
			"or it was written behind the service's back; it is not checked")
	}
	if rep.StaleLocationKeys {
		fmt.Fprintf(s.out, "note: the location index's keys are of version %d of the normalization rules, this build's are of version %d: "+
			"each key was checked against its row, not against its URL; urikit migrate computes them again\n",
			rep.LocationKeyVersion, resolver.LocationKeyVersion)
	}
	if rep.OldMetadata > 0 {
		fmt.Fprintf(s.out, "note: %s metadata that a write refuses today, stored before that rule (the first: %s): "+
			"they resolve as stored, but an import of an export refuses them; register them again with the metadata corrected\n",
			plural(int(rep.OldMetadata), "record holds", "records hold"), rep.OldMetadataExample)
	}
	if rep.OldRules > 0 {
		fmt.Fprintf(s.out, "note: %s a target that a rule change refuses today, stored before that check (the first: %s): "+
			"names under it are answered 502 delegation-failed, never redirected there; remove the rule and add it again with a good target\n",
			plural(int(rep.OldRules), "delegation rule has", "delegation rules have"), rep.OldRuleExample)
	}
	if rep.LocationMigration != 0 {
		fmt.Fprintf(s.out, "note: a migration of the location index's keys (history entry %d is of it) was under way, or was interrupted: "+
			"keys of other normalization rules than this build's were checked against their rows, not against their URLs; "+
			"verify again once a migration has ended (urikit migrate ends an interrupted one)\n", rep.LocationMigration)
	}
	return exitOK
}
