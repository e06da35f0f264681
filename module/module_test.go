package module_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/module"
)

// A small domain: users, payments and orders.

type UserRepo struct{ names map[int]string }

func NewUserRepo() (*UserRepo, error) { return &UserRepo{names: map[int]string{1: "ada"}}, nil }

type PaymentClient struct{ id int64 }

var clients atomic.Int64

func NewPaymentClient() (*PaymentClient, error) { return &PaymentClient{id: clients.Add(1)}, nil }

type OrderService struct {
	users *UserRepo
	pay   *PaymentClient
}

func NewOrderService(u *UserRepo, p *PaymentClient) (*OrderService, error) {
	return &OrderService{users: u, pay: p}, nil
}

type OrderController struct{ svc *OrderService }

func NewOrderController(s *OrderService) (*OrderController, error) {
	return &OrderController{svc: s}, nil
}

func (oc *OrderController) Routes(r *module.Routes) {
	r.Get("/{id}", oc.get)
	r.Post("", oc.create, module.Scope{Guards: []module.Guard{adminOnly}})
	api.Register(r.API(), api.Operation{Method: http.MethodGet, Path: "/typed/{id}", Summary: "a typed order"},
		func(_ context.Context, in *orderIn) (*orderOut, error) {
			return &orderOut{ID: in.ID, User: oc.svc.users.names[1]}, nil
		})
}

type orderIn struct {
	ID int `path:"id"`
}

type orderOut struct {
	ID   int    `json:"id"`
	User string `json:"user"`
}

func (oc *OrderController) get(c *plinth.Ctx) error {
	if c.Param("id") == "0" {
		return errFiltered
	}
	return c.Text(http.StatusOK, "order "+c.Param("id")+" for "+oc.svc.users.names[1])
}

func (oc *OrderController) create(c *plinth.Ctx) error { return c.NoContent(http.StatusCreated) }

var errFiltered = errors.New("order zero")

func adminOnly(c *plinth.Ctx) error {
	if c.Request().Header.Get("X-Role") != "admin" {
		return plinth.Forbidden("admins only")
	}
	return nil
}

func stamp(name string) plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header().Add("X-Trace", name)
			return next(c)
		}
	}
}

// modules returns a fresh users/payments/orders graph.
func modules() (users, payments, orders *module.Module) {
	users = module.New("users")
	module.Provide(users, NewUserRepo)
	module.Export[*UserRepo](users)

	payments = module.New("payments")
	module.Provide(payments, NewPaymentClient)
	module.Export[*PaymentClient](payments)

	orders = module.New("orders").SetPrefix("/orders").Import(users, payments).Use(stamp("module"))
	orders.Filter(func(c *plinth.Ctx, err error) error {
		if errors.Is(err, errFiltered) {
			return c.Text(http.StatusTeapot, "filtered")
		}
		return err
	})
	module.Provide2(orders, NewOrderService)
	module.Provide1(orders, NewOrderController)
	module.Controller[*OrderController](orders, module.ControllerConfig{Scope: module.Scope{Middleware: []plinth.Middleware{stamp("controller")}}})
	return
}

func do(t *testing.T, h http.Handler, method, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Result(), string(b)
}

func TestControllersGuardsInterceptorsFilters(t *testing.T) {
	_, _, orders := modules()
	app := plinth.New()
	doc := api.New(app, api.Config{Title: "shop", Version: "1"})
	if _, err := module.Mount(app, orders, module.MountConfig{API: doc}); err != nil {
		t.Fatal(err)
	}
	res, body := do(t, app, "GET", "/orders/7")
	if res.StatusCode != 200 || body != "order 7 for ada" {
		t.Errorf("GET /orders/7: %d %q", res.StatusCode, body)
	}
	if got := strings.Join(res.Header.Values("X-Trace"), ","); got != "module,controller" {
		t.Errorf("interceptors ran %q, want module,controller", got)
	}
	if res, _ := do(t, app, "POST", "/orders"); res.StatusCode != http.StatusForbidden {
		t.Errorf("guarded route without the role: %d", res.StatusCode)
	}
	if res, _ := do(t, app, "POST", "/orders", "X-Role", "admin"); res.StatusCode != http.StatusCreated {
		t.Errorf("guarded route with the role: %d", res.StatusCode)
	}
	if res, body := do(t, app, "GET", "/orders/0"); res.StatusCode != http.StatusTeapot || body != "filtered" {
		t.Errorf("filter: %d %q", res.StatusCode, body)
	}
	if res, body := do(t, app, "GET", "/orders/typed/5"); res.StatusCode != 200 || !strings.Contains(body, `"user":"ada"`) {
		t.Errorf("typed operation: %d %q", res.StatusCode, body)
	}
	// The OpenAPI document groups the module's operations under its tag.
	_, body = do(t, app, "GET", "/openapi.json")
	var d struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if tags := d.Paths["/orders/typed/{id}"]["get"].Tags; len(tags) != 1 || tags[0] != "orders" {
		t.Errorf("operation tags %v, want [orders]", tags)
	}
}

