package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/federate"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/postgres"
	"github.com/urikit/urikit/resolver/sqlite"
	"github.com/urikit/urikit/resolver/web"
)

func init() {
	register(command{name: "serve", summary: "run the URN resolver: RFC 2169 services, the JSON API, the web page", run: runServe})
}

// Environment variables of urikit serve (beside URIKIT_DATA and URIKIT_DB).
const (
	envAddr       = "URIKIT_ADDR"
	envReadDB     = "URIKIT_READ_DB"
	envDNS        = "URIKIT_DNS"
	envAdminToken = "URIKIT_ADMIN_TOKEN"
	envCache      = "URIKIT_CACHE"
	envLogFormat  = "URIKIT_LOG_FORMAT"
	envLogLevel   = "URIKIT_LOG_LEVEL"
	envHistory    = "URIKIT_HISTORY_ACCESS"
)

// Timeouts of the HTTP server: a slow or stalled client holds a
// connection for a bounded time, and a shutdown waits a bounded time for
// the requests under way.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second // a body of at most 1 MiB
	writeTimeout      = 60 * time.Second
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 30 * time.Second
	// watchEvery is how often the embedded store is checked for writes
	// by other processes (urikit import --data on the same directory),
	// whose names the lookup cache must then forget.
	watchEvery = time.Second
)

type serveConfig struct {
	addr, data, db, readDB, dns string
	cache                       int
	logFormat, logLevel         string
	historyAccess               string // who reads GET /api/v1/log: "public" or "admin"
}

// envOr returns the environment variable's value when the flag was not
// given.
func envOr(fs *flag.FlagSet, flagName, env string, v *string) {
	if !flagSet(fs, flagName) {
		if e := os.Getenv(env); e != "" {
			*v = e
		}
	}
}

