package plinth_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
)

var helmetHeaders = map[string]string{
	"Content-Security-Policy":           "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
	"Cross-Origin-Opener-Policy":        "same-origin",
	"Cross-Origin-Resource-Policy":      "same-origin",
	"Origin-Agent-Cluster":              "?1",
	"Referrer-Policy":                   "no-referrer",
	"X-Content-Type-Options":            "nosniff",
	"X-DNS-Prefetch-Control":            "off",
	"X-Frame-Options":                   "SAMEORIGIN",
	"X-Permitted-Cross-Domain-Policies": "none",
	"X-XSS-Protection":                  "0",
}

// apiHeaders is the short set of non-document responses (JSON, problem
// JSON, text): what OWASP recommends for APIs.
var apiHeaders = map[string]string{
	"Content-Security-Policy":      "default-src 'none'; frame-ancestors 'none'",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Referrer-Policy":              "no-referrer",
	"X-Content-Type-Options":       "nosniff",
}

func defaultApp(logs *bytes.Buffer) *plinth.App {
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(logs, nil))
	app.Get("/ok", func(c *plinth.Ctx) error { return c.Text(200, c.RequestID()) })
	app.Get("/page", func(c *plinth.Ctx) error { return c.HTML(200, "<p>hi</p>") })
	app.Get("/silent", func(c *plinth.Ctx) error { return nil })
	app.Get("/dir/", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Get("/boom", func(c *plinth.Ctx) error { panic("kaboom") })
	app.Get("/late-boom", func(c *plinth.Ctx) error {
		_ = c.Text(200, "partial")
		panic("kaboom after writing")
	})
	app.Get("/abort", func(c *plinth.Ctx) error { panic(http.ErrAbortHandler) })
	return app
}

// TestDefaultStackSecurityHeaders: documents (HTML, or no Content-Type)
// get helmet's whole set; every other response (text, problem JSON, the
// router's own answers) gets the short set and nothing more.
func TestDefaultStackSecurityHeaders(t *testing.T) {
	app := defaultApp(&bytes.Buffer{})
	for _, tc := range []struct {
		method, path string
		want         map[string]string
	}{
		{"GET", "/page", helmetHeaders}, {"GET", "/silent", helmetHeaders}, {"GET", "/dir", helmetHeaders},
		{"OPTIONS", "/ok", helmetHeaders},
		{"GET", "/ok", apiHeaders}, {"GET", "/nope", apiHeaders}, {"POST", "/ok", apiHeaders},
	} {
		rec := serve(app, tc.method, tc.path)
		for k, v := range tc.want {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s %s (%d): %s = %q, want %q", tc.method, tc.path, rec.Code, k, got, v)
			}
		}
		if len(tc.want) == len(apiHeaders) {
			for k := range helmetHeaders {
				if _, short := apiHeaders[k]; !short && rec.Header().Get(k) != "" {
					t.Errorf("%s %s (%d): %s sent on a response that is not a document", tc.method, tc.path, rec.Code, k)
				}
			}
		}
		if rec.Header().Get("Strict-Transport-Security") != "" {
			t.Errorf("%s %s: HSTS sent over plain HTTP", tc.method, tc.path)
		}
	}
	req := httptest.NewRequest("GET", "/ok", nil)
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if got := rec.Header().Get("Strict-Transport-Security"); got != "max-age=31536000; includeSubDomains" {
		t.Errorf("over TLS: HSTS = %q", got)
	}

	bare := plinth.Bare()
	bare.Get("/ok", echo())
	if rec := serve(bare, "GET", "/ok"); rec.Header().Get("X-Frame-Options") != "" || rec.Header().Get("X-Request-Id") != "" {
		t.Errorf("Bare() set default headers: %v", rec.Header())
	}
}

