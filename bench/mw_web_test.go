package bench

// Benchmarks of the web middleware of package middleware (CORS, RealIP,
// AccessLog), each installed with Use on plinth.Bare() serving one
// minimal GET route ("Hello, World!"), so that the figure over
// BenchmarkWebBaseline is the middleware's own cost. Run:
//
//	cd bench && go test -run '^$' -bench 'WebBaseline|CORS|RealIP|AccessLog' -benchmem -benchtime 200ms -count 5
//
// The figures (and the machine: a noisy 2-core shared VM) are in
// docs/middleware.md.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/middleware"
)

// benchWeb serves req on a Bare App with mw (if any) around the minimal
// route, checks the status once, then times it.
func benchWeb(b *testing.B, app *plinth.App, mw plinth.Middleware, req *http.Request, status int) {
	b.Helper()
	if mw != nil {
		app.Use(mw)
	}
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, suite.Hello) })
	app.Build()
	benchServe(b, app, req, status)
}

func webRequest(method string, hdr ...string) *http.Request {
	r := httptest.NewRequest(method, "/", nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	return r
}

// BenchmarkWebBaseline is the route alone, the reference for the others.
func BenchmarkWebBaseline(b *testing.B) {
	benchWeb(b, plinth.Bare(), nil, webRequest("GET"), 200)
}

func BenchmarkCORS(b *testing.B) {
	cfg := middleware.CORSConfig{
		AllowedOrigins:   []string{"https://app.example", "https://*.example.com"},
		AllowedMethods:   []string{"GET", "POST", "PUT", "DELETE"},
		AllowedHeaders:   []string{"Content-Type", "Authorization"},
		ExposedHeaders:   []string{"X-Request-Id"},
		AllowCredentials: true,
	}
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"no-origin", webRequest("GET"), 200},
		{"simple-exact", webRequest("GET", "Origin", "https://app.example"), 200},
		{"simple-wildcard", webRequest("GET", "Origin", "https://api.example.com"), 200},
		{"simple-disallowed", webRequest("GET", "Origin", "https://evil.example"), 200},
		{"preflight", webRequest("OPTIONS", "Origin", "https://app.example", "Access-Control-Request-Method", "PUT",
			"Access-Control-Request-Headers", "authorization,content-type"), 204},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			benchWeb(b, plinth.Bare(), middleware.CORS(cfg), tc.req, tc.status)
		})
	}
}

func BenchmarkRealIP(b *testing.B) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     string
	}{
		{"peer", nil, "192.0.2.1:1234", ""},
		{"untrusted-peer", trusted, "192.0.2.1:1234", "198.51.100.7"},
		{"forwarded", trusted, "10.0.0.1:1234", "198.51.100.7, 10.0.0.2"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			app := plinth.Bare()
			app.TrustedProxies = tc.trusted
			req := webRequest("GET")
			req.RemoteAddr = tc.peer
			if tc.xff != "" {
				req.Header.Set("X-Forwarded-For", tc.xff)
			}
			benchWeb(b, app, middleware.RealIP(), req, 200)
		})
	}
}

// webNopHandler is enabled at every level and drops records: AccessLog's
// own cost without a handler's formatting.
type webNopHandler struct{}

func (webNopHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (webNopHandler) Handle(context.Context, slog.Record) error { return nil }
func (h webNopHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h webNopHandler) WithGroup(string) slog.Handler           { return h }

func BenchmarkAccessLog(b *testing.B) {
	cases := []struct {
		name   string
		logger *slog.Logger
	}{
		{"disabled", slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1}))},
		{"enabled-nop", slog.New(webNopHandler{})},
		{"enabled-json-discard", slog.New(slog.NewJSONHandler(io.Discard, nil))},
		{"enabled-text-discard", slog.New(slog.NewTextHandler(io.Discard, nil))},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			req := webRequest("GET", "User-Agent", "bench/1")
			req.RemoteAddr = "192.0.2.1:1234"
			benchWeb(b, plinth.Bare(), middleware.AccessLog(middleware.AccessLogConfig{Logger: tc.logger}), req, 200)
		})
	}
}