// What a module does not export is invisible to its importers; the error
// says where the type is hidden.
func TestUnexportedIsInvisible(t *testing.T) {
	users := module.New("users")
	module.Provide(users, NewUserRepo) // not exported
	orders := module.New("orders").Import(users)
	module.Provide1(orders, func(u *UserRepo) (*OrderController, error) { return &OrderController{}, nil })
	_, err := module.Mount(plinth.New(), orders)
	if err == nil || !strings.Contains(err.Error(), "no provider of *module_test.UserRepo is visible in module orders (users provides it but does not export it)") {
		t.Errorf("%v", err)
	}
	// Nor can a test reach it through the importer.
	users2 := module.New("users")
	module.Provide(users2, NewUserRepo)
	top := module.New("top").Import(users2)
	g, err := module.Mount(plinth.New(), top)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := module.Get[*UserRepo](g, top); err == nil {
		t.Error("an unexported provider is visible to the importer")
	}
	if u, err := module.Get[*UserRepo](g, users2); err != nil || u.names[1] != "ada" {
		t.Errorf("the module itself: %v", err)
	}
}

type A struct{}
type B struct{}
type C struct{}

func TestGraphErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		build func() *module.Module
		want  string
	}{
		"cycle": {func() *module.Module {
			m := module.New("loop")
			module.Provide1(m, func(*B) (*A, error) { return &A{}, nil })
			module.Provide1(m, func(*C) (*B, error) { return &B{}, nil })
			module.Provide1(m, func(*A) (*C, error) { return &C{}, nil })
			return m
		}, "dependency cycle: *module_test.A -> *module_test.B -> *module_test.C -> *module_test.A"},
		"missing": {func() *module.Module {
			m := module.New("m")
			module.Provide1(m, func(*B) (*A, error) { return &A{}, nil })
			return m
		}, "*module_test.A (module_test.TestGraphErrors.func"},
		"ambiguous": {func() *module.Module {
			x, y := module.New("x"), module.New("y")
			module.Provide(x, func() (*B, error) { return &B{}, nil })
			module.Provide(y, func() (*B, error) { return &B{}, nil })
			module.Export[*B](x)
			module.Export[*B](y)
			m := module.New("m").Import(x, y)
			module.Provide1(m, func(*B) (*A, error) { return &A{}, nil })
			return m
		}, "module m: *module_test.B is ambiguous: exported by x and by y"},
		"twice": {func() *module.Module {
			m := module.New("m")
			module.Value(m, &A{})
			module.Value(m, &A{})
			return m
		}, "module m provides *module_test.A twice"},
		"import cycle": {func() *module.Module {
			x, y := module.New("x"), module.New("y")
			x.Import(y)
			y.Import(x)
			return x
		}, "import cycle: x -> y -> x"},
		"export nothing": {func() *module.Module {
			m := module.New("m")
			module.Export[*A](m)
			top := module.New("top").Import(m)
			module.Provide1(top, func(*A) (*B, error) { return &B{}, nil })
			return top
		}, "module m exports *module_test.A but neither provides it nor imports a module that exports it"},
		"constructor fails": {func() *module.Module {
			m := module.New("m")
			module.Provide(m, func() (*A, error) { return nil, errors.New("no config") })
			return m
		}, "building *module_test.A"},
		"same name": {func() *module.Module {
			return module.New("top").Import(module.New("users"), module.New("users"))
		}, `two different modules are named "users"`},
	} {
		_, err := module.Mount(plinth.New(), tc.build())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to contain %q", name, err, tc.want)
		}
	}
	m := module.New("m")
	module.Value(m, &A{})
	if _, err := module.Mount(plinth.New(), m, module.MountConfig{Replace: []module.Replacement{module.Replace(&B{})}}); err == nil || !strings.Contains(err.Error(), "Replace[*module_test.B]: no module provides it") {
		t.Errorf("Replace of an unknown type: %v", err)
	}
}

// A module imported by two others is built once; a transient provider
// gives each dependent its own value.
func TestSingletonsAndTransients(t *testing.T) {
	before := clients.Load()
	users, payments, orders := modules()
	billing := module.New("billing").Import(payments, users)
	module.Provide1(billing, func(p *PaymentClient) (*B, error) { return &B{}, nil })
	top := module.New("top").Import(orders, billing)
	g, err := mountWithAPI(plinth.New(), top)
	if err != nil {
		t.Fatal(err)
	}
	if n := clients.Load() - before; n != 1 {
		t.Errorf("the payments client was built %d times, want 1", n)
	}
	svc, _ := module.Get[*OrderService](g, orders)
	pc, _ := module.Get[*PaymentClient](g, payments)
	if svc.pay != pc {
		t.Error("the service got another payments client than the module's")
	}

	m := module.New("t")
	var built atomic.Int64
	module.Provide(m, func() (*A, error) { built.Add(1); return &A{}, nil })
	module.Transient[*A](m)
	module.Provide1(m, func(a *A) (*B, error) { return &B{}, nil })
	module.Provide1(m, func(a *A) (*C, error) { return &C{}, nil })
	if _, err := module.Mount(plinth.New(), m); err != nil {
		t.Fatal(err)
	}
	if n := built.Load(); n < 2 {
		t.Errorf("transient built %d times for two dependents", n)
	}
}

