package main

// The plumbing every resolver command shares: where the directory is (a
// running server through its JSON API, or a data directory opened
// directly), the one interface the commands use over both, and how errors
// are shown.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
	"github.com/urikit/urikit/urn"
)

// Environment variables the resolver commands read; a flag given on the
// command line wins over its variable.
const (
	envServer = "URIKIT_SERVER"
	envToken  = "URIKIT_TOKEN"
	envData   = "URIKIT_DATA"
	envDB     = "URIKIT_DB"
)

// defaultData is the data directory when neither --data nor URIKIT_DATA
// names one: the same default as urikit serve's.
const defaultData = "urikit-data"

// target says where a command works: a server, or a store opened in
// process (a data directory or a PostgreSQL database).
type target struct {
	server, token string
	data, db      string
	// explicit flags, to tell a flag from an environment default
	setServer, setData, setDB bool
	// implicit: data is ./urikit-data because nothing named a target
	implicit bool
}

// addTarget defines --server, --token, --data and --db on fs.
func addTarget(fs *flag.FlagSet) *target {
	t := &target{}
	fs.StringVar(&t.server, "server", "", "a running urikit serve's base URL, e.g. http://localhost:8080 (or "+envServer+")")
	fs.StringVar(&t.token, "token", "", "the bearer token to send to --server (or "+envToken+")")
	fs.StringVar(&t.data, "data", "", "work directly on this data directory (or "+envData+"; default ./"+defaultData+")")
	fs.StringVar(&t.db, "db", "", "work directly on this PostgreSQL database, postgres://… (or "+envDB+")")
	return t
}

// resolve fills in what the flags left from the environment, and picks
// the mode: explicit flags first (--server, then --db, then --data); else
// URIKIT_SERVER, then URIKIT_DB; else the data directory.
func (t *target) resolve(fs *flag.FlagSet) error {
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "server":
			t.setServer = true
		case "data":
			t.setData = true
		case "db":
			t.setDB = true
		}
	})
	n := 0
	for _, b := range []bool{t.setServer, t.setData, t.setDB} {
		if b {
			n++
		}
	}
	if n > 1 {
		return errors.New("give one of --server, --data and --db")
	}
	if t.token == "" {
		t.token = os.Getenv(envToken)
	}
	switch {
	case t.setServer, t.setData, t.setDB:
	case os.Getenv(envServer) != "":
		t.server = os.Getenv(envServer)
	case os.Getenv(envDB) != "":
		t.db = os.Getenv(envDB)
	}
	if t.server == "" && t.db == "" && t.data == "" {
		t.data = os.Getenv(envData)
		if t.data == "" {
			t.data, t.implicit = defaultData, true
		}
	}
	if t.server != "" && !strings.HasPrefix(t.server, "http://") && !strings.HasPrefix(t.server, "https://") {
		return fmt.Errorf("--server %q: give the server's http:// or https:// URL", t.server)
	}
	return nil
}

// remote reports whether the command goes through a server.
func (t *target) remote() bool { return t.server != "" }

// String names the target for people.
func (t *target) String() string {
	switch {
	case t.server != "":
		return "server " + t.server
	case t.db != "":
		return "database " + redactDSN(t.db)
	}
	return "data directory " + t.data
}