func runServe(args []string, s *stdio) int {
	fs := newFlags("serve", "serve [--addr HOST:PORT] [--data DIR | --db postgres://…] [options]",
		"Runs the URN resolver over HTTP: the RFC 2169 and RFC 2483 services at\n"+
			"/uri-res/<service>?<urn>, the path style /<urn>, the JSON API under /api/v1/\n"+
			"(OpenAPI at /api/v1/openapi.json), the web page at /, /healthz, /readyz and\n"+
			"Prometheus metrics at /metrics.\n\n"+
			"The store is embedded (SQLite, one file in --data, created on first start)\n"+
			"unless --db names a PostgreSQL database, which several instances can share.\n"+
			"The schema is brought up to date at start. On first start an admin token is\n"+
			"generated and printed once (unless URIKIT_ADMIN_TOKEN sets it): it manages\n"+
			"naming authorities and delegation rules.\n\n"+
			"Prints the address it listens on (with --addr 127.0.0.1:0, the port the\n"+
			"system picked). SIGTERM or SIGINT stops it gracefully: no new connections,\n"+
			"the requests under way are answered (up to 30s), then the store is closed.\n\n"+
			"Environment: URIKIT_ADDR, URIKIT_DATA, URIKIT_DB, URIKIT_READ_DB, URIKIT_DNS,\n"+
			"URIKIT_CACHE, URIKIT_LOG_FORMAT, URIKIT_LOG_LEVEL, URIKIT_HISTORY_ACCESS stand\n"+
			"for the flags;\n"+
			"URIKIT_ADMIN_TOKEN is the admin token (16 bytes at least); one other than\n"+
			"the stored token replaces it for good (urikit admin-token rotate does too).\n"+
			"A flag wins over its variable.\n"+
			"Exit status: 0 after a graceful stop, 1 when it cannot start, 2 usage error.", s)
	var c serveConfig
	fs.StringVar(&c.addr, "addr", "localhost:8080", "the address to listen on, HOST:PORT (or "+envAddr+")")
	fs.StringVar(&c.data, "data", defaultData, "the data directory of the embedded store (or "+envData+")")
	fs.StringVar(&c.db, "db", "", "a PostgreSQL database instead, postgres://… (or "+envDB+")")
	fs.StringVar(&c.readDB, "read-db", "", "a streaming replica of --db to read from (or "+envReadDB+")")
	fs.StringVar(&c.dns, "dns", "", "a DNS server HOST:PORT for DDDS discovery of names with no record and no rule (or "+envDNS+")")
	fs.IntVar(&c.cache, "cache", 0, "entries in the cache of hot lookups; 0 means 65536, -1 turns it off (or "+envCache+")")
	fs.StringVar(&c.logFormat, "log-format", "text", "text or json (or "+envLogFormat+")")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info (one line a request), warn or error (or "+envLogLevel+")")
	fs.StringVar(&c.historyAccess, "history-access", "public", "who may read the whole history, GET /api/v1/log: public (anyone can check it, and list every name) or admin (or "+envHistory+")")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) > 0 {
		return usageErr(s, "serve", "takes no arguments")
	}
	envOr(fs, "addr", envAddr, &c.addr)
	envOr(fs, "data", envData, &c.data)
	if !flagSet(fs, "data") { // --data given: URIKIT_DB does not override it
		envOr(fs, "db", envDB, &c.db)
	}
	envOr(fs, "read-db", envReadDB, &c.readDB)
	envOr(fs, "dns", envDNS, &c.dns)
	envOr(fs, "log-format", envLogFormat, &c.logFormat)
	envOr(fs, "log-level", envLogLevel, &c.logLevel)
	envOr(fs, "history-access", envHistory, &c.historyAccess)
	if c.historyAccess != "public" && c.historyAccess != "admin" {
		from := "--history-access"
		if !flagSet(fs, "history-access") {
			from = envHistory
		}
		return usageErr(s, "serve", "%s is public or admin, not %q", from, c.historyAccess)
	}
	if !flagSet(fs, "cache") && os.Getenv(envCache) != "" {
		n, err := strconv.Atoi(os.Getenv(envCache))
		if err != nil {
			return usageErr(s, "serve", "%s=%q is not a number", envCache, os.Getenv(envCache))
		}
		c.cache = n
	}
	if flagSet(fs, "data") && flagSet(fs, "db") {
		return usageErr(s, "serve", "give --data or --db, not both")
	}
	if c.dns != "" {
		if _, err := federate.DNSAddr(c.dns); err != nil {
			return usageErr(s, "serve", "--dns: %v", err)
		}
	}
	logger, err := newLogger(s, c.logFormat, c.logLevel)
	if err != nil {
		return usageErr(s, "serve", "%v", err)
	}
	if tok := os.Getenv(envAdminToken); tok != "" {
		// Warned of, not refused: deployments and scripts in use set
		// short tokens (a test's "secret"), and a server that no longer
		// starts after an upgrade is worse for them than the warning,
		// which every start repeats until the token is replaced.
		if err := resolver.CheckAdminToken(tok); err != nil {
			logger.Warn(envAdminToken+" is too short to be safe", "reason", err.Error(),
				"fix", "set a longer random one, or unset it and use urikit admin-token rotate")
		}
	}
	if err := serve(s, c, logger); err != nil {
		fmt.Fprintf(s.err, "urikit serve: %s\n", errText(err, nil))
		return exitInvalid
	}
	return exitOK
}

// metricsRegistry is the registry /metrics serves: the handler's own
// collectors, and the Go runtime's and the process's (go_*, process_*:
// memory, goroutines, GC, CPU, open files), which an operator expects of
// any Go server. A registry of its own, never the global one.
func metricsRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

