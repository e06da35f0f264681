package plinth_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

// tagStd returns standard middleware that appends name to the X-Trace
// response header.
func tagStd(name string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-Trace", name)
			next.ServeHTTP(w, r)
		})
	}
}

// tagNative is tagStd in native form.
func tagNative(name string) plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header().Add("X-Trace", name)
			return next(c)
		}
	}
}

func trace(h http.Header) string { return strings.Join(h.Values("X-Trace"), ",") }

func TestMiddlewareOrderAndDeferral(t *testing.T) {
	app := plinth.Bare()
	// Routes first, middleware after: Use is deferred and still applies.
	api := app.Group("/api")
	api.Get("/x", echo())
	v1 := api.Group("/v1", func(g *plinth.Router) {
		g.Get("/y/{id}", echo("id"))
	})
	v1.Use(tagNative("v1"))
	api.UseHTTP(tagStd("api"))
	app.UseHTTP(tagStd("app1"))
	app.Use(tagNative("app2"))
	app.Get("/top", echo())

	for _, tc := range []struct{ path, trace, body string }{
		{"/top", "app1,app2", "GET /top"},
		{"/api/x", "app1,app2,api", "GET /api/x"},
		{"/api/v1/y/9", "app1,app2,api,v1", "GET /api/v1/y/{id} id=9"},
	} {
		rec := serve(app, "GET", tc.path)
		if got := trace(rec.Header()); got != tc.trace || rec.Body.String() != tc.body {
			t.Errorf("%s: trace %q body %q, want %q %q", tc.path, got, rec.Body, tc.trace, tc.body)
		}
	}
}

func TestScopeMiddlewareWrapsFallbacksRouteMiddlewareDoesNot(t *testing.T) {
	app := plinth.Bare()
	app.UseHTTP(tagStd("app"))
	api := app.Group("/api")
	api.Use(tagNative("api"))
	api.WithHTTP(tagStd("route")).Get("/x", echo())
	api.With(tagNative("native-route")).Post("/z", echo())

	for _, tc := range []struct {
		method, path string
		code         int
		trace        string
	}{
		{"GET", "/api/x", 200, "app,api,route"},
		{"POST", "/api/z", 200, "app,api,native-route"},
		{"GET", "/api/nope", 404, "app,api"},
		{"PUT", "/api/x", 405, "app,api"},
		{"OPTIONS", "/api/x", 204, "app,api"},
		{"GET", "/elsewhere", 404, "app"},
		{"GET", "/api//x", 307, "app,api"},
	} {
		rec := serve(app, tc.method, tc.path)
		if rec.Code != tc.code || trace(rec.Header()) != tc.trace {
			t.Errorf("%s %s: %d trace %q, want %d %q", tc.method, tc.path, rec.Code, trace(rec.Header()), tc.code, tc.trace)
		}
	}
}

func TestGroupFallbacks(t *testing.T) {
	app := plinth.Bare()
	app.SetNotFound(func(c *plinth.Ctx) error { return c.Text(404, "app 404") })
	api := app.Group("/api")
	api.Get("/x", echo())
	api.SetNotFoundHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		w.Write([]byte("api 404"))
	}))
	api.SetMethodNotAllowed(func(c *plinth.Ctx) error {
		return c.Text(405, "api 405 allow="+c.Header().Get("Allow"))
	})
	users := api.Group("/users/{id}") // inherits the api fallbacks
	users.Get("/posts", echo("id"))

	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/nope", 404, "app 404"},
		{"GET", "/api/nope", 404, "api 404"},
		{"GET", "/api", 404, "api 404"},
		{"GET", "/api/users/1/nope", 404, "api 404"},
		{"GET", "/api/users/1/posts", 200, "GET /api/users/{id}/posts id=1"},
		{"DELETE", "/api/x", 405, "api 405 allow=GET, HEAD, OPTIONS"},
	} {
		rec := serve(app, tc.method, tc.path)
		if rec.Code != tc.code || rec.Body.String() != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Body, tc.code, tc.body)
		}
	}
}

