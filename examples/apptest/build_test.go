package apptest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/plinth-go/plinth"
)

// Build composes the App as the first request would. Registration mistakes
// (a route conflict, a bad pattern) panic in NewApp and composition ones
// (a bad PLINTH_* variable read at Build) panic here: in go test, not at the
// first request in production.
func TestAppBuilds(t *testing.T) {
	app := NewApp()
	app.Build()
	var patterns []string
	for _, r := range app.Routes() {
		patterns = append(patterns, r.Pattern)
	}
	for _, want := range []string{"GET /hello/{name}", "POST /accounts"} {
		if !slices.Contains(patterns, want) {
			t.Errorf("route %q missing from %q", want, patterns)
		}
	}
}

// Middleware can be tested alone on plinth.Bare(), an App that only routes.
func TestVersion(t *testing.T) {
	app := plinth.Bare()
	app.Use(Version("7"))
	app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(http.StatusNoContent) })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusNoContent || rec.Header().Get("Api-Version") != "7" {
		t.Fatalf("got %d, Api-Version %q", rec.Code, rec.Header().Get("Api-Version"))
	}
	// Bare adds nothing else: no request ID, no security headers.
	if id := rec.Header().Get("X-Request-Id"); id != "" {
		t.Errorf("X-Request-Id %q from Bare", id)
	}
}
