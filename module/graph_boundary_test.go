package module_test

// Boundary tests from mutation testing: each test pins
// a decision that a mutant of module's code flipped without any other test
// noticing (a scope with one kind of layer only, the second of two guards,
// a lifecycle value with only a start or only a stop, a missing provider's
// message, mounting below a group).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/module"
)

// boundCtrl answers GET /{id} with "got" and registers the route scope it
// is given on POST "".
type boundCtrl struct{ route module.Scope }

func (bc *boundCtrl) Routes(r *module.Routes) {
	r.Get("/{id}", func(c *plinth.Ctx) error { return c.Text(200, "got") })
	r.Post("", func(c *plinth.Ctx) error { return errors.New("handler failed") }, bc.route)
}

func boundDo(t *testing.T, h http.Handler, method, target string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w.Code, w.Body.String()
}

// A guard that allows and one that refuses: with two guards, both run, in
// order, and the second one's refusal holds. (With one guard the scope
// takes a shortcut; a mutant sending two guards down that shortcut ran only
// the first.)
func TestBoundaryEveryGuardRuns(t *testing.T) {
	for _, where := range []string{"module", "controller", "route"} {
		t.Run(where, func(t *testing.T) {
			var ran []string
			allow := func(c *plinth.Ctx) error { ran = append(ran, "allow"); return nil }
			refuse := func(c *plinth.Ctx) error { ran = append(ran, "refuse"); return plinth.Forbidden("no") }
			guards := module.Scope{Guards: []module.Guard{allow, refuse}}
			m := module.New("shop").SetPrefix("/shop")
			ctrl := &boundCtrl{}
			var cfg []module.ControllerConfig
			switch where {
			case "module":
				m.Guard(allow, refuse)
			case "controller":
				cfg = append(cfg, module.ControllerConfig{Scope: guards})
			case "route":
				ctrl.route = guards
			}
			module.Provide(m, func() (*boundCtrl, error) { return ctrl, nil })
			module.Controller[*boundCtrl](m, cfg...)
			app := plinth.New()
			if _, err := module.Mount(app, m); err != nil {
				t.Fatal(err)
			}
			if code, _ := boundDo(t, app, "POST", "/shop"); code != http.StatusForbidden {
				t.Errorf("POST with the second guard refusing: %d, want 403", code)
			}
			if got := strings.Join(ran, ","); got != "allow,refuse" {
				t.Errorf("guards ran %q, want allow,refuse", got)
			}

			// The first refusing stops the chain: the second never runs.
			ran = nil
			m2 := module.New("shop2").SetPrefix("/s2").Guard(refuse, allow)
			module.Provide(m2, func() (*boundCtrl, error) { return &boundCtrl{}, nil })
			module.Controller[*boundCtrl](m2)
			app2 := plinth.New()
			if _, err := module.Mount(app2, m2); err != nil {
				t.Fatal(err)
			}
			if code, _ := boundDo(t, app2, "GET", "/s2/1"); code != http.StatusForbidden {
				t.Errorf("GET with the first guard refusing: %d, want 403", code)
			}
			if got := strings.Join(ran, ","); got != "refuse" {
				t.Errorf("guards ran %q, want refuse only", got)
			}
		})
	}
}