// The native and net/http forms of SetNotFound and SetMethodNotAllowed set the
// same fallback: the same status, body and Allow header, inherited the same way,
// and nil restores the enclosing scope's handler.
func TestFallbackForms(t *testing.T) {
	native := func(app *plinth.App, g *plinth.Router) {
		app.SetNotFound(func(c *plinth.Ctx) error { return c.Text(404, "nf "+c.Request().URL.Path) })
		g.SetMethodNotAllowed(func(c *plinth.Ctx) error { return c.Text(405, "mna "+c.Header().Get("Allow")) })
	}
	std := func(app *plinth.App, g *plinth.Router) {
		app.SetNotFoundHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(404)
			w.Write([]byte("nf " + r.URL.Path))
		}))
		g.SetMethodNotAllowedHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(405)
			w.Write([]byte("mna " + w.Header().Get("Allow")))
		}))
	}
	for name, set := range map[string]func(*plinth.App, *plinth.Router){"native": native, "net/http": std} {
		app := plinth.Bare()
		api := app.Group("/api")
		api.Get("/x", echo())
		set(app, api)
		sub := api.Group("/sub") // inherits both
		sub.Get("/y", echo())
		reset := app.Group("/reset")
		reset.Get("/z", echo())
		reset.SetNotFound(func(c *plinth.Ctx) error { return c.Text(404, "reset") })
		reset.SetNotFound(nil) // back to the App's
		for _, tc := range []struct {
			method, path string
			code         int
			body, allow  string
		}{
			{"GET", "/nope", 404, "nf /nope", ""},
			{"GET", "/api/nope", 404, "nf /api/nope", ""},
			{"GET", "/reset/nope", 404, "nf /reset/nope", ""},
			{"DELETE", "/api/x", 405, "mna GET, HEAD, OPTIONS", "GET, HEAD, OPTIONS"},
			{"DELETE", "/api/sub/y", 405, "mna GET, HEAD, OPTIONS", "GET, HEAD, OPTIONS"},
			{"DELETE", "/reset/z", 405, "", "GET, HEAD, OPTIONS"},
		} {
			rec := serve(app, tc.method, tc.path)
			if rec.Code != tc.code || (tc.body != "" && rec.Body.String() != tc.body) || rec.Header().Get("Allow") != tc.allow {
				t.Errorf("%s: %s %s: %d %q Allow %q, want %d %q Allow %q", name, tc.method, tc.path,
					rec.Code, rec.Body, rec.Header().Get("Allow"), tc.code, tc.body, tc.allow)
			}
		}
	}
}

func TestGroupEmptyPathIsThePrefix(t *testing.T) {
	app := plinth.Bare()
	api := app.Group("/api/")
	api.Get("", echo())
	api.Get("/{$}", func(c *plinth.Ctx) error { return c.Text(200, "slash") })
	if rec := serve(app, "GET", "/api"); rec.Body.String() != "GET /api" {
		t.Errorf("/api: %d %q", rec.Code, rec.Body)
	}
	if rec := serve(app, "GET", "/api/"); rec.Body.String() != "slash" {
		t.Errorf("/api/: %d %q", rec.Code, rec.Body)
	}
}

func TestGroupMisuse(t *testing.T) {
	for name, f := range map[string]func(app *plinth.App){
		"relative path":            func(app *plinth.App) { app.Group("/api").Get("users", echo()) },
		"NotFound on With":         func(app *plinth.App) { app.WithHTTP(tagStd("x")).SetNotFoundHTTP(http.NotFoundHandler()) },
		"native NotFound on With":  func(app *plinth.App) { app.With(tagNative("x")).SetNotFound(nil) },
		"multi wildcard in prefix": func(app *plinth.App) { app.Group("/{x...}") },
		"unclean prefix":           func(app *plinth.App) { app.Group("/a//b") },
		"prefix without slash":     func(app *plinth.App) { app.Group("api") },
		"blank in Get path":        func(app *plinth.App) { app.Get("GET /x", echo()) },
		"nil middleware":           func(app *plinth.App) { app.UseHTTP(nil) },
		"nil handler":              func(app *plinth.App) { app.Get("/x", nil) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "plinth: ") {
					t.Errorf("%s: panic %v, want a plinth message", name, r)
				}
			}()
			f(plinth.Bare())
		}()
	}
}

