package plinthtest_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/plinthtest"

	"github.com/plinth-go/plinth/racetest"
)

// jsonApp answers a JSON request with JSON, as bench/'s scenario does.
func jsonApp() *plinth.App {
	app := plinth.New()
	app.Post("/echo", func(c *plinth.Ctx) error {
		return c.JSON(200, map[string]string{"message": "Hello, World!"})
	})
	return app
}

// TestAllocationBudget: the in-process client adds at most 2 allocations
// per request over httptest.NewRequest, httptest.NewRecorder and
// app.ServeHTTP, for a JSON request. The OpenAPI check is on
// (the App has no document: the check costs the lookup only).
func TestAllocationBudget(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under -race (sync.Pool); the plain run checks them")
	}
	app := jsonApp()
	const body = `{"name":"Ada"}`
	base := testing.AllocsPerRun(200, func() {
		req := httptest.NewRequest("POST", "/echo", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
	})
	c := plinthtest.New(t, app, plinthtest.Config{})
	got := testing.AllocsPerRun(200, func() {
		c.PostJSON("/echo", body).Status(200)
	})
	t.Logf("httptest: %v allocs/request, plinthtest: %v", base, got)
	if got > base+2 {
		t.Errorf("plinthtest: %v allocs/request, httptest %v: more than 2 over", got, base)
	}
}