func TestDefaultStackRequestIDs(t *testing.T) {
	app := defaultApp(&bytes.Buffer{})
	seen := map[string]bool{}
	var ids []string
	for range 2000 {
		rec := serve(app, "GET", "/ok")
		id := rec.Header().Get("X-Request-Id")
		if len(id) != 26 || strings.Trim(id, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") != "" {
			t.Fatalf("generated ID %q is not 26 Crockford base32 characters", id)
		}
		if rec.Body.String() != id {
			t.Fatalf("handler saw ID %q, response carries %q", rec.Body, id)
		}
		if seen[id] {
			t.Fatalf("duplicate ID %q", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) {
		t.Error("IDs generated one after another do not sort in order")
	}

	for _, tc := range []struct {
		in   []string
		kept bool
	}{
		{[]string{"abc-123_X.y"}, true},
		{[]string{strings.Repeat("a", 64)}, true},
		{[]string{strings.Repeat("a", 65)}, false},
		{[]string{"<script>"}, false},
		{[]string{"a b"}, false},
		{[]string{"id\r\nSet-Cookie: x"}, false},
		{[]string{""}, false},
		{[]string{"one", "two"}, false},
	} {
		req := httptest.NewRequest("GET", "/ok", nil)
		req.Header["X-Request-Id"] = tc.in
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		got := rec.Header().Get("X-Request-Id")
		if tc.kept && got != tc.in[0] {
			t.Errorf("incoming %q: echoed %q, want it kept", tc.in, got)
		}
		if !tc.kept && (slices.Contains(tc.in, got) || len(got) != 26) {
			t.Errorf("incoming %q: echoed %q, want a fresh ID", tc.in, got)
		}
	}

	rec := serve(app, "GET", "/nope")
	if p := decodeProblem(t, rec.Body.Bytes()); p["request_id"] != rec.Header().Get("X-Request-Id") || p["request_id"] == "" {
		t.Errorf("404 problem %v does not carry the request ID %q", p, rec.Header().Get("X-Request-Id"))
	}
}

func TestDefaultStackRecovery(t *testing.T) {
	var logs bytes.Buffer
	app := defaultApp(&logs)
	rec := serve(app, "GET", "/boom")
	if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("panic: %d %q", rec.Code, rec.Body)
	}
	id := rec.Header().Get("X-Request-Id")
	if p := decodeProblem(t, rec.Body.Bytes()); p["request_id"] != id || strings.Contains(rec.Body.String(), "kaboom") {
		t.Errorf("panic problem %q: want the request ID %q and no panic text", rec.Body, id)
	}
	if l := logs.String(); !strings.Contains(l, "kaboom") || !strings.Contains(l, id) || !strings.Contains(l, "layer_default_test.go") {
		t.Errorf("the panic was not logged with its value, request ID and stack: %q", l)
	}

	// After the response started, and for http.ErrAbortHandler, the panic
	// becomes (or stays) http.ErrAbortHandler: net/http then aborts the
	// connection instead of a second response being written.
	for _, path := range []string{"/late-boom", "/abort"} {
		func() {
			defer func() {
				if p := recover(); p != http.ErrAbortHandler {
					t.Errorf("%s: panic %v, want http.ErrAbortHandler", path, p)
				}
			}()
			app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		}()
	}

	// Over a real connection, on both engines (net/http and Plinth's own), the server
	// survives and keeps serving.
	for _, eng := range []string{plinth.EngineStd, plinth.EngineFast} {
		app := defaultApp(&bytes.Buffer{})
		app.Config.Engine = eng
		base := serveApp(t, app, "http")
		if _, err := http.Get(base + "/late-boom"); err == nil {
			t.Logf("%s: the client read the partial response before the abort", eng)
		}
		res, err := http.Get(base + "/ok")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: after the panics: %v %v", eng, res, err)
		}
		res.Body.Close()
	}
}

func TestSkipMiddleware(t *testing.T) {
	t.Setenv("PLINTH_SKIP_MIDDLEWARE", "security, requestid")
	var logs bytes.Buffer
	app := defaultApp(&logs)
	rec := serve(app, "GET", "/ok")
	if rec.Header().Get("X-Frame-Options") != "" || rec.Header().Get("X-Request-Id") != "" {
		t.Errorf("skipped layers still ran: %v", rec.Header())
	}
	if rec := serve(app, "GET", "/boom"); rec.Code != 500 {
		t.Errorf("recovery should still run: %d", rec.Code)
	}
	if !strings.Contains(logs.String(), "SKIPPED") {
		t.Errorf("skipping was not logged loudly: %q", logs.String())
	}

	t.Setenv("PLINTH_SKIP_MIDDLEWARE", "security,bogus")
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "PLINTH_SKIP_MIDDLEWARE") || !strings.Contains(r, "bogus") {
			t.Errorf("an unknown layer name: panic %q, want one naming the variable and the name", r)
		}
	}()
	defaultApp(&bytes.Buffer{}).Build()
}