// directory is what the resolver commands do, over a server or a store.
// Local name writes act as resolver.Operator (for the authority owning
// each name); local administration acts as the admin.
type directory interface {
	// Put and Withdraw write only while the record's entity-tag is
	// ifMatch (an entity-tag, quoted, or "*"), when it is not "" (If-Match,
	// RFC 9110 §13.1.1): else a KindPrecondition error.
	Put(ctx context.Context, name string, in resolver.RecordInput, ifMatch string) (resolver.Record, bool, error)
	Withdraw(ctx context.Context, name, reason, successor, ifMatch string) (resolver.Record, error)
	Get(ctx context.Context, name string) (resolver.Record, error)
	// AllPredecessors returns rec's predecessors, every one of them
	// (rec.Predecessors holds the first resolver.MaxPredecessors).
	AllPredecessors(ctx context.Context, rec resolver.Record) ([]string, error)

	CreateAuthority(ctx context.Context, name string, prefixes []string) (resolver.Authority, string, error)
	Authorities(ctx context.Context) ([]resolver.Authority, error)
	// Authority returns one authority and its tokens, without their
	// secrets or hashes.
	Authority(ctx context.Context, id int64) (resolver.Authority, []resolver.Token, error)
	AddToken(ctx context.Context, id int64, label string) (tokenID int64, token string, err error)
	RevokeToken(ctx context.Context, id, tokenID int64) error
	Transfer(ctx context.Context, id int64, newName string) (resolver.Authority, string, error)

	AddRule(ctx context.Context, prefix, target string) (resolver.Rule, error)
	Rules(ctx context.Context) ([]resolver.Rule, error)
	RemoveRule(ctx context.Context, id int64) error
	// Discover is what the server's DDDS discovery finds for name, rules
	// left aside (a dry run). ok is false when the directory cannot say:
	// a store opened in process (discovery is the server's, with its
	// --dns), or a server older than the operation.
	Discover(ctx context.Context, name, service string) (d client.Discovery, ok bool, err error)

	// EachRecord calls fn for every record, withdrawn ones too, in the
	// order they were created, with the aliases it dropped (the spellings
	// of its retired keys), which stay reserved to it. A server's API
	// does not show them: over it, reserved is nil.
	EachRecord(ctx context.Context, fn func(r resolver.Record, reserved []string) error) error
	// Duplicates calls fn for every location several active records
	// share; with withdrawn, several records whatever their status. Each
	// holds the first resolver.MaxByLocation names (More when cut).
	Duplicates(ctx context.Context, withdrawn bool, fn func(resolver.Duplicate) error) error
	// ByLocation calls fn for every record that lists rawURL as a
	// location (compared as L2Ns compares it), active ones only unless
	// withdrawn, in registration order, a page at a time.
	ByLocation(ctx context.Context, rawURL string, withdrawn bool, fn func(resolver.Record) error) error

	// importer returns what writes the records of an import.
	importer() importSink

	Close() error
}

// open returns the directory t names, for the command cmd. create is false
// for commands that only read: they refuse a data directory that does not
// exist rather than make an empty one. Opening a store that had an older
// schema says so on s.err (openStore).
func (t *target) open(ctx context.Context, s *stdio, cmd string, create bool) (directory, error) {
	if t.remote() {
		return remoteDir{c: client.New(t.server, t.token)}, nil
	}
	if t.implicit && create {
		// A write with no target named (URIKIT_SERVER forgotten, say)
		// would otherwise make a new, empty directory here and write
		// into it, reporting success for a name nobody resolves.
		if _, err := os.Stat(t.data); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no --server, --data or --db was given (nor %s, %s or %s), and there is no ./%s here: "+
				"name the directory to create with --data %s, or the server with --server URL", envServer, envData, envDB, defaultData, defaultData)
		}
	}
	cfg := storeConfig{data: t.data, db: t.db, mustExist: !create, notice: s.err, cmd: cmd}
	if cmd == "import" {
		cfg.timeout = importTimeout
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &localDir{svc: resolver.New(st, resolver.Options{CacheSize: -1}), st: st}, nil
}

// importTimeout bounds one transaction of an import on PostgreSQL. A
// batch's new records go in with COPY, in a fraction of a second; but a
// batch of records already stored and changed (a file imported again after
// edits) is written a record at a time, about half a millisecond each:
// several seconds for a batch of 10,000, beyond the 5 s that bound a
// request.
const importTimeout = 5 * time.Minute

// ---- over a server ----

type remoteDir struct{ c *client.Client }