// A scope holding only filters, or only interceptors, is not empty: the
// module's, the controller's and the route's are each applied.
func TestBoundaryScopeOfOneKind(t *testing.T) {
	filter := func(c *plinth.Ctx, err error) error { return c.Text(http.StatusTeapot, "filtered: "+err.Error()) }
	intercept := func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header().Set("X-Intercepted", "yes")
			return next(c)
		}
	}
	scopes := map[string]module.Scope{
		"filters":      {Filters: []module.Filter{filter}},
		"interceptors": {Middleware: []plinth.Middleware{intercept}},
	}
	for kind, sc := range scopes {
		for _, where := range []string{"module", "controller", "route"} {
			t.Run(kind+"/"+where, func(t *testing.T) {
				m := module.New("shop").SetPrefix("/shop")
				ctrl := &boundCtrl{}
				var cfg []module.ControllerConfig
				switch where {
				case "module":
					m.Filter(sc.Filters...)
					m.Use(sc.Middleware...)
				case "controller":
					cfg = append(cfg, module.ControllerConfig{Scope: sc})
				case "route":
					ctrl.route = sc
				}
				module.Provide(m, func() (*boundCtrl, error) { return ctrl, nil })
				module.Controller[*boundCtrl](m, cfg...)
				app := plinth.New()
				if _, err := module.Mount(app, m); err != nil {
					t.Fatal(err)
				}
				w := httptest.NewRecorder()
				app.ServeHTTP(w, httptest.NewRequest("POST", "/shop", nil))
				switch kind {
				case "filters":
					if w.Code != http.StatusTeapot || w.Body.String() != "filtered: handler failed" {
						t.Errorf("filter-only scope not applied: %d %q", w.Code, w.Body.String())
					}
				case "interceptors":
					if w.Header().Get("X-Intercepted") != "yes" {
						t.Errorf("interceptor-only scope not applied: %v", w.Header())
					}
				}
			})
		}
	}
}

// verbsCtrl registers one handler per method on the same path.
type verbsCtrl struct{}

func (verbsCtrl) Routes(r *module.Routes) {
	r.Put("/item", func(c *plinth.Ctx) error { return c.Text(200, "put") })
	r.Patch("/item", func(c *plinth.Ctx) error { return c.Text(200, "patch") })
	r.Delete("/item", func(c *plinth.Ctx) error { return c.Text(200, "delete") })
}

// Put, Patch and Delete register their own method, below the prefix.
func TestBoundaryPutPatchDelete(t *testing.T) {
	m := module.New("verbs").SetPrefix("/v")
	module.Value(m, verbsCtrl{})
	module.Controller[verbsCtrl](m)
	app := plinth.New()
	if _, err := module.Mount(app, m); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"PUT", "PATCH", "DELETE"} {
		if code, body := boundDo(t, app, method, "/v/item"); code != 200 || body != strings.ToLower(method) {
			t.Errorf("%s /v/item: %d %q", method, code, body)
		}
	}
	if code, _ := boundDo(t, app, "GET", "/v/item"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /v/item: %d, want 405", code)
	}
}

// MountConfig.Router alone mounts below that group; combined with API it is
// refused.
func TestBoundaryMountBelowRouter(t *testing.T) {
	m := module.New("shop").SetPrefix("/shop")
	module.Provide(m, func() (*boundCtrl, error) { return &boundCtrl{}, nil })
	module.Controller[*boundCtrl](m)
	app := plinth.New()
	if _, err := module.Mount(app, m, module.MountConfig{Router: app.Group("/v1")}); err != nil {
		t.Fatalf("Mount below a group: %v", err)
	}
	if code, body := boundDo(t, app, "GET", "/v1/shop/7"); code != 200 || body != "got" {
		t.Errorf("GET /v1/shop/7: %d %q", code, body)
	}
	if code, _ := boundDo(t, app, "GET", "/shop/7"); code != http.StatusNotFound {
		t.Errorf("GET /shop/7 outside the group: %d, want 404", code)
	}

	app2 := plinth.New()
	m2 := module.New("shop2")
	_, err := module.Mount(app2, m2, module.MountConfig{Router: app2.Group("/v1"), API: api.New(app2, api.Config{Title: "t", Version: "1"})})
	if err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("API and Router together: %v", err)
	}
	if _, err := module.Mount(plinth.New(), module.New("two"), module.MountConfig{}, module.MountConfig{}); err == nil {
		t.Error("two MountConfigs accepted")
	}
}

type boundNeed struct{}
type boundUser struct{}

