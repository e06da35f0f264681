package module_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/module"

	"github.com/plinth-go/plinth/racetest"
)

type pingController struct{}

func (pingController) Routes(r *module.Routes) { r.Get("/{id}", ping) }

func ping(c *plinth.Ctx) error { return c.Text(http.StatusOK, "pong") }

func allowAll(*plinth.Ctx) error { return nil }

func passThrough(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error { return next(c) }
}

// viaModule serves GET /items/{id} through a module with a guard, an
// interceptor and a controller; direct is the same handler, guard and
// interceptor registered on the App.
func viaModule(tb testing.TB) *plinth.App {
	app := plinth.New()
	m := module.New("items").SetPrefix("/items").Guard(allowAll).Use(passThrough)
	module.Value(m, pingController{})
	module.Controller[pingController](m)
	if _, err := module.Mount(app, m); err != nil {
		tb.Fatal(err)
	}
	app.Build()
	return app
}

func direct() *plinth.App {
	app := plinth.New()
	g := app.Group("/items")
	g.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			if err := allowAll(c); err != nil {
				return err
			}
			return next(c)
		}
	}, passThrough)
	g.Get("/{id}", ping)
	app.Build()
	return app
}

// A route reached through a module, controller, guard and interceptor
// allocates exactly what the same handler with the same guard and
// interceptor registered directly allocates.
func TestModuleRouteAllocations(t *testing.T) {
	if racetest.Enabled {
		// sync.Pool drops items at random under the race detector: the
		// two counts below then differ by chance (seen in .ci/run).
		t.Skip("allocation counts are not meaningful under -race")
	}
	measure := func(app *plinth.App) float64 {
		req := httptest.NewRequest(http.MethodGet, "/items/42", nil)
		w := httptest.NewRecorder()
		return testing.AllocsPerRun(500, func() {
			clear(w.Header())
			w.Body.Reset()
			app.ServeHTTP(w, req)
		})
	}
	mod, dir := measure(viaModule(t)), measure(direct())
	if mod != dir {
		t.Errorf("through the module %v allocations per request, directly %v", mod, dir)
	}
	t.Logf("allocations per request: module %v, direct %v", mod, dir)
}
