package bench

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/module"
	"github.com/plinth-go/plinth/racetest"
	"github.com/samber/do/v2"
	"go.uber.org/fx"
)

// The module package (plinth/module) against wiring by hand and against
// two dependency-injection containers, go.uber.org/fx and samber/do v2:
//
//   - per request: GET /items/{id} answered by a controller's method
//     behind a guard and an interceptor, the App built four ways. The
//     containers and the module graph run at startup only, so the four
//     should cost the same per request.
//   - at startup: declaring and resolving a graph of 1,000 providers
//     (modules_gen_test.go, written by cmd/modgen).

// itemController is the handler's owner, the value the containers
// provide.
type itemController struct{ reply string }

func newItemController() (*itemController, error) { return &itemController{reply: "pong"}, nil }

// Routes registers the controller as a module controller.
func (ic *itemController) Routes(r *module.Routes) { r.Get("/{id}", ic.get) }

func (ic *itemController) get(c *plinth.Ctx) error { return c.Text(http.StatusOK, ic.reply) }

// itemGuard lets every request through.
func itemGuard(*plinth.Ctx) error { return nil }

// itemInterceptor passes the request on.
func itemInterceptor(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error { return next(c) }
}

// guardMiddleware is itemGuard as native middleware, as an App without
// modules would register it.
func guardMiddleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		if err := itemGuard(c); err != nil {
			return err
		}
		return next(c)
	}
}

// registerItems puts ic's route on app below /items with the guard and
// the interceptor: the wiring of the direct, fx and do apps.
func registerItems(app *plinth.App, ic *itemController) {
	g := app.Group("/items")
	g.Use(guardMiddleware, itemInterceptor)
	g.Get("/{id}", ic.get)
}

// itemsViaModule serves the route through a module with the guard, the
// interceptor and the controller.
func itemsViaModule(tb testing.TB) *plinth.App {
	app := plinth.New()
	m := module.New("items").SetPrefix("/items").Guard(itemGuard).Use(itemInterceptor)
	module.Provide(m, newItemController)
	module.Controller[*itemController](m)
	if _, err := module.Mount(app, m); err != nil {
		tb.Fatal(err)
	}
	app.Build()
	return app
}

// itemsDirect registers the same on the App by hand.
func itemsDirect(tb testing.TB) *plinth.App {
	app := plinth.New()
	ic, err := newItemController()
	if err != nil {
		tb.Fatal(err)
	}
	registerItems(app, ic)
	app.Build()
	return app
}

// itemsViaFx wires the same with fx: the App and the controller are
// provided, an invoke registers the route.
func itemsViaFx(tb testing.TB) *plinth.App {
	var app *plinth.App
	fxApp := fx.New(
		fx.NopLogger,
		fx.Provide(plinth.New, newItemController),
		fx.Invoke(func(a *plinth.App, ic *itemController) { registerItems(a, ic); app = a }),
	)
	if err := fxApp.Err(); err != nil {
		tb.Fatal(err)
	}
	app.Build()
	return app
}

// itemsViaDo wires the same with samber/do v2.
func itemsViaDo(tb testing.TB) *plinth.App {
	i := do.New()
	do.ProvideValue(i, plinth.New())
	do.Provide(i, func(do.Injector) (*itemController, error) { return newItemController() })
	app := do.MustInvoke[*plinth.App](i)
	registerItems(app, do.MustInvoke[*itemController](i))
	app.Build()
	return app
}

// itemApps are the four builds of the same App.
var itemApps = []struct {
	name  string
	build func(testing.TB) *plinth.App
}{
	{"module", itemsViaModule},
	{"direct", itemsDirect},
	{"fx", itemsViaFx},
	{"do", itemsViaDo},
}

func benchItems(b *testing.B, build func(testing.TB) *plinth.App) {
	benchServe(b, build(b), httptest.NewRequest(http.MethodGet, "/items/42", nil), http.StatusOK)
}

