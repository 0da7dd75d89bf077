package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/urikit/urikit/resolver"
)

// metrics are the handler's Prometheus collectors:
//
//	urikit_http_requests_total{route,service,code}    counter
//	urikit_http_request_duration_seconds{route}       histogram
//	urikit_http_requests_in_flight                    gauge
//	urikit_lookup_cache_hits_total                    counter (the Service's cache of hot lookups)
//	urikit_lookup_cache_misses_total                  counter
//
// The hit ratio is hits / (hits + misses), e.g.
// rate(urikit_lookup_cache_hits_total[5m]) / (rate(…hits…[5m]) + rate(…misses…[5m])).
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inflight prometheus.Gauge
	handler  http.Handler // serves the gatherer

	// counters caches the labelled counters: WithLabelValues hashes its
	// labels on every call, and the set of label values is small.
	counters sync.Map // counterKey → prometheus.Counter
	hists    sync.Map // route → prometheus.Observer
}

type counterKey struct {
	route, service string
	code           int
}

// buckets cover a resolver's answers: a cached lookup takes tens of
// microseconds, a store round trip a millisecond or so.
var buckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics(svc *resolver.Service, reg prometheus.Registerer, g prometheus.Gatherer, log *slog.Logger) *metrics {
	if reg == nil {
		r := prometheus.NewRegistry()
		r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg = r
	}
	if g == nil {
		if rg, ok := reg.(prometheus.Gatherer); ok {
			g = rg
		} else {
			g = prometheus.NewRegistry() // serves nothing rather than the global registry
		}
	}
	m := &metrics{handler: promhttp.HandlerFor(g, promhttp.HandlerOpts{})}
	m.requests = register(reg, log, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "urikit_http_requests_total",
		Help: "HTTP requests answered, by route pattern, resolution service and status code.",
	}, []string{"route", "service", "code"}))
	m.duration = register(reg, log, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "urikit_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern.",
		Buckets: buckets,
	}, []string{"route"}))
	m.inflight = register(reg, log, prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "urikit_http_requests_in_flight",
		Help: "HTTP requests being answered.",
	}))
	register(reg, log, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "urikit_lookup_cache_hits_total",
		Help: "Lookups the cache of hot names answered without the store.",
	}, func() float64 { h, _ := svc.CacheStats(); return float64(h) }))
	register(reg, log, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "urikit_lookup_cache_misses_total",
		Help: "Lookups that went to the store.",
	}, func() float64 { _, m := svc.CacheStats(); return float64(m) }))
	return m
}

// register registers c, or takes the collector already registered under
// its name (two handlers on one registry share their counters).
func register[C prometheus.Collector](reg prometheus.Registerer, log *slog.Logger, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if ex, ok := are.ExistingCollector.(C); ok {
				return ex
			}
		}
		log.LogAttrs(context.Background(), slog.LevelWarn, "metrics: collector not registered", slog.String("error", err.Error()))
	}
	return c
}

func (m *metrics) observe(route, service string, code int, d time.Duration) {
	k := counterKey{route, service, code}
	c, ok := m.counters.Load(k)
	if !ok {
		c, _ = m.counters.LoadOrStore(k, m.requests.WithLabelValues(route, service, strconv.Itoa(code)))
	}
	c.(prometheus.Counter).Inc()
	o, ok := m.hists.Load(route)
	if !ok {
		o, _ = m.hists.LoadOrStore(route, m.duration.WithLabelValues(route))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

func (h *handler) serveMetrics(rw *respWriter, r *http.Request) {
	h.m.handler.ServeHTTP(rw, r)
}
