package plinth_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/plinth-go/plinth"
)

// serve sends one request through h and returns the recorded response.
func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

// echo is a native handler that answers with its pattern and parameters.
func echo(names ...string) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		var b strings.Builder
		b.WriteString(c.Pattern())
		for _, n := range names {
			b.WriteString(" " + n + "=" + c.Param(n))
		}
		return c.Text(http.StatusOK, b.String())
	}
}

func TestRouting(t *testing.T) {
	app := plinth.Bare()
	app.Get("/{$}", echo())
	app.Get("/users/{id}", echo("id"))
	app.Get("/users/me", echo())
	app.Post("/users", echo())
	app.Get("/files/{path...}", echo("path"))
	app.Get("/dir/", echo())
	app.Handle("/any/{x}", echo("x"))
	app.Delete("/users/{id}", echo("id"))
	app.Handle("PURGE /cache/{key}", echo("key"))

	tests := []struct {
		method, target string
		code           int
		body           string
		header         map[string]string
	}{
		{"GET", "/", 200, "GET /{$}", nil},
		{"GET", "/users/42", 200, "GET /users/{id} id=42", nil},
		{"GET", "/users/me", 200, "GET /users/me", nil},
		{"HEAD", "/users/42", 200, "", nil},
		{"POST", "/users", 200, "POST /users", nil},
		{"DELETE", "/users/7", 200, "DELETE /users/{id} id=7", nil},
		{"GET", "/users/a%2Fb", 200, "GET /users/{id} id=a/b", nil},
		{"GET", "/users/caf%C3%A9", 200, "GET /users/{id} id=café", nil},
		{"GET", "/files/a/b/c.txt", 200, "GET /files/{path...} path=a/b/c.txt", nil},
		{"GET", "/files/", 200, "GET /files/{path...} path=", nil},
		{"GET", "/files", 307, "", map[string]string{"Location": "/files/"}},
		{"GET", "/files?x=1", 307, "", map[string]string{"Location": "/files/?x=1"}},
		{"GET", "/dir/x/y", 200, "GET /dir/", nil},
		{"GET", "/dir", 307, "", map[string]string{"Location": "/dir/"}},
		{"GET", "/users//42", 307, "", map[string]string{"Location": "/users/42"}},
		{"GET", "/users/x/../42?q=1", 307, "", map[string]string{"Location": "/users/42?q=1"}},
		{"PUT", "/any/1", 200, "/any/{x} x=1", nil},
		{"PURGE", "/cache/k", 200, "PURGE /cache/{key} key=k", nil},
		{"GET", "/cache/k", 405, "", map[string]string{"Allow": "OPTIONS, PURGE"}},
		{"PUT", "/users/42", 405, "", map[string]string{"Allow": "DELETE, GET, HEAD, OPTIONS"}},
		{"OPTIONS", "/users/42", 204, "", map[string]string{"Allow": "DELETE, GET, HEAD, OPTIONS"}},
		{"GET", "/nope", 404, "", map[string]string{"Content-Type": "application/problem+json"}},
		{"GET", "/users/42/x", 404, "", nil},
	}
	for _, tc := range tests {
		rec := serve(app, tc.method, tc.target)
		if rec.Code != tc.code {
			t.Errorf("%s %s: status %d, want %d (body %q)", tc.method, tc.target, rec.Code, tc.code, rec.Body)
			continue
		}
		if tc.body != "" && rec.Body.String() != tc.body {
			t.Errorf("%s %s: body %q, want %q", tc.method, tc.target, rec.Body, tc.body)
		}
		for k, v := range tc.header {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s %s: %s = %q, want %q", tc.method, tc.target, k, got, v)
			}
		}
	}
}

func TestNotFoundAndMethodNotAllowedBodies(t *testing.T) {
	app := plinth.Bare()
	app.Get("/a", echo())
	for _, tc := range []struct {
		method, path string
		status       int
		title        string
	}{
		{"GET", "/b", 404, "Not Found"},
		{"POST", "/a", 405, "Method Not Allowed"},
	} {
		rec := serve(app, tc.method, tc.path)
		if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s %s: %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"))
		}
		var p map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %q", tc.method, tc.path, err, rec.Body)
		}
		if p["title"] != tc.title || p["status"] != float64(tc.status) || p["type"] != "about:blank" {
			t.Errorf("%s %s: problem %v", tc.method, tc.path, p)
		}
	}
}

func TestOptionsAsterisk(t *testing.T) {
	app := plinth.Bare()
	app.Get("/a", echo())
	app.Post("/b", echo())
	req := httptest.NewRequest("OPTIONS", "/", nil)
	req.RequestURI = "*"
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 204 || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS, POST" {
		t.Fatalf("OPTIONS *: %d Allow=%q", rec.Code, rec.Header().Get("Allow"))
	}
	req = httptest.NewRequest("GET", "/", nil)
	req.RequestURI = "*"
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 400 {
		t.Fatalf("GET *: %d, want 400", rec.Code)
	}
}