// A missing provider's error says where the type is hidden, and nothing
// more when it is nowhere.
func TestBoundaryMissingProviderMessages(t *testing.T) {
	mount := func(root *module.Module) error {
		_, err := module.Mount(plinth.New(), root)
		return err
	}

	// Nowhere: the message ends with the module, no parenthesis after it.
	a := module.New("a")
	module.Provide1(a, func(boundNeed) (boundUser, error) { return boundUser{}, nil })
	err := mount(a)
	if err == nil || !strings.HasSuffix(err.Error(), "no provider of module_test.boundNeed is visible in module a") {
		t.Errorf("nowhere: %v", err)
	}

	// In a module that a does not import.
	b := module.New("b")
	module.Provide(b, func() (boundNeed, error) { return boundNeed{}, nil })
	a = module.New("a")
	module.Provide1(a, func(boundNeed) (boundUser, error) { return boundUser{}, nil })
	root := module.New("root").Import(a, b)
	err = mount(root)
	if err == nil || !strings.HasSuffix(err.Error(), "is visible in module a (b provides it; import it (and have it export it))") {
		t.Errorf("not imported: %v", err)
	}

	// In a module that a imports but that does not export it.
	b = module.New("b")
	module.Provide(b, func() (boundNeed, error) { return boundNeed{}, nil })
	a = module.New("a").Import(b)
	module.Provide1(a, func(boundNeed) (boundUser, error) { return boundUser{}, nil })
	err = mount(a)
	if err == nil || !strings.HasSuffix(err.Error(), "is visible in module a (b provides it but does not export it)") {
		t.Errorf("not exported: %v", err)
	}
}

// Get with a module that is not part of the mounted graph is an error
// naming it, even when that module provides the type.
func TestBoundaryGetForeignModule(t *testing.T) {
	m := module.New("mounted")
	module.Provide(m, func() (boundNeed, error) { return boundNeed{}, nil })
	gr, err := module.Mount(plinth.New(), m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := module.Get[boundNeed](gr, m); err != nil {
		t.Fatalf("Get from the mounted module: %v", err)
	}
	foreign := module.New("foreign")
	module.Provide(foreign, func() (boundNeed, error) { return boundNeed{}, nil })
	_, err = module.Get[boundNeed](gr, foreign)
	if err == nil || err.Error() != "module: foreign is not part of this graph" {
		t.Errorf("Get from a foreign module: %v", err)
	}
}

// The program's mistakes panic with a message naming the module.
func TestBoundaryPanicMessages(t *testing.T) {
	panicText := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return ""
	}
	if got := panicText(func() { module.New("shop").Import(nil) }); got != "module: shop: Import(nil)" {
		t.Errorf("Import(nil): %q", got)
	}
	got := panicText(func() {
		module.Controller[*boundCtrl](module.New("shop"), module.ControllerConfig{}, module.ControllerConfig{})
	})
	if got != "module: shop: Controller takes at most one ControllerConfig" {
		t.Errorf("two ControllerConfigs: %q", got)
	}
	m := module.New("typed")
	module.Value(m, apiCtrl{})
	module.Controller[apiCtrl](m)
	got = panicText(func() { _, _ = module.Mount(plinth.New(), m) })
	if got != "module: typed: Routes.API needs MountConfig.API" {
		t.Errorf("Routes.API without MountConfig.API: %q", got)
	}
}

type apiCtrl struct{}

func (apiCtrl) Routes(r *module.Routes) { _ = r.API() }

// catchAllCtrl registers "POST /" under its module's prefix, which Mount
// warns about.
type catchAllCtrl struct{}

func (catchAllCtrl) Routes(r *module.Routes) {
	r.Post("/", func(c *plinth.Ctx) error { return nil })
}

// Mount's warnings go to the App's Logger, else its Config.Logger.
func TestBoundaryMountLogger(t *testing.T) {
	for _, where := range []string{"Logger", "Config.Logger"} {
		t.Run(where, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			app := plinth.New()
			if where == "Logger" {
				app.Logger = log
			} else {
				app.Logger = nil
				app.Config.Logger = log
			}
			m := module.New("orders").SetPrefix("/orders")
			module.Value(m, catchAllCtrl{})
			module.Controller[catchAllCtrl](m)
			if _, err := module.Mount(app, m); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "matches every path below it") {
				t.Errorf("no warning in the %s: %q", where, buf.String())
			}
		})
	}
}