func (d remoteDir) Put(ctx context.Context, name string, in resolver.RecordInput, ifMatch string) (resolver.Record, bool, error) {
	rec, created, _, err := d.c.PutIf(ctx, name, in, ifMatch)
	return rec, created, err
}
func (d remoteDir) Withdraw(ctx context.Context, name, reason, successor, ifMatch string) (resolver.Record, error) {
	rec, _, err := d.c.WithdrawIf(ctx, name, reason, successor, ifMatch)
	return rec, err
}
func (d remoteDir) Get(ctx context.Context, name string) (resolver.Record, error) {
	return d.c.Get(ctx, name)
}
func (d remoteDir) AllPredecessors(ctx context.Context, rec resolver.Record) ([]string, error) {
	return d.c.Predecessors(ctx, rec.URN)
}
func (d remoteDir) CreateAuthority(ctx context.Context, name string, prefixes []string) (resolver.Authority, string, error) {
	a, err := d.c.CreateAuthority(ctx, name, prefixes)
	return a.Authority, a.Token, err
}
func (d remoteDir) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	return d.c.Authorities(ctx)
}
func (d remoteDir) Authority(ctx context.Context, id int64) (resolver.Authority, []resolver.Token, error) {
	a, infos, err := d.c.Authority(ctx, id)
	toks := make([]resolver.Token, len(infos))
	for i, t := range infos {
		toks[i] = resolver.Token{ID: t.ID, AuthorityID: t.Authority, Label: t.Label, Created: t.Created}
		if t.Revoked != nil {
			toks[i].Revoked = *t.Revoked
		}
	}
	return a, toks, err
}
func (d remoteDir) AddToken(ctx context.Context, id int64, label string) (int64, string, error) {
	t, err := d.c.AddToken(ctx, id, label)
	return t.ID, t.Token, err
}
func (d remoteDir) RevokeToken(ctx context.Context, id, tokenID int64) error {
	return d.c.RevokeToken(ctx, id, tokenID)
}
func (d remoteDir) Transfer(ctx context.Context, id int64, newName string) (resolver.Authority, string, error) {
	a, err := d.c.TransferAuthority(ctx, id, newName)
	return a.Authority, a.Token, err
}
func (d remoteDir) AddRule(ctx context.Context, prefix, target string) (resolver.Rule, error) {
	r, err := d.c.AddRule(ctx, prefix, target)
	return resolver.Rule{ID: r.ID, Prefix: r.Prefix, Target: r.Target, Created: r.Created}, err
}
func (d remoteDir) Rules(ctx context.Context) ([]resolver.Rule, error) {
	rs, err := d.c.Rules(ctx)
	out := make([]resolver.Rule, len(rs))
	for i, r := range rs {
		out[i] = resolver.Rule{ID: r.ID, Prefix: r.Prefix, Target: r.Target, Created: r.Created}
	}
	return out, err
}
func (d remoteDir) RemoveRule(ctx context.Context, id int64) error { return d.c.RemoveRule(ctx, id) }
func (d remoteDir) Discover(ctx context.Context, name, service string) (client.Discovery, bool, error) {
	disc, err := d.c.Discover(ctx, name, service)
	if errors.Is(err, client.ErrNoRoute) {
		return client.Discovery{}, false, nil
	}
	return disc, err == nil, err
}
func (d remoteDir) EachRecord(ctx context.Context, fn func(resolver.Record, []string) error) error {
	return d.c.EachRecord(ctx, func(r resolver.Record) error { return fn(r, nil) })
}
func (d remoteDir) Duplicates(ctx context.Context, withdrawn bool, fn func(resolver.Duplicate) error) error {
	return d.c.Duplicates(ctx, withdrawn, func(x client.Duplicate) error {
		return fn(resolver.Duplicate{Key: x.Location, URNs: x.URNs, Statuses: x.Statuses, More: x.MoreURNs})
	})
}
func (d remoteDir) ByLocation(ctx context.Context, rawURL string, withdrawn bool, fn func(resolver.Record) error) error {
	return d.c.EachByLocation(ctx, rawURL, withdrawn, fn)
}
func (d remoteDir) importer() importSink { return &remoteSink{c: d.c} }
func (d remoteDir) Close() error         { return nil }

// ---- on a store, in process ----

type localDir struct {
	svc *resolver.Service
	st  resolver.Store
}

var adminPrincipal = resolver.Principal{Admin: true}

func (d *localDir) Put(ctx context.Context, name string, in resolver.RecordInput, ifMatch string) (resolver.Record, bool, error) {
	return d.svc.Put(ctx, resolver.Operator, name, in, ifMatchPrecondition(ifMatch)...)
}
func (d *localDir) Withdraw(ctx context.Context, name, reason, successor, ifMatch string) (resolver.Record, error) {
	return d.svc.Withdraw(ctx, resolver.Operator, name, reason, successor, ifMatchPrecondition(ifMatch)...)
}

