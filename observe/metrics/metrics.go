package metrics

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config configures New. Its zero value is the documented default: a new
// registry with the Go runtime and process collectors, the metrics served on
// the App at /metrics, OpenTelemetry's duration buckets.
type Config struct {
	// Registry receives the HTTP series (and DBStats'). Nil: a new registry
	// with the Go runtime and process collectors. Give one to expose the
	// App's series together with others, or to make several Apps in one
	// process (each needs its own registry: the series names are fixed).
	Registry *prometheus.Registry

	// Path is where the App serves the metrics (GET and HEAD), or, with
	// Addr, where the separate server does. Default DefaultPath; "-" serves
	// none on the App (and DefaultPath on Addr's server), for a program that
	// mounts Handler itself. The path's own requests are not measured.
	Path string

	// Addr, when set, serves the metrics on this address (host:port) from a
	// server of their own, started by an App.OnStart hook and shut down by
	// an App.OnStop hook, instead of on the App: scrapes then do not
	// pass the App's connection limit and drain, and the metrics need not
	// be public. PLINTH_METRICS_ADDR overrides it. Default: none.
	Addr string

	// Buckets are the upper bounds of the duration histogram, in seconds,
	// strictly increasing. Default DefaultBuckets.
	Buckets []float64
}

// DefaultPath is where the App serves the metrics when Config.Path is "".
const DefaultPath = "/metrics"

// DefaultBuckets are the bucket boundaries OpenTelemetry's semantic
// conventions advise for http.server.request.duration, in seconds.
var DefaultBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// SizeBuckets are the upper bounds, in bytes, of the request and response
// body size histograms: 0 (no body) then powers of four from 64 bytes to
// 16 MiB. OpenTelemetry advises none for sizes.
var SizeBuckets = []float64{0, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}

// Metrics measures one App. Make it with New.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler
	app     *plinth.App

	duration, reqSize, respSize *prometheus.HistogramVec
	active                      *prometheus.GaugeVec

	path     string // the App's metrics path, "" when the App serves none
	selfPat  string // the metrics route's pattern, skipped by the middleware
	addr     string // the separate server's address, "" for none
	addrPath string // the path the separate server serves
	addrErr  error  // a bad Config.Addr or PLINTH_METRICS_ADDR, returned by the OnStart hook

	table atomic.Pointer[table] // made once, at start-up or first request
	mu    sync.Mutex            // guards building the table and late routes

	srv *server // the separate server, when addr is set
}

// New measures app: it installs the middleware with app.Use (so every route
// and fallback is measured) and serves the metrics on the App at cfg.Path,
// or on cfg.Addr (PLINTH_METRICS_ADDR) from a server of its own. It panics
// on a bad Path, Buckets or Registry, naming the field, as a bad route
// pattern does. An address is data (it usually comes from the environment
// or a deployment's settings): a bad Config.Addr or PLINTH_METRICS_ADDR
// stops Run and Serve with an error naming it, like the App's own
// variables, and so does a port in use.
func New(app *plinth.App, cfg Config) *Metrics {
	if app == nil {
		panic("metrics: New: nil App")
	}
	m := &Metrics{app: app, reg: cfg.Registry}
	m.path = cfg.Path
	switch {
	case m.path == "":
		m.path = DefaultPath
	case m.path == "-":
		m.path = ""
	case !validPath(m.path):
		panic(fmt.Sprintf("metrics: Config.Path %q: want a path starting with / without spaces, or \"-\" for none", cfg.Path))
	}
	buckets := cfg.Buckets
	if len(buckets) == 0 {
		buckets = DefaultBuckets
	} else if err := checkBuckets(buckets); err != nil {
		panic("metrics: Config.Buckets: " + err.Error())
	}
	m.addr, m.addrErr = resolveAddr(cfg.Addr)
	if m.addrErr == nil && m.addr != "" && m.addr == cfg.Addr { // not overridden by PLINTH_METRICS_ADDR
		if err := checkAddr(cfg.Addr); err != nil {
			m.addrErr = fmt.Errorf("metrics: Config.Addr %q: not a listen address (host:port, such as :9090): %w", cfg.Addr, err)
		}
	}
	app.DeclareEnv(EnvAddr) // not a misspelling: see App.DeclareEnv
	if m.addr != "" || m.addrErr != nil {
		m.addrPath = m.path
		if m.addrPath == "" {
			m.addrPath = DefaultPath
		}
		m.path = "" // served on the separate address, not on the App
	}

	if m.reg == nil {
		m.reg = prometheus.NewRegistry()
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	labels := []string{labelMethod, labelRoute, labelStatus}
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_request_duration_seconds",
		Help:    "Duration of HTTP server requests, from the route's middleware to the final status.",
		Buckets: buckets,
	}, labels)
	m.reqSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_request_body_size_bytes",
		Help:    "Size of HTTP server request bodies, as declared by Content-Length (requests without one are not observed).",
		Buckets: SizeBuckets,
	}, labels)
	m.respSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_response_body_size_bytes",
		Help:    "Size of HTTP server response bodies, as written to the connection.",
		Buckets: SizeBuckets,
	}, labels)
	m.active = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "http_server_active_requests",
		Help: "Number of HTTP server requests in flight.",
	}, []string{labelMethod, labelRoute})
	ready := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "plinth_ready",
		Help: "1 when the App is ready (its readiness checks pass and it is not draining), else 0; what /readyz answers, from the same cached result.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
		defer cancel()
		if app.Ready(ctx) != nil {
			return 0
		}
		return 1
	})
	for _, c := range []prometheus.Collector{m.duration, m.reqSize, m.respSize, m.active, ready} {
		if err := m.reg.Register(c); err != nil {
			panic("metrics: Config.Registry: " + err.Error())
		}
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})

	app.Use(m.middleware)
	if m.path != "" {
		m.selfPat = http.MethodGet + " " + m.path
		app.Handle(m.selfPat, m.handler)
	}
	app.OnStart(m.start)
	if m.addr != "" {
		app.OnStop(m.stop)
	}
	return m
}

// readyTimeout bounds the readiness checks a scrape may wait for.
const readyTimeout = 5 * time.Second

// Handler returns the exposition handler: promhttp's, over the registry
// (text or protobuf by negotiation, gzip when the scraper accepts it).
func (m *Metrics) Handler() http.Handler { return m.handler }

// Registry returns the registry the series are registered on, for adding
// the program's own collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// validPath reports whether p can be the path of a route pattern.
func validPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.ContainsAny(p, " \t\r\n{}")
}

func checkBuckets(b []float64) error {
	for i, v := range b {
		if math.IsNaN(v) {
			return fmt.Errorf("bucket %d is NaN", i)
		}
		if i > 0 && v <= b[i-1] {
			return fmt.Errorf("bucket %d (%g) is not above bucket %d (%g): want strictly increasing bounds", i, v, i-1, b[i-1])
		}
	}
	return nil
}

// start is the App's OnStart hook: it makes the route table and starts the
// separate server.
func (m *Metrics) start(ctx context.Context) error {
	m.load()
	if m.addrErr != nil {
		return m.addrErr
	}
	if m.addr != "" {
		return m.listen(ctx)
	}
	return nil
}
