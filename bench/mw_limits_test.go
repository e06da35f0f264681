package bench

// Benchmarks of the limit middleware of package middleware
// (ConcurrencyLimiter, RateLimiter, Maintenance), each installed with Use on
// plinth.Bare() serving one minimal GET route ("Hello, World!"), so that the
// figure over BenchmarkLimits/baseline is the middleware's own cost. Run:
//
//	cd bench && go test -run '^$' -bench 'Limits' -benchmem -benchtime 200ms -count 5
//
// The figures (and the machine: a noisy 2-core shared VM) are in
// docs/middleware.md and in the middleware's doc comments.

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/middleware"
)

// limitsApp returns a Bare App with mw (if any) around the minimal route.
func limitsApp(mw plinth.Middleware) *plinth.App {
	app := plinth.Bare()
	// Refusals are 5xx/4xx problems; keep the App's error log out of the
	// timing.
	app.Logger = slog.New(slog.DiscardHandler)
	if mw != nil {
		app.Use(mw)
	}
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, suite.Hello) })
	app.Build()
	return app
}

// benchLimits serves GET / from one client, checks the status once, then
// times it.
func benchLimits(b *testing.B, mw plinth.Middleware, status int) {
	app := limitsApp(mw)
	req := httptest.NewRequest("GET", "/", nil)
	app.ServeHTTP(suite.NewResponseWriter(false), req) // the rate-limited cases refuse from the second request on
	benchServe(b, app, req, status)
}

// benchLimitsParallel is benchLimits from GOMAXPROCS goroutines at once,
// all as the same client: the contended case.
func benchLimitsParallel(b *testing.B, mw plinth.Middleware, status int) {
	app := limitsApp(mw)
	w := suite.NewResponseWriter(false)
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Status() != status {
		b.Fatalf("status %d, want %d", w.Status(), status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest("GET", "/", nil)
		w := suite.NewResponseWriter(false)
		for pb.Next() {
			w.Reset()
			app.ServeHTTP(w, req)
		}
	})
}

// alwaysAllowed is a limit that a single client cannot exhaust: a token per
// nanosecond refills the 100-token bucket faster than requests come, so each
// request is allowed with the bucket nearly full (RateLimit: r=99;t=1).
var alwaysAllowed = middleware.Limit{Rate: 1_000_000_000, Per: time.Second, Burst: 100}

func BenchmarkLimits(b *testing.B) {
	b.Run("baseline", func(b *testing.B) { benchLimits(b, nil, 200) })
	b.Run("concurrency", func(b *testing.B) {
		benchLimits(b, middleware.NewConcurrencyLimiter(middleware.ConcurrencyLimiterConfig{Max: 64}).Middleware(), 200)
	})
	b.Run("concurrency-shed", func(b *testing.B) {
		// Max 1 with the only slot held: every request is refused at once.
		l := middleware.NewConcurrencyLimiter(middleware.ConcurrencyLimiterConfig{Max: 1, MaxWait: -1})
		hold := make(chan struct{})
		app := limitsApp(l.Middleware())
		held := make(chan struct{})
		go func() {
			app2 := plinth.Bare()
			app2.Use(l.Middleware())
			app2.Get("/", func(c *plinth.Ctx) error { close(held); <-hold; return nil })
			app2.ServeHTTP(suite.NewResponseWriter(false), httptest.NewRequest("GET", "/", nil))
		}()
		<-held
		defer close(hold)
		req := httptest.NewRequest("GET", "/", nil)
		w := suite.NewResponseWriter(false)
		app.ServeHTTP(w, req)
		if w.Status() != 503 {
			b.Fatalf("status %d, want 503", w.Status())
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			w.Reset()
			app.ServeHTTP(w, req)
		}
	})
	b.Run("ratelimit", func(b *testing.B) {
		benchLimits(b, middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: alwaysAllowed}).Middleware(), 200)
	})
	b.Run("ratelimit-noheaders", func(b *testing.B) {
		benchLimits(b, middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: alwaysAllowed, OmitHeaders: true}).Middleware(), 200)
	})
	b.Run("ratelimit-refused", func(b *testing.B) {
		lim := middleware.Limit{Rate: 1, Per: time.Hour, Burst: 1}
		benchLimits(b, middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: lim}).Middleware(), 429)
	})
	b.Run("maintenance-off", func(b *testing.B) {
		benchLimits(b, middleware.NewMaintenance(middleware.MaintenanceConfig{}).Middleware(), 200)
	})
	b.Run("maintenance-on", func(b *testing.B) {
		m := middleware.NewMaintenance(middleware.MaintenanceConfig{Logger: slog.New(slog.DiscardHandler)})
		m.Enable(time.Minute)
		benchLimits(b, m.Middleware(), 503)
	})
	b.Run("parallel/baseline", func(b *testing.B) { benchLimitsParallel(b, nil, 200) })
	b.Run("parallel/concurrency", func(b *testing.B) {
		benchLimitsParallel(b, middleware.NewConcurrencyLimiter(middleware.ConcurrencyLimiterConfig{Max: 64}).Middleware(), 200)
	})
	b.Run("parallel/ratelimit", func(b *testing.B) {
		benchLimitsParallel(b, middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: alwaysAllowed}).Middleware(), 200)
	})
}