// ifMatchPrecondition is the condition of --if-match, which the Service
// evaluates in the write's own transaction, as it does the server's
// If-Match: none for "".
func ifMatchPrecondition(ifMatch string) []resolver.Precondition {
	if ifMatch == "" {
		return nil
	}
	return []resolver.Precondition{{IfMatch: []string{ifMatch}}}
}

// Get reads the record as the server's GET shows it: with the records it
// replaces, which its entity-tag covers (what --if-match and withdraw's
// restated notice compare).
func (d *localDir) Get(ctx context.Context, name string) (resolver.Record, error) {
	u, err := resolver.ParseName("urn", name)
	if err != nil {
		return resolver.Record{}, err
	}
	rec, err := d.svc.Lookup(ctx, u)
	if err != nil {
		return resolver.Record{}, err
	}
	return d.svc.WithPredecessors(ctx, rec)
}
func (d *localDir) AllPredecessors(ctx context.Context, rec resolver.Record) ([]string, error) {
	all := []string{}
	for after := int64(0); ; {
		page, more, err := d.svc.PredecessorsAfter(ctx, rec, after, resolver.MaxPredecessors)
		if err != nil {
			return nil, err
		}
		for _, p := range page {
			all = append(all, p.URN)
			after = p.ID
		}
		if !more {
			return all, nil
		}
	}
}
func (d *localDir) CreateAuthority(ctx context.Context, name string, prefixes []string) (resolver.Authority, string, error) {
	return d.svc.CreateAuthority(ctx, adminPrincipal, name, prefixes)
}
func (d *localDir) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	return d.svc.Authorities(ctx, adminPrincipal)
}
func (d *localDir) Authority(ctx context.Context, id int64) (resolver.Authority, []resolver.Token, error) {
	a, toks, err := d.svc.Authority(ctx, adminPrincipal, id)
	for i := range toks {
		toks[i].Hash = nil
	}
	return a, toks, err
}
func (d *localDir) AddToken(ctx context.Context, id int64, label string) (int64, string, error) {
	t, tok, err := d.svc.AddToken(ctx, adminPrincipal, id, label)
	return t.ID, tok, err
}
func (d *localDir) RevokeToken(ctx context.Context, id, tokenID int64) error {
	return d.svc.RevokeToken(ctx, adminPrincipal, id, tokenID)
}
func (d *localDir) Transfer(ctx context.Context, id int64, newName string) (resolver.Authority, string, error) {
	return d.svc.TransferAuthority(ctx, adminPrincipal, id, newName)
}
func (d *localDir) AddRule(ctx context.Context, prefix, target string) (resolver.Rule, error) {
	return d.svc.AddRule(ctx, adminPrincipal, prefix, target)
}
func (d *localDir) Rules(ctx context.Context) ([]resolver.Rule, error) { return d.svc.Rules(ctx) }
func (d *localDir) RemoveRule(ctx context.Context, id int64) error {
	return d.svc.RemoveRule(ctx, adminPrincipal, id)
}
func (d *localDir) Discover(context.Context, string, string) (client.Discovery, bool, error) {
	return client.Discovery{}, false, nil
}
func (d *localDir) EachRecord(ctx context.Context, fn func(resolver.Record, []string) error) error {
	// RecordStates reads a page of records with their keys in one
	// statement (Records and then Keys for each would be a round trip a
	// record on PostgreSQL).
	var after int64
	for {
		states, err := d.st.RecordStates(ctx, after, 1000)
		if err != nil {
			return err
		}
		if len(states) == 0 {
			return nil
		}
		for _, st := range states {
			if !st.HasRecord {
				continue // history without a record: urikit verify reports it
			}
			var reserved []string
			for _, k := range st.Keys {
				if k.Role == resolver.RoleRetired {
					reserved = append(reserved, k.Spelling)
				}
			}
			if err := fn(st.Record, reserved); err != nil {
				return err
			}
		}
		after = states[len(states)-1].ID
	}
}
func (d *localDir) Duplicates(ctx context.Context, withdrawn bool, fn func(resolver.Duplicate) error) error {
	return d.svc.Duplicates(ctx, withdrawn, fn)
}
func (d *localDir) ByLocation(ctx context.Context, rawURL string, withdrawn bool, fn func(resolver.Record) error) error {
	var after int64
	for {
		_, recs, more, err := d.svc.LocationPage(ctx, rawURL, after, 1000, withdrawn)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		after = recs[len(recs)-1].ID
	}
}
func (d *localDir) importer() importSink { return &localSink{svc: d.svc} }
func (d *localDir) Close() error         { return d.st.Close() }