func TestMount(t *testing.T) {
	sub := plinth.Bare()
	sub.Get("/{$}", func(c *plinth.Ctx) error { return c.Text(200, "sub root "+c.Request().URL.Path) })
	sub.Get("/items/{id}", func(c *plinth.Ctx) error { return c.Text(200, "item "+c.Param("id")+" "+c.Request().URL.Path) })
	foreign := http.NewServeMux()
	foreign.HandleFunc("/x/y", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("foreign " + r.URL.Path)) })

	app := plinth.Bare()
	app.Mount("/sub", sub)
	app.Group("/org/{org}").Mount("/ext", foreign)
	app.Get("/sub/special", echo()) // more specific than the mount

	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/sub/", 200, "sub root /"},
		{"GET", "/sub/items/3", 200, "item 3 /items/3"},
		{"GET", "/sub/special", 200, "GET /sub/special"},
		{"GET", "/sub", 307, ""},
		{"GET", "/org/acme/ext/x/y", 200, "foreign /x/y"},
		{"POST", "/sub/items/3", 405, ""},
	} {
		rec := serve(app, tc.method, tc.path)
		if rec.Code != tc.code || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Body, tc.code, tc.body)
		}
	}
}

// A standard middleware that wraps the writer and replaces the request: the
// native handler inside must write through the wrapper and see the new
// request, and the native middleware outside must get the originals back.
func TestStdMiddlewareAroundNativeHandler(t *testing.T) {
	app := plinth.Bare()
	app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			err := next(c)
			c.Header().Set("X-After", c.Request().Header.Get("X-Replaced"))
			return err
		}
	})
	app.UseHTTP(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r2 := r.Clone(r.Context())
			r2.Header.Set("X-Replaced", "yes")
			next.ServeHTTP(upperWriter{w}, r2)
		})
	})
	app.Get("/x", func(c *plinth.Ctx) error {
		return c.Text(200, "seen="+c.Request().Header.Get("X-Replaced"))
	})
	app.Get("/err", func(c *plinth.Ctx) error { return plinth.Error(409, "taken") })
	rec := serve(app, "GET", "/x")
	if rec.Body.String() != "SEEN=YES" || rec.Header().Get("X-After") != "" {
		t.Fatalf("body %q X-After %q", rec.Body, rec.Header().Get("X-After"))
	}
	rec = serve(app, "GET", "/err")
	if rec.Code != 409 || !strings.Contains(rec.Body.String(), "TAKEN") {
		t.Fatalf("error inside std middleware: %d %q", rec.Code, rec.Body)
	}
}

type upperWriter struct{ http.ResponseWriter }

func (u upperWriter) Write(b []byte) (int, error) {
	return u.ResponseWriter.Write([]byte(strings.ToUpper(string(b))))
}

func TestState(t *testing.T) {
	type deps struct{ greeting string }
	app := plinth.Bare()
	app.SetState(&deps{greeting: "hi"})
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, plinth.State[*deps](c).greeting) })
	if rec := serve(app, "GET", "/"); rec.Body.String() != "hi" {
		t.Fatalf("got %q", rec.Body)
	}
}

func TestRouterPrefixAndApp(t *testing.T) {
	app := plinth.Bare()
	v1 := app.Group("/api").Group("/v1")
	if app.Prefix() != "" || v1.Prefix() != "/api/v1" {
		t.Errorf("prefixes %q %q, want \"\" and /api/v1", app.Prefix(), v1.Prefix())
	}
	if v1.App() != app || app.App() != app {
		t.Error("App() does not return the owning App")
	}
}