func TestExplicitOptionsRouteWins(t *testing.T) {
	app := plinth.Bare()
	app.Get("/a", echo())
	app.Options("/a", func(c *plinth.Ctx) error { return c.Text(200, "custom") })
	if rec := serve(app, "OPTIONS", "/a"); rec.Code != 200 || rec.Body.String() != "custom" {
		t.Fatalf("got %d %q", rec.Code, rec.Body)
	}
}

func TestPlainHandlersGetPathValues(t *testing.T) {
	app := plinth.Bare()
	app.HandleFunc("GET /orgs/{org}/repos/{repo...}", func(w http.ResponseWriter, r *http.Request) {
		c := plinth.CtxOf(r)
		if c == nil {
			http.Error(w, "no ctx", 500)
			return
		}
		w.Write([]byte(r.Pattern + " " + r.PathValue("org") + " " + r.PathValue("repo") + " " + c.Param("org")))
	})
	rec := serve(app, "GET", "/orgs/go/repos/a/b")
	if want := "GET /orgs/{org}/repos/{repo...} go a/b go"; rec.Body.String() != want {
		t.Fatalf("got %q, want %q", rec.Body, want)
	}
}

func TestHandlerFuncOutsideRouter(t *testing.T) {
	var h http.Handler = plinth.HandlerFunc(func(c *plinth.Ctx) error {
		return plinth.Error(http.StatusTeapot, "short and stout")
	})
	mux := http.NewServeMux()
	mux.Handle("/tea", h)
	rec := serve(mux, "GET", "/tea")
	if rec.Code != 418 || !strings.Contains(rec.Body.String(), "short and stout") {
		t.Fatalf("got %d %q", rec.Code, rec.Body)
	}
}

func TestBadPatterns(t *testing.T) {
	for _, p := range []string{
		"", "GET", "GET users", "/users/{id", "/users/x{id}", "/{a}/{a}", "/{$}/x", "/{rest...}/x",
		"/{1x}", "/{}", "GET //a", "GET /a/../b", "example.com/a", "G(T /a",
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("pattern %q: registration did not panic", p)
				}
			}()
			plinth.Bare().Handle(p, echo())
		}()
	}
}

func TestConflictsNameBothPatterns(t *testing.T) {
	for _, pair := range [][2]string{
		{"GET /a/{x}", "GET /a/{y}"},
		{"/a/{x}", "/{y}/b"},
		{"GET /a/{x}", "/a/b"},
		{"/users/{id}", "/users/{name}"},
		{"POST /{x...}", "POST /{y...}"},
	} {
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			app := plinth.Bare()
			app.Handle(pair[0], echo())
			app.Handle(pair[1], echo())
			return ""
		}()
		if !strings.Contains(msg, pair[0]) || !strings.Contains(msg, pair[1]) || !strings.Contains(msg, "router_test.go:") {
			t.Errorf("%q vs %q: panic message %q should name both patterns and where they were registered", pair[0], pair[1], msg)
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	app := plinth.New()
	app.Get("/users/{id}", echo("id"))
	app.Get("/files/{p...}", echo("p"))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				id := strings.Repeat("x", g+1)
				rec := serve(app, "GET", "/users/"+id)
				if want := "GET /users/{id} id=" + id; rec.Body.String() != want {
					t.Errorf("got %q, want %q", rec.Body, want)
					return
				}
				if rec := serve(app, "POST", "/files/a"); rec.Code != 405 {
					t.Errorf("POST /files/a: %d", rec.Code)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func TestRegistrationAfterServingPanics(t *testing.T) {
	app := plinth.Bare()
	app.Get("/a", echo())
	serve(app, "GET", "/a")
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "already built") {
			t.Fatalf("panic %v", r)
		}
	}()
	app.Get("/b", echo())
}

func TestRoutes(t *testing.T) {
	app := plinth.Bare()
	app.Get("/a", echo())
	api := app.Group("/api")
	api.HandleFunc("POST /b", func(http.ResponseWriter, *http.Request) {})
	rs := app.Routes()
	if len(rs) != 2 || rs[0].Pattern != "GET /a" || rs[0].Method != "GET" ||
		rs[1].Pattern != "POST /api/b" || !strings.Contains(rs[1].Handler, "TestRoutes") ||
		!strings.Contains(rs[0].Source, "router_test.go:") {
		t.Fatalf("Routes() = %+v", rs)
	}
}

// TestPatternWithoutLeadingSlash: a path pattern missing its
// leading slash is named as such, not taken for a host pattern; a pattern
// whose first segment names a domain still gets the host message.
func TestPatternWithoutLeadingSlash(t *testing.T) {
	h := plinth.HandlerFunc(func(c *plinth.Ctx) error { return nil })
	for _, tc := range []struct {
		register func(app *plinth.App)
		want     string
		not      string
	}{
		{func(app *plinth.App) { app.Get("users/{id}", h) }, `patterns start with /: write "/users/{id}"`, "host"},
		{func(app *plinth.App) { app.Handle("DELETE users", h) }, `patterns start with /: write "/users"`, "host"},
		{func(app *plinth.App) { app.Handle("example.com/x", h) }, `host "example.com" in pattern`, "start with /"},
		{func(app *plinth.App) { app.Handle("GET api.example.com/x", h) }, `host "api.example.com" in pattern`, "start with /"},
	} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			tc.register(plinth.Bare())
			return "no panic"
		}()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("panic %q: want it to contain %q and not %q", msg, tc.want, tc.not)
		}
	}
}