// Values that only start, or only stop, take part in the lifecycle; a stop
// failure is Serve's error.
type startOnly struct {
	log *boundLog
}

func (s *startOnly) OnStart(context.Context) error { s.log.add("start only"); return nil }

type stopOnly struct {
	log *boundLog
	err error
}

func (s *stopOnly) OnStop(context.Context) error { s.log.add("stop only"); return s.err }

type boundLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *boundLog) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *boundLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, ",")
}

// boundServe serves app on loopback until it answers, stops it and returns
// Serve's result.
func boundServe(t *testing.T, app *plinth.App) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; ; i++ {
		res, err := client.Get("http://" + ln.Addr().String() + "/livez")
		if err == nil {
			res.Body.Close()
			break
		}
		if i > 200 {
			cancel()
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	return <-done
}

func TestBoundaryLifecycleOneSided(t *testing.T) {
	log := &boundLog{}
	m := module.New("one-sided")
	module.Provide(m, func() (*startOnly, error) { return &startOnly{log: log}, nil })
	module.Provide(m, func() (*stopOnly, error) { return &stopOnly{log: log}, nil })
	app := plinth.Bare()
	if _, err := module.Mount(app, m); err != nil {
		t.Fatal(err)
	}
	if err := boundServe(t, app); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if got := log.String(); got != "start only,stop only" {
		t.Errorf("lifecycle %q, want start only,stop only", got)
	}
}

func TestBoundaryStopErrorReported(t *testing.T) {
	log := &boundLog{}
	m := module.New("failing-stop")
	module.Provide(m, func() (*stopOnly, error) { return &stopOnly{log: log, err: errors.New("flush failed")}, nil })
	app := plinth.Bare()
	if _, err := module.Mount(app, m); err != nil {
		t.Fatal(err)
	}
	err := boundServe(t, app)
	if err == nil || !strings.Contains(err.Error(), "flush failed") {
		t.Errorf("Serve: %v, want the stop hook's error", err)
	}
	if got := log.String(); got != "stop only" {
		t.Errorf("lifecycle %q", got)
	}
}

// docOnlyCtrl registers a typed operation whose scope only documents a
// scheme (no guard: something else checks the key).
type docOnlyCtrl struct{}

func (docOnlyCtrl) Routes(r *module.Routes) {
	nop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	scheme := api.Security{Name: "bndKey", Scheme: api.SecurityScheme{Type: "apiKey", In: "header", Name: "X-Bnd-Key"}}
	api.Register(r.API(module.Scope{Security: []api.Security{scheme}}), api.Operation{Method: http.MethodGet, Path: "/documented"}, nop)
	api.Register(r.API(module.Scope{}), api.Operation{Method: http.MethodGet, Path: "/plain"}, nop)
}

// A scope with Security and nothing else still documents it on its
// operations; an empty scope documents nothing.
func TestBoundarySecurityOnlyScope(t *testing.T) {
	m := module.New("doc").SetPrefix("/d")
	module.Value(m, docOnlyCtrl{})
	module.Controller[docOnlyCtrl](m)
	app := plinth.Bare()
	doc := api.New(app, api.Config{Title: "t", Version: "1"})
	if _, err := module.Mount(app, m, module.MountConfig{API: doc}); err != nil {
		t.Fatal(err)
	}
	d := doc.Document()
	if op := d.Paths["/d/documented"].Get; op == nil || len(op.Security) != 1 || op.Security[0]["bndKey"] == nil {
		t.Errorf("GET /d/documented security: %+v", op)
	}
	if op := d.Paths["/d/plain"].Get; op == nil || len(op.Security) != 0 {
		t.Errorf("GET /d/plain security: %+v", op)
	}
}