// A native handler reached through a plain wrapper (Mount strips the prefix
// with a plain handler) runs on the request's own Ctx: the App's
// ErrorHandler applies and the request ID is the one the default layer set.
func TestHandlerFuncInsideMountUsesRequestCtx(t *testing.T) {
	app := plinth.New()
	app.ErrorHandler = func(c *plinth.Ctx, err error) { _ = c.Text(418, "custom: "+err.Error()) }
	app.Mount("/files", plinth.HandlerFunc(func(c *plinth.Ctx) error {
		if c.Request().URL.Path == "/fail" {
			return errors.New("nope")
		}
		return c.Text(200, c.Request().URL.Path+" "+c.RequestID())
	}))
	rec := serve(app, "GET", "/files/a.txt")
	if rec.Code != 200 || rec.Body.String() != "/a.txt "+rec.Header().Get("X-Request-Id") {
		t.Errorf("got %d %q (id %q)", rec.Code, rec.Body, rec.Header().Get("X-Request-Id"))
	}
	if rec := serve(app, "GET", "/files/fail"); rec.Code != 418 || rec.Body.String() != "custom: nope" {
		t.Errorf("error through Mount: %d %q, want the App's ErrorHandler", rec.Code, rec.Body)
	}
}

// TestGroupSamePrefixOneScope: two Group calls with the same
// prefix give one scope, so an API-key check added through one wraps the
// routes registered through the other, and the fallbacks agree with them.
func TestGroupSamePrefixOneScope(t *testing.T) {
	app := plinth.Bare()
	secured := app.Group("/api/v1")
	secured.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			if c.Request().Header.Get("X-Api-Key") != "k" {
				return plinth.Unauthorized("API key required")
			}
			return next(c)
		}
	})
	ops := app.Group("/api/v1/") // another package, say, registering its operations
	ops.Get("/items", func(c *plinth.Ctx) error { return c.Text(200, "items") })
	if ops != secured {
		t.Error("Group with the same prefix returned another scope")
	}
	for _, path := range []string{"/api/v1/items", "/api/v1/missing"} {
		if rec := serve(app, "GET", path); rec.Code != 401 {
			t.Errorf("GET %s without the key: %d, want 401", path, rec.Code)
		}
	}
	req := httptest.NewRequest("GET", "/api/v1/items", nil)
	req.Header.Set("X-Api-Key", "k")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("with the key: %d", rec.Code)
	}
}

// TestGroupSamePrefixElsewherePanics: the same prefix made
// under another parent, or with other wildcard names, fails at registration
// naming both Group calls.
func TestGroupSamePrefixElsewherePanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first func(*plinth.App)
		again func(*plinth.App)
	}{
		{"other parent",
			func(app *plinth.App) { app.Group("/api").Group("/v1") },
			func(app *plinth.App) { app.Group("/api/v1") }},
		{"other wildcard names",
			func(app *plinth.App) { app.Group("/users/{id}") },
			func(app *plinth.App) { app.Group("/users/{uid}") }},
	} {
		app := plinth.Bare()
		tc.first(app)
		msg := panicMessage(func() { tc.again(app) })
		if strings.Count(msg, "group_test.go:") != 2 || !strings.Contains(msg, "one scope") {
			t.Errorf("%s: panic %q, want both Group calls named", tc.name, msg)
		}
	}
}

func panicMessage(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return "no panic"
}

// TestScopeSpecificity: of two prefixes with as many segments, the more
// specific one owns the fallbacks under it, whatever the registration
// order: /users/me's 404 runs /users/me's middleware, not /users/{id}'s.
func TestScopeSpecificity(t *testing.T) {
	app := plinth.Bare()
	app.Group("/users/{id}").Use(tagNative("id"))
	app.Group("/users/me").Use(tagNative("me"))
	for path, want := range map[string]string{"/users/me/missing": "me", "/users/42/missing": "id"} {
		if rec := serve(app, "GET", path); rec.Code != 404 || trace(rec.Header()) != want {
			t.Errorf("GET %s: %d, middleware %q; want 404 through %q", path, rec.Code, trace(rec.Header()), want)
		}
	}
}