// Replace swaps a provider in one line, for a test through the App.
func TestReplaceForTests(t *testing.T) {
	_, _, orders := modules()
	app := plinth.New()
	fake := &UserRepo{names: map[int]string{1: "fake user"}}
	if _, err := module.Mount(app, orders, module.MountConfig{API: api.New(app, api.Config{Title: "t", Version: "1"}), Replace: []module.Replacement{module.Replace(fake)}}); err != nil {
		t.Fatal(err)
	}
	if _, body := do(t, app, "GET", "/orders/1"); body != "order 1 for fake user" {
		t.Errorf("%q", body)
	}
}

type lifecycleProbe struct {
	name string
	log  *[]string
	fail bool
	mu   *sync.Mutex
}

func (p *lifecycleProbe) OnStart(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.log = append(*p.log, "start "+p.name)
	if p.fail {
		return errors.New(p.name + " cannot start")
	}
	return nil
}

func (p *lifecycleProbe) OnStop(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.log = append(*p.log, "stop "+p.name)
	return nil
}

type dbProbe struct{ *lifecycleProbe }
type cacheProbe struct{ *lifecycleProbe }

func lifecycleGraph(log *[]string, mu *sync.Mutex, failCache bool) *module.Module {
	infra := module.New("infra")
	module.Provide(infra, func() (*dbProbe, error) { return &dbProbe{&lifecycleProbe{"db", log, false, mu}}, nil })
	module.Export[*dbProbe](infra)
	infra.OnStart(func(context.Context) error {
		mu.Lock()
		*log = append(*log, "start infra hook")
		mu.Unlock()
		return nil
	})
	infra.OnStop(func(context.Context) error {
		mu.Lock()
		*log = append(*log, "stop infra hook")
		mu.Unlock()
		return nil
	})
	app := module.New("app").Import(infra)
	module.Provide1(app, func(*dbProbe) (*cacheProbe, error) {
		return &cacheProbe{&lifecycleProbe{"cache", log, failCache, mu}}, nil
	})
	return app
}

// Start in dependency order before serving, stop in reverse after the
// drain; a failing start stops start-up and stops what had started.
func TestLifecycle(t *testing.T) {
	var log []string
	var mu sync.Mutex
	app := plinth.Bare()
	if _, err := module.Mount(app, lifecycleGraph(&log, &mu, false)); err != nil {
		t.Fatal(err)
	}
	serveAndStop(t, app, nil)
	want := "start db,start infra hook,start cache,stop cache,stop infra hook,stop db"
	if got := strings.Join(log, ","); got != want {
		t.Errorf("lifecycle:\n got %s\nwant %s", got, want)
	}

	log = nil
	app = plinth.Bare()
	if _, err := module.Mount(app, lifecycleGraph(&log, &mu, true)); err != nil {
		t.Fatal(err)
	}
	serveAndStop(t, app, errors.New("cache cannot start"))
	want = "start db,start infra hook,start cache,stop infra hook,stop db"
	if got := strings.Join(log, ","); got != want {
		t.Errorf("failed start:\n got %s\nwant %s", got, want)
	}
}

// A module cannot change or be mounted again once mounted.
func TestMountedOnce(t *testing.T) {
	_, _, orders := modules()
	if _, err := mountWithAPI(plinth.New(), orders); err != nil {
		t.Fatal(err)
	}
	if _, err := mountWithAPI(plinth.New(), orders); err == nil {
		t.Error("mounted twice")
	}
	defer func() {
		if recover() == nil {
			t.Error("a mounted module accepted a new import")
		}
	}()
	orders.Import(module.New("late"))
}

// Concurrent requests through a module share its singletons safely.
func TestConcurrentRequests(t *testing.T) {
	_, _, orders := modules()
	app := plinth.New()
	if _, err := mountWithAPI(app, orders); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	defer srv.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				res, err := http.Get(srv.URL + "/orders/3")
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("%d", res.StatusCode)
				}
			}
		})
	}
	wg.Wait()
}

func mountWithAPI(app *plinth.App, root *module.Module) (*module.Graph, error) {
	return module.Mount(app, root, module.MountConfig{API: api.New(app, api.Config{Title: "t", Version: "1"})})
}
