package plinth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

var fourHeaders = plinth.SecurityHeaders{
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "SAMEORIGIN",
	"Referrer-Policy":         "no-referrer",
	"Content-Security-Policy": "default-src 'self'",
}

func layeredApp(logs *bytes.Buffer) *plinth.App {
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewTextHandler(logs, nil))
	app.Use(plinth.Recover(), plinth.RequestID(), plinth.Security(fourHeaders), plinth.Timeout(time.Minute))
	app.Get("/ok", func(c *plinth.Ctx) error { return c.Text(200, c.RequestID()) })
	app.Get("/boom", func(c *plinth.Ctx) error { panic("kaboom") })
	app.Get("/deadline", func(c *plinth.Ctx) error {
		dl, ok := c.Context().Deadline()
		if !ok {
			return c.Text(200, "none")
		}
		return c.Text(200, time.Until(dl).Round(time.Minute).String())
	})
	return app
}

func TestStandaloneLayers(t *testing.T) {
	var logs bytes.Buffer
	app := layeredApp(&logs)
	for _, path := range []string{"/ok", "/missing"} {
		rec := serve(app, "GET", path)
		// A set given whole is sent as given, on documents or not.
		for k, v := range fourHeaders {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("GET %s: %s = %q, want %q", path, k, got, v)
			}
		}
		if rec.Header().Get("Cross-Origin-Opener-Policy") != "" {
			t.Errorf("GET %s: a header outside the given set was written", path)
		}
		id := rec.Header().Get("X-Request-Id")
		if len(id) != 26 {
			t.Errorf("GET %s: X-Request-Id %q, want a generated 26-character ID", path, id)
		}
		if path == "/ok" && rec.Body.String() != id {
			t.Errorf("handler saw request ID %q, response carries %q", rec.Body, id)
		}
	}
	rec := serve(app, "GET", "/boom")
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), rec.Header().Get("X-Request-Id")) {
		t.Errorf("panic: %d %q, want a 500 problem carrying the request ID", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "kaboom") {
		t.Errorf("the panic was not logged: %q", logs.String())
	}
	if rec := serve(app, "GET", "/deadline"); rec.Body.String() != "1m0s" {
		t.Errorf("handler deadline %q, want about a minute", rec.Body)
	}
}

// A Timeout layer inside New's default timeout: the earlier deadline wins,
// whichever layer sets it, and the outer timeout still works after the inner
// one has returned.
func TestNestedTimeouts(t *testing.T) {
	app := timeoutApp(time.Hour)
	inner := app.Group("/short")
	inner.Use(plinth.Timeout(30 * time.Millisecond))
	inner.Get("/wait", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		if !errors.Is(c.Context().Err(), context.DeadlineExceeded) {
			t.Errorf("inner deadline: context ended with %v", c.Context().Err())
		}
		return nil
	})
	app.Get("/deadline", func(c *plinth.Ctx) error {
		dl, _ := c.Context().Deadline()
		return c.Text(200, time.Until(dl).Round(time.Hour).String())
	})
	outerShort := timeoutApp(30 * time.Millisecond)
	long := outerShort.Group("/long")
	long.Use(plinth.Timeout(time.Hour))
	long.Get("/wait", func(c *plinth.Ctx) error {
		<-c.Context().Done() // must end at the outer 30ms deadline
		return nil
	})
	if rec := serve(app, "GET", "/short/wait"); rec.Code != 503 {
		t.Errorf("inner timeout: %d %q, want 503", rec.Code, rec.Body)
	}
	if rec := serve(app, "GET", "/deadline"); rec.Body.String() != "1h0m0s" {
		t.Errorf("after a nested timeout, the next request's deadline is %q, want 1h", rec.Body)
	}
	if rec := serve(outerShort, "GET", "/long/wait"); rec.Code != 503 {
		t.Errorf("outer timeout shorter than the inner one: %d, want 503", rec.Code)
	}
}

func TestStandaloneLayerAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	hello := func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") }
	bare := plinth.Bare()
	bare.Get("/", hello)
	for _, tc := range []struct {
		name  string
		layer plinth.Middleware
		want  float64
	}{
		{"Recover", plinth.Recover(), 0},
		// Amortized: an allocation per 32 generated IDs (TestRequestIDAllocations).
		{"RequestID", plinth.RequestID(), 0},
		{"Security", plinth.Security(fourHeaders), 0},
		// The context is reused when the handler does not take it.
		{"Timeout", plinth.Timeout(time.Minute), 0},
	} {
		app := plinth.Bare()
		app.Use(tc.layer)
		app.Get("/", hello)
		measure := func(a *plinth.App) float64 {
			req := httptest.NewRequest("GET", "/", nil)
			w := &discardWriter{h: http.Header{}}
			return testing.AllocsPerRun(200, func() {
				clear(w.h)
				a.ServeHTTP(w, req)
			})
		}
		if got := measure(app) - measure(bare); got != tc.want {
			t.Errorf("%s adds %v allocations, want %v", tc.name, got, tc.want)
		}
	}
}