// BenchmarkModuleRoute serves GET /items/{id} through a module, a
// controller, a guard and an interceptor.
func BenchmarkModuleRoute(b *testing.B) { benchItems(b, itemsViaModule) }

// BenchmarkModuleDirect serves the same handler, guard and interceptor
// registered directly on the App.
func BenchmarkModuleDirect(b *testing.B) { benchItems(b, itemsDirect) }

// BenchmarkModuleFx serves the same App wired by go.uber.org/fx.
func BenchmarkModuleFx(b *testing.B) { benchItems(b, itemsViaFx) }

// BenchmarkModuleDo serves the same App wired by samber/do v2.
func BenchmarkModuleDo(b *testing.B) { benchItems(b, itemsViaDo) }

// The four builds answer the same and allocate the same per request.
func TestModuleAppsAgree(t *testing.T) {
	var want float64
	for k, a := range itemApps {
		app := a.build(t)
		req := httptest.NewRequest(http.MethodGet, "/items/42", nil)
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.String() != "pong" {
			t.Errorf("%s: %d %q", a.name, rec.Code, rec.Body.String())
		}
		if racetest.Enabled {
			continue // allocation counts mean nothing under -race; the plain run checks them
		}
		allocs := testing.AllocsPerRun(200, func() {
			clear(rec.Header())
			rec.Body.Reset()
			app.ServeHTTP(rec, req)
		})
		if k == 0 {
			want = allocs
		} else if allocs != want {
			t.Errorf("%s: %v allocations per request, the module build %v", a.name, allocs, want)
		}
	}
}

// BenchmarkModuleStartup1000 declares and resolves the generated graph of
// 1,000 providers (each depends on the one before it and on the one at
// half its index) with the module package, fx and do. An op: a new App,
// the 1,000 declarations and the construction of all 1,000 values (Mount
// builds every provider; fx and do build the graph's top, which needs all
// the others).
func BenchmarkModuleStartup1000(b *testing.B) {
	b.Run("module", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startModule(b)
		}
	})
	b.Run("fx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startFx(b)
		}
	})
	b.Run("do", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startDo(b)
		}
	})
}

func startModule(tb testing.TB) *graphTop {
	app := plinth.New()
	m := module.New("graph")
	provideGraph(m)
	g, err := module.Mount(app, m)
	if err != nil {
		tb.Fatal(err)
	}
	top, err := module.Get[*graphTop](g, m)
	if err != nil {
		tb.Fatal(err)
	}
	return top
}

func startFx(tb testing.TB) *graphTop {
	var top *graphTop
	app := fx.New(fx.NopLogger, fx.Provide(plinth.New), fxGraph(),
		fx.Invoke(func(_ *plinth.App, t *graphTop) { top = t }))
	if err := app.Err(); err != nil {
		tb.Fatal(err)
	}
	return top
}

func startDo(tb testing.TB) *graphTop {
	i := do.New()
	do.ProvideValue(i, plinth.New())
	provideDo(i)
	do.MustInvoke[*plinth.App](i)
	top, err := do.Invoke[*graphTop](i)
	if err != nil {
		tb.Fatal(err)
	}
	return top
}

// The three containers build the whole generated graph: every value is
// there, with its dependencies.
func TestModuleStartupGraphs(t *testing.T) {
	for name, start := range map[string]func(testing.TB) *graphTop{
		"module": startModule, "fx": startFx, "do": startDo,
	} {
		// Follow the a fields (ti.a is t(i-1)) down to t0.
		depth := 0
		for v := reflect.ValueOf(start(t)); !v.IsNil(); depth++ {
			if v.Elem().NumField() == 0 {
				depth++
				break
			}
			v = v.Elem().Field(0)
		}
		if depth != graphSize {
			t.Errorf("%s: a chain of %d values below the top, want %d", name, depth, graphSize)
		}
	}
}