// ---- errors ----

// fail prints err on one line as "urikit CMD: …" and returns the exit
// status for it: 1 for every error of the directory (invalid input, not
// found, refused, unreachable). A malformed name gets a caret under the
// offending byte.
func fail(s *stdio, cmd string, t *target, err error) int {
	var e *resolver.Error
	if errors.As(err, &e) {
		msg := e.Error()
		switch e.Kind {
		case resolver.KindUnauthorized:
			if t != nil && t.remote() {
				msg += " (give the token with --token or " + envToken + ")"
			}
		case resolver.KindConflict:
			if e.Record != "" && !strings.Contains(msg, e.Record) {
				msg += " (the record in the way: " + e.Record + ")"
			}
		case resolver.KindPrecondition:
			// The user gave --if-match, not the header it is sent as.
			if e.Field == "If-Match" {
				msg = "--if-match" + strings.TrimPrefix(msg, "If-Match")
			}
			if e.ETag != "" {
				msg += "; nothing was changed (urikit lookup shows the record as it is now, and its entity-tag)"
			} else {
				msg += "; nothing was changed"
			}
		case resolver.KindNotFound:
			if t != nil && t.remote() && errors.Is(err, client.ErrNoRoute) {
				msg += serverHint(t.server)
			}
		case resolver.KindUnavailable:
			if t != nil && !t.remote() {
				msg += " [" + t.String() + "]"
			}
		case resolver.KindInternal:
			if e.Err != nil && !errors.Is(e.Err, client.ErrNotAPI) {
				msg += ": " + e.Err.Error()
			}
		}
		fmt.Fprintf(s.err, "urikit %s: %s\n", cmd, msg)
		return exitInvalid
	}
	fmt.Fprintf(s.err, "urikit %s: %v\n", cmd, err)
	return exitInvalid
}

// serverHint says, for a server that has no resource at a path the client
// made from --server (no-such-route), that --server is the server's base
// URL: the API's paths are added to it. A URL given with the API's path
// (http://host/api/v1) is the usual slip, and is named.
func serverHint(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return ""
	}
	p := strings.TrimRight(u.Path, "/")
	for _, api := range []string{"/api/v1", "/api"} {
		if strings.HasSuffix(p, api) {
			base := *u
			base.Path, base.RawPath = strings.TrimSuffix(p, api), ""
			return fmt.Sprintf(" (--server takes the server's base URL, without %s: %s)", api, base.String())
		}
	}
	return " (--server takes the server's base URL, such as https://resolver.example; is " + server + " it?)"
}

// badName reports a name that is not a URN, with a caret under the byte
// at fault, and returns exit status 1.
func badName(s *stdio, cmd, name string, err error) int {
	var ue *urn.Error
	if errors.As(err, &ue) {
		fmt.Fprintf(s.err, "urikit %s: not a URN:\n", cmd)
		caret(s.err, name, ue.Offset, ue.Reason)
		return exitInvalid
	}
	fmt.Fprintf(s.err, "urikit %s: %v\n", cmd, err)
	return exitInvalid
}

// usageErr prints a usage error and returns exit status 2.
func usageErr(s *stdio, cmd, format string, args ...any) int {
	fmt.Fprintf(s.err, "urikit %s: %s\n(run 'urikit %s --help')\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

// parseArgs parses the options, which may come before, between or after
// the positional arguments (urikit register URN URL --type text/html), as
// parseFlags takes them, and returns the positional arguments. It returns
// the exit status to stop with, or -1 to go on.
func parseArgs(fs *flag.FlagSet, args []string, s *stdio) ([]string, int) {
	if st := parseFlags(fs, args, s); st >= 0 {
		return nil, st
	}
	return fs.Args(), -1
}