func TestCSPNonce(t *testing.T) {
	app := plinth.New()
	app.Get("/page", func(c *plinth.Ctx) error {
		n := c.CSPNonce()
		if again := c.CSPNonce(); again != n {
			return plinth.Errorf(500, "second call gave %q, first %q", again, n)
		}
		return c.HTML(200, `<script nonce="`+n+`">ok()</script>`)
	})
	app.Get("/late", func(c *plinth.Ctx) error {
		_ = c.Text(200, "started")
		if n := c.CSPNonce(); n != "" {
			t.Errorf("CSPNonce after the response started = %q, want empty", n)
		}
		return nil
	})
	app.Get("/plain", func(c *plinth.Ctx) error { return c.Text(200, "no nonce") })

	seen := map[string]bool{}
	for range 50 {
		rec := serve(app, "GET", "/page")
		csp := rec.Header().Get("Content-Security-Policy")
		body := rec.Body.String()
		nonce := strings.TrimSuffix(strings.TrimPrefix(body, `<script nonce="`), `">ok()</script>`)
		if len(nonce) != 24 || seen[nonce] {
			t.Fatalf("nonce %q: want 24 base64 characters, fresh per request", nonce)
		}
		seen[nonce] = true
		if !strings.Contains(csp, "script-src 'self' 'nonce-"+nonce+"';") {
			t.Fatalf("CSP %q does not allow the nonce %q in script-src", csp, nonce)
		}
		if strings.Count(csp, "nonce-") != 1 {
			t.Fatalf("CSP %q: the nonce belongs to script-src only", csp)
		}
	}
	if csp := serve(app, "GET", "/plain").Header().Get("Content-Security-Policy"); csp != apiHeaders["Content-Security-Policy"] {
		t.Errorf("a text response that asked for no nonce got CSP %q", csp)
	}
	serve(app, "GET", "/late")
}

func TestSecurityHeaderPresetsAndOverrides(t *testing.T) {
	app := plinth.New()
	app.Get("/page", func(c *plinth.Ctx) error { return c.HTML(200, c.CSPNonce()) })
	admin := app.Group("/admin")
	admin.SetSecurityHeaders(plinth.OWASPHeaders())
	admin.Get("/x", func(c *plinth.Ctx) error { return c.NoContent(204) })
	api := app.Group("/api")
	api.SetSecurityHeader("Content-Security-Policy", "default-src 'none'")
	api.SetSecurityHeader("X-Frame-Options", "") // removed
	api.Get("/nonce", func(c *plinth.Ctx) error { return c.HTML(200, c.CSPNonce()) })
	inner := api.Group("/v1") // inherits api's edits
	inner.Get("/y", func(c *plinth.Ctx) error { return c.NoContent(204) })
	inner.Get("/json", func(c *plinth.Ctx) error { return c.JSON(200, map[string]int{"a": 1}) })

	for _, tc := range []struct {
		path string
		want map[string]string // "" means absent
	}{
		{"/admin/x", map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store, max-age=0",
			"Cross-Origin-Embedder-Policy": "require-corp", "Origin-Agent-Cluster": ""}},
		// The group's 404, a problem JSON: a set given whole (the OWASP
		// preset) is sent as given on every response.
		{"/admin/missing", map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store, max-age=0",
			"Permissions-Policy": plinth.OWASPHeaders()["Permissions-Policy"]}},
		{"/api/v1/y", map[string]string{"Content-Security-Policy": "default-src 'none'", "X-Frame-Options": "",
			"X-Content-Type-Options": "nosniff"}},
		// The scope's own CSP is kept on JSON too.
		{"/api/v1/json", map[string]string{"Content-Security-Policy": "default-src 'none'", "X-Content-Type-Options": "nosniff"}},
		{"/elsewhere", map[string]string{"X-Frame-Options": "", "Cache-Control": "",
			"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"}},
	} {
		rec := serve(app, "GET", tc.path)
		for k, v := range tc.want {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", tc.path, k, got, v)
			}
		}
	}
	req := httptest.NewRequest("GET", "/admin/x", nil)
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Header().Get("Strict-Transport-Security") == "" {
		t.Error("OWASP set over TLS: no HSTS")
	}

	// A nonce joins whatever CSP the scope has; without script-src, one is added.
	rec = serve(app, "GET", "/api/nonce")
	if want := "default-src 'none';script-src 'self' 'nonce-" + rec.Body.String() + "'"; rec.Header().Get("Content-Security-Policy") != want {
		t.Errorf("nonce on a custom CSP: %q, want %q", rec.Header().Get("Content-Security-Policy"), want)
	}
}
