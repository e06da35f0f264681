package data

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// Attach adds nothing to a request that does not fail: the error handler
// wrapper runs only on errors, the readiness check only on probes.
func TestAttachAddsNoAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are not exact under the race detector (sync.Pool drops items at random); the run without -race checks them")
	}
	db := openTest(t, Config{URL: "sqlite::memory:"})
	measure := func(attach bool) float64 {
		app := plinth.New()
		if attach {
			db.Attach(app)
		}
		app.Get("/", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, "ok") })
		app.Build()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		w := httptest.NewRecorder()
		return testing.AllocsPerRun(200, func() {
			clear(w.Header())
			app.ServeHTTP(w, req)
		})
	}
	without, with := measure(false), measure(true)
	if with > without {
		t.Errorf("Attach adds allocations: %v per request, %v without", with, without)
	}
}