func newLogger(s *stdio, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(s.err, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(s.err, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: text or json", format)
}

// serve runs the server until SIGTERM or SIGINT.
func serve(s *stdio, c serveConfig, logger *slog.Logger) error {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	// The listener first: a port in use is the likeliest failure, and
	// the store need not be opened for nothing.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v", c.addr, err)
	}
	defer ln.Close()

	store, err := openStore(ctx, storeConfig{data: c.data, db: c.db, readDB: c.readDB, exclusive: true})
	if errors.Is(err, sqlite.ErrLocked) {
		return fmt.Errorf("the data directory %s is in use by another urikit serve", c.data)
	}
	if err != nil {
		return err
	}
	closeStore := func() {
		if err := store.Close(); err != nil {
			logger.Error("closing the store", "error", err)
		}
	}
	defer func() {
		if store != nil {
			closeStore()
		}
	}()
	where := "data directory " + c.data
	if c.db != "" {
		where = "database " + redactDSN(c.db)
	}
	logger.Info("store open", "store", where, "schema", schemaReport(store))

	svc := resolver.New(store, resolver.Options{AdminToken: os.Getenv(envAdminToken), CacheSize: c.cache})
	rep, err := svc.Migrate(ctx)
	if err != nil {
		return fmt.Errorf("migrating the keys: %w", err)
	}
	if rep.Rekeyed > 0 || len(rep.Conflicts) > 0 {
		logger.Warn("name keys migrated", "rekeyed", rep.Rekeyed, "conflicts", len(rep.Conflicts))
		for _, n := range rep.Conflicts {
			logger.Warn("name now equivalent to another record's, left as it was", "name", n)
		}
	}
	if rep.SuccessorsRekeyed > 0 {
		logger.Warn("successor keys migrated: predecessor links follow the new equivalence rules", "rekeyed", rep.SuccessorsRekeyed)
	}
	if rep.LocationsNewer != 0 {
		logger.Warn("a newer urikit migrated the location keys: this instance refuses writes of locations until it is upgraded",
			"store", rep.LocationsNewer, "this build", resolver.LocationKeyVersion)
	}
	if rep.LocationsTakenOver != 0 {
		logger.Warn("another urikit began migrating the location keys meanwhile: this instance stopped migrating, and that one finishes",
			"other", rep.LocationsTakenOver, "this build", resolver.LocationKeyVersion)
	}
	if rep.LocationsNewerUnderWay != 0 {
		logger.Warn("a newer urikit is migrating the location keys, or was interrupted doing it: this instance leaves the migration alone "+
			"(urikit migrate by this urikit ends an interrupted one)", "newer", rep.LocationsNewerUnderWay, "this build", resolver.LocationKeyVersion)
	}
	if rep.LocationsOlder != 0 {
		logger.Warn("the store's location keys are of older rules, as another urikit's migration left them: once no migration is under way, "+
			"this instance refuses writes of locations until it migrates them (urikit migrate; or a restart, once no newer urikit's migration is under way)",
			"store", rep.LocationsOlder, "this build", resolver.LocationKeyVersion)
	}
	if rep.LocationsFrom != 0 {
		logger.Warn("location keys migrated", "from", rep.LocationsFrom, "to", resolver.LocationKeyVersion,
			"interrupted", rep.LocationsInterrupted, "records", rep.LocationRecords, "rekeyed", rep.LocationsRekeyed)
	}
	tok, err := svc.EnsureAdminToken(ctx)
	if errors.Is(err, resolver.ErrAdminTokenReplaced) {
		logger.Warn(err.Error())
		err = nil
	}
	if err != nil {
		return fmt.Errorf("setting up the admin token: %w", err)
	}

	if sq, ok := store.(*sqlite.Store); ok {
		watchCtx, stopWatch := context.WithCancel(context.Background())
		defer stopWatch()
		go sq.Watch(watchCtx, watchEvery, func() { svc.Invalidate() })
	}

	// Delegation rules can be added through the API at any time, so the
	// Delegator is always there: it asks the rules, then DDDS when --dns
	// is set. A name with a record never reaches it.
	deleg, err := federate.New(svc, federate.Options{DNS: c.dns})
	if err != nil {
		return fmt.Errorf("--dns: %v", errText(err, nil))
	}
	opts := httpapi.Options{
		Delegator:  deleg,
		Logger:     logger,
		Metrics:    metricsRegistry(),
		Pages:      web.New(svc, web.Options{Logger: logger}),
		PrivateLog: c.historyAccess == "admin",
	}
	if _, ok := store.(*postgres.Store); ok && c.readDB != "" {
		// Read-your-writes with a replica: a write's answer carries the
		// version it committed, and a read that presents it is served by
		// the replica only once the replica has replayed that far.
		opts.Positions = httpapi.VersionPositions{
			Commits: func(ctx context.Context) (context.Context, func() int64) {
				ctx, c := postgres.TrackCommits(ctx)
				return ctx, c.Version
			},
			After: postgres.ReadAfter,
		}
	}
	srv := &http.Server{
		Handler:           httpapi.New(svc, opts),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(slogWriter{logger}, "", 0),
	}

	// One write, so that a reader of the output (a test, a supervisor)
	// that has the address line has the token too.
	url := "http://" + displayAddr(ln.Addr())
	var b strings.Builder
	fmt.Fprintf(&b, "urikit serve: listening on %s (%s)\n", url, where)
	if tok != "" {
		fmt.Fprintf(&b, "\n"+
			"  The admin token, shown this once (it manages naming authorities and rules):\n\n"+
			"      %s\n\n"+
			"  Keep it safe: only its hash is stored. Next steps:\n"+
			"      urikit authority add --server %s --token TOKEN \"Name\" urn:example:\n"+
			"      curl -i '%s/uri-res/N2L?urn:example:foo'\n\n", tok, url, url)
	}
	io.WriteString(s.out, b.String())
	logger.Info("listening", "addr", ln.Addr().String(), "dns", c.dns)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %v", err)
	case <-ctx.Done():
	}
	stopSignals() // a second signal kills the process the usual way
	logger.Info("shutting down: finishing the requests under way", "timeout", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("requests still under way were cut off", "error", err)
	}
	closeStore()
	store = nil
	logger.Info("stopped")
	return nil
}