// TestLowercaseMethodWarns: "get /users" registers the method
// "get" (methods are case-sensitive, as in ServeMux, so GET gets 405 there),
// and Build warns, naming the pattern, where it was registered and the
// upper-case form; an unknown method in upper case gets no warning.
func TestLowercaseMethodWarns(t *testing.T) {
	var logs bytes.Buffer
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	app.Handle("get /users", plinth.HandlerFunc(func(c *plinth.Ctx) error { return c.Text(200, "lower") }))
	app.Handle("PURGE /cache", plinth.HandlerFunc(func(c *plinth.Ctx) error { return nil }))
	app.Handle("Post /items", plinth.HandlerFunc(func(c *plinth.Ctx) error { return nil }))
	app.Build()
	out := logs.String()
	for _, want := range []string{`get /users`, `\"get\"`, `write \"GET /users\"`, `\"Post\"`, `write \"POST /items\"`, "router_test.go:"} {
		if !strings.Contains(out, want) {
			t.Errorf("warnings lack %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "level=WARN"); n != 2 {
		t.Errorf("%d warnings, want 2 (none for PURGE):\n%s", n, out)
	}
	if rec := serve(app, "GET", "/users"); rec.Code != 405 {
		t.Errorf("GET /users = %d, want 405 (the route's method is \"get\")", rec.Code)
	}
}

// TestGinStyleSegmentWarns: a segment in another router's
// wildcard syntax keeps ServeMux's meaning (a literal), and Build warns,
// naming the pattern, where it was registered and the ServeMux form.
func TestGinStyleSegmentWarns(t *testing.T) {
	var logs bytes.Buffer
	app := plinth.Bare()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	app.Get("/users/:id", func(c *plinth.Ctx) error { return c.Text(200, "literal") })
	app.Group("/files").Get("/*path", func(c *plinth.Ctx) error { return c.Text(200, "literal") })
	app.Get("/ok/{id}", func(c *plinth.Ctx) error { return nil })
	app.Build()
	out := logs.String()
	for _, want := range []string{`GET /users/:id`, `\"{id}\"`, `GET /files/*path`, `\"{path...}\"`, "router_test.go:"} {
		if !strings.Contains(out, want) {
			t.Errorf("warnings lack %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "level=WARN"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, out)
	}
	if rec := serve(app, "GET", "/users/:id"); rec.Code != 200 {
		t.Errorf("the literal segment no longer matches itself: %d", rec.Code)
	}
	if rec := serve(app, "GET", "/users/42"); rec.Code != 404 {
		t.Errorf("/users/42 matched a literal pattern: %d", rec.Code)
	}
}

// TestBodyLimitOnDirectRoute: a route of a Bare App without
// middleware is called directly, without the oversize wrapper; serveRoute
// then refuses a declared body over the limit itself, through the
// ErrorHandler, and the handler does not run.
func TestBodyLimitOnDirectRoute(t *testing.T) {
	app := plinth.Bare()
	app.SetBodyLimit(10)
	var handlerRan, errorHandler bool
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		errorHandler = true
		plinth.DefaultErrorHandler(c, err)
	}
	app.Post("/in", func(c *plinth.Ctx) error {
		handlerRan = true
		return c.NoContent(204)
	})
	req := httptest.NewRequest("POST", "/in", strings.NewReader("01234567890123456789"))
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 413 || handlerRan || !errorHandler {
		t.Fatalf("status %d, handler ran %v, ErrorHandler called %v; want 413, false, true", rec.Code, handlerRan, errorHandler)
	}
	req = httptest.NewRequest("POST", "/in", strings.NewReader("0123"))
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 204 || !handlerRan {
		t.Fatalf("a body under the limit: status %d, handler ran %v", rec.Code, handlerRan)
	}
}
