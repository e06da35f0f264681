package plinth_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// discardWriter is a ResponseWriter that allocates nothing, so that
// AllocsPerRun counts the router's allocations only.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header               { return w.h }
func (w *discardWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *discardWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *discardWriter) WriteHeader(int)                   {}

// TestAllocationBudgets pins the allocations per request of the hot paths.
// They are exact and deterministic; raising one is a deliberate decision.
func TestAllocationBudgets(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race; `go test ./...` checks them")
	}
	type account struct {
		ID      int     `json:"id"`
		Name    string  `json:"name"`
		Email   string  `json:"email"`
		Active  bool    `json:"active"`
		Balance float64 `json:"balance"`
	}
	app := plinth.Bare()
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") })
	app.Get("/accounts/{id}", func(c *plinth.Ctx) error {
		id, err := strconv.Atoi(c.Param("id"))
		if err != nil {
			return plinth.BadRequest("id must be a number")
		}
		acct := account{ID: id, Name: "Ada", Email: "ada@example.com", Active: true, Balance: 12.5}
		return c.JSON(200, &acct)
	})
	app.Get("/repos/{owner}/{repo}/git/refs/{ref...}", func(c *plinth.Ctx) error {
		_ = c.Param("owner") + c.Param("ref")
		return c.NoContent(204)
	})
	app.Get("/fail", func(c *plinth.Ctx) error { return plinth.BadRequest("no") })
	app.Get("/q", func(c *plinth.Ctx) error { return c.Text(200, c.Query("page")) })
	page := []byte("<!DOCTYPE html><title>x</title>")
	app.Get("/bytes-html", func(c *plinth.Ctx) error { return c.Bytes(200, "text/html; charset=utf-8", page) })
	api := app.Group("/api")
	api.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error { return next(c) }
	})
	api.Get("/users/{id}", func(c *plinth.Ctx) error { return c.Text(200, c.Param("id")) })
	app.HandleFunc("GET /plain/{id}", func(w http.ResponseWriter, r *http.Request) { _ = r.PathValue("id") })
	app.HandleFunc("GET /plainstatic", func(w http.ResponseWriter, r *http.Request) {})
	std := app.Group("/std")
	std.UseHTTP(func(next http.Handler) http.Handler { return next })
	std.Get("/x", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Build()

	for _, tc := range []struct {
		name, method, target string
		budget               float64
	}{
		{"static", "GET", "/", 0},
		// encoding/json takes an interface: the value escapes (1).
		{"param-json", "GET", "/accounts/42", 1},
		{"catch-all", "GET", "/repos/golang/go/git/refs/heads/master", 0},
		{"query", "GET", "/q?page=3", 0},
		{"bytes-html", "GET", "/bytes-html", 0},
		{"group-native-middleware", "GET", "/api/users/7", 0},
		{"head-for-get", "HEAD", "/accounts/42", 1},
		{"not-found", "GET", "/no/such/path", 0},
		{"method-not-allowed", "DELETE", "/accounts/42", 0},
		{"options", "OPTIONS", "/accounts/42", 0},
		// The *Problem the handler returns (1); rendering it is free.
		{"error-problem", "GET", "/fail", 1},
		// Plain handlers: the request copy and context value that carry the
		// Ctx (2), plus net/http's path value map for wildcards (2).
		{"plain-static", "GET", "/plainstatic", 2},
		{"plain-param", "GET", "/plain/1", 4},
		{"std-middleware", "GET", "/std/x", 2},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		w := &discardWriter{h: http.Header{}}
		got := testing.AllocsPerRun(200, func() {
			clear(w.h)
			app.ServeHTTP(w, req)
		})
		if got != tc.budget {
			t.Errorf("%s: %v allocs/request, budget %v", tc.name, got, tc.budget)
		}
	}

	// A request with a body under a 2 MiB limit: the request copy that
	// carries the body, and the body reader that enforces the limit, paces
	// the reads and marks their errors (2), also when served by Serve.
	limited := plinth.Bare()
	limited.SetBodyLimit(2 << 20)
	limited.Post("/in", func(c *plinth.Ctx) error { return c.NoContent(204) })
	limited.Build()
	w := &discardWriter{h: http.Header{}}
	body := strings.NewReader("x")
	req := httptest.NewRequest("POST", "/in", body)
	if got := testing.AllocsPerRun(200, func() {
		clear(w.h)
		body.Reset("x")
		req.Body = io.NopCloser(body)
		limited.ServeHTTP(w, req)
	}); got != 3 {
		t.Errorf("post-with-body: %v allocs/request, budget 3 (2 + the test's NopCloser)", got)
	}
}

// TestDefaultStackAllocations pins what New's default layer (recovery,
// request ID, security headers, handler timeout) adds to a minimal route over
// Bare: nothing, amortized. Generated request IDs are cut from a block that
// serves 32 requests (TestRequestIDAllocations counts that exactly), and the
// timeout's context is reused by the next request when the handler never
// took it (Ctx.Context, Ctx.Request); the request copy carrying that
// context is made only for handlers that ask for the request
// (TestTimeoutDeadlineEverywhere). The ceiling is 3.
func TestDefaultStackAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	hello := func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") }
	bare, full := plinth.Bare(), plinth.New()
	bare.Get("/", hello)
	full.Get("/", hello)
	measure := func(app *plinth.App, id string) float64 {
		req := httptest.NewRequest("GET", "/", nil)
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		w := &discardWriter{h: http.Header{}}
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			app.ServeHTTP(w, req)
		})
	}
	if b, f := measure(bare, ""), measure(full, ""); f-b != 0 {
		t.Errorf("default layer with a generated ID adds %v allocations (bare %v, New %v), want 0 (amortized)", f-b, b, f)
	}
	if b, f := measure(bare, "abc-123"), measure(full, "abc-123"); f-b != 0 {
		t.Errorf("default layer with an incoming ID adds %v allocations, want 0", f-b)
	}
}
