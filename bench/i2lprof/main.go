// Command i2lprof serves the resolver over an embedded store as `urikit
// serve --data DIR` does (sqlite.Open, resolver.New with the default
// cache, httpapi.New with a private metrics registry), with
// net/http/pprof on a second address, so that the I2L benchmark's load can
// be profiled:
//
//	taskset -c 0 go run ./bench/i2lprof -data DIR -addr 127.0.0.1:18082 -pprof 127.0.0.1:18083 &
//	NAMES=names.txt taskset -c 1 wrk -t1 -c32 -d30s -s bench/i2l.lua http://127.0.0.1:18082 &
//	go tool pprof -top -seconds 20 http://127.0.0.1:18083/debug/pprof/profile
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/sqlite"
)

func main() {
	data := flag.String("data", "", "data directory of the embedded store")
	addr := flag.String("addr", "127.0.0.1:18082", "address of the resolver")
	paddr := flag.String("pprof", "127.0.0.1:18083", "address of net/http/pprof")
	readers := flag.Int("readers", 0, "sqlite.Options.Readers")
	cacheKiB := flag.Int("cache-kib", 0, "sqlite.Options.CacheKiB")
	lookupCache := flag.Int("lookup-cache", 0, "resolver.Options.CacheSize")
	flag.Parse()
	st, err := sqlite.Open(context.Background(), *data, sqlite.Options{Readers: *readers, CacheKiB: *cacheKiB})
	if err != nil {
		fmt.Fprintln(os.Stderr, "i2lprof:", err)
		os.Exit(1)
	}
	defer st.Close()
	svc := resolver.New(st, resolver.Options{CacheSize: *lookupCache})
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := httpapi.New(svc, httpapi.Options{Logger: logger, Metrics: prometheus.NewRegistry()})
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { fmt.Fprintln(os.Stderr, http.ListenAndServe(*paddr, mux)) }()
	fmt.Fprintln(os.Stderr, http.ListenAndServe(*addr, h))
}