// displayAddr is the address to print: a host to connect to.
func displayAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if ta.IP.IsUnspecified() {
		return net.JoinHostPort("localhost", strconv.Itoa(ta.Port))
	}
	return ta.String()
}

// slogWriter sends the http.Server's own messages (TLS handshake errors,
// panics it recovered) to the structured log.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(strings.TrimSpace(string(p)), "source", "http.Server")
	return len(p), nil
}

// schemaMigrated reports whether opening the store migrated an older
// schema (not a new store's creation).
func schemaMigrated(st resolver.Store) bool {
	switch st := st.(type) {
	case *sqlite.Store:
		m := st.Migration()
		return len(m.Applied) > 0 && m.From > 0
	case *postgres.Store:
		from := st.SchemaFound()
		return from > 0 && from < postgres.SchemaVersion
	}
	return false
}

// schemaReport says what the store's schema is, for people.
func schemaReport(st resolver.Store) string {
	switch st := st.(type) {
	case *sqlite.Store:
		m := st.Migration()
		switch {
		case len(m.Applied) == 0:
			return fmt.Sprintf("SQLite schema version %d, up to date", m.To)
		case m.From == 0: // a new store: every migration ran, from none
			return fmt.Sprintf("SQLite schema version %d, created", m.To)
		}
		return fmt.Sprintf("SQLite schema migrated from version %d to %d (%s)", m.From, m.To, strings.Join(m.Applied, ", "))
	case *postgres.Store:
		switch from := st.SchemaFound(); from {
		case postgres.SchemaVersion:
			return fmt.Sprintf("PostgreSQL schema version %d, up to date", from)
		case 0:
			return fmt.Sprintf("PostgreSQL schema version %d, created", postgres.SchemaVersion)
		default:
			return fmt.Sprintf("PostgreSQL schema migrated from version %d to %d", from, postgres.SchemaVersion)
		}
	}
	return "unknown store"
}
