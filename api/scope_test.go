package api_test

import (
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// TestGroupSharesThePrefixScope: an API-key check added to the
// plinth group "/api/v1" wraps the typed operations registered through an
// api.Group on the same prefix, and the prefix's 404 demands it too.
func TestGroupSharesThePrefixScope(t *testing.T) {
	app := plinth.Bare()
	app.Group("/api/v1").Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			if c.Request().Header.Get("X-Api-Key") != "k" {
				return plinth.Unauthorized("API key required")
			}
			return next(c)
		}
	})
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	api.Register(a.Group("/api/v1"), api.Operation{Method: "GET", Path: "/items"}, noop)
	for _, path := range []string{"/api/v1/items", "/api/v1/missing"} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 401 {
			t.Errorf("GET %s without the key: %d, want 401", path, rec.Code)
		}
	}
	req := httptest.NewRequest("GET", "/api/v1/items", nil)
	req.Header.Set("X-Api-Key", "k")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 204 {
		t.Errorf("with the key: %d, want 204", rec.Code)
	}
}
