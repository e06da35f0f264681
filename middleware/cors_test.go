package middleware

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// webWriter is a reusable ResponseWriter for allocation counts: clearing its
// header keeps the map's storage.
type webWriter struct {
	h      http.Header
	status int
}

func newWebWriter() *webWriter { return &webWriter{h: http.Header{}} }

func (w *webWriter) Header() http.Header { return w.h }
func (w *webWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *webWriter) Write(b []byte) (int, error)       { w.WriteHeader(200); return len(b), nil }
func (w *webWriter) WriteString(s string) (int, error) { w.WriteHeader(200); return len(s), nil }
func (w *webWriter) reset()                            { clear(w.h); w.status = 0 }

func TestCORSConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  CORSConfig
		want string // substring of the error, "" for a valid config
	}{
		{"zero", CORSConfig{}, "no origin is allowed"},
		{"star with credentials", CORSConfig{AllowedOrigins: []string{"*"}, AllowCredentials: true}, `"*" with AllowCredentials`},
		{"path", CORSConfig{AllowedOrigins: []string{"https://a.example/x"}}, "not an origin"},
		{"trailing slash", CORSConfig{AllowedOrigins: []string{"https://a.example/"}}, "not an origin"},
		{"no scheme", CORSConfig{AllowedOrigins: []string{"a.example"}}, "not an origin"},
		{"query", CORSConfig{AllowedOrigins: []string{"https://a.example?x"}}, "not an origin"},
		{"userinfo", CORSConfig{AllowedOrigins: []string{"https://u@a.example"}}, "not an origin"},
		{"null", CORSConfig{AllowedOrigins: []string{"null"}}, "sandboxed"},
		{"empty", CORSConfig{AllowedOrigins: []string{""}}, "empty origin"},
		{"tld wildcard", CORSConfig{AllowedOrigins: []string{"https://*.com"}}, "top-level"},
		{"inner wildcard", CORSConfig{AllowedOrigins: []string{"https://a.*.example.com"}}, "wildcard origin"},
		{"two wildcards", CORSConfig{AllowedOrigins: []string{"https://*.*.example.com"}}, "wildcard origin"},
		{"wildcard scheme", CORSConfig{AllowedOrigins: []string{"*://a.example.com"}}, "wildcard origin"},
		{"wildcard path", CORSConfig{AllowedOrigins: []string{"https://*.example.com/x"}}, "wildcard origin"},
		{"bad method", CORSConfig{AllowedOrigins: []string{"https://a.example"}, AllowedMethods: []string{"GE T"}}, "not a method"},
		{"bad header", CORSConfig{AllowedOrigins: []string{"https://a.example"}, AllowedHeaders: []string{"X:Y"}}, "not a header"},
		{"bad exposed", CORSConfig{AllowedOrigins: []string{"https://a.example"}, ExposedHeaders: []string{"X Y"}}, "not a header"},
		{"methods star with credentials", CORSConfig{AllowedOrigins: []string{"https://a.example"}, AllowedMethods: []string{"*"}, AllowCredentials: true}, `AllowedMethods "*"`},
		{"headers star with credentials", CORSConfig{AllowedOrigins: []string{"https://a.example"}, AllowedHeaders: []string{"*"}, AllowCredentials: true}, `AllowedHeaders "*"`},
		{"exposed star with credentials", CORSConfig{AllowedOrigins: []string{"https://a.example"}, ExposedHeaders: []string{"*"}, AllowCredentials: true}, `ExposedHeaders "*"`},
		{"valid exact", CORSConfig{AllowedOrigins: []string{"https://a.example", "http://localhost:3000"}}, ""},
		{"valid wildcard", CORSConfig{AllowedOrigins: []string{"https://*.example.com", "https://*.example.com:8443", "http://*.localhost"}}, ""},
		{"valid func", CORSConfig{AllowOriginFunc: func(string) bool { return true }, AllowCredentials: true}, ""},
		{"valid stars", CORSConfig{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"*"}, AllowedHeaders: []string{"*"}, ExposedHeaders: []string{"*"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if CORS(tc.cfg) == nil {
					t.Fatal("CORS returned nil")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "CORS") {
				t.Fatalf("Validate error %v, want one containing %q", err, tc.want)
			}
			defer func() {
				if p := recover(); p == nil || p != err.Error() {
					t.Fatalf("CORS panicked with %v, want %q", p, err.Error())
				}
			}()
			CORS(tc.cfg)
		})
	}
}

// TestCORSPublicSuffixPatterns: a wildcard over a public suffix, of the
// Public Suffix List's ICANN or private section, is refused at construction
// with an error naming the pattern and the reason; one over a registrable
// domain below such a suffix is allowed and matches its subdomains only.
func TestCORSPublicSuffixPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		want    string // substring of the error; "" for allowed
		match   string // for an allowed pattern: an origin it matches
		miss    string // and one it does not
	}{
		{pattern: "https://*.com", want: "top-level domain"},
		{pattern: "https://*.internal", want: "top-level domain"}, // not on the list: the default rule
		{pattern: "https://*.co.uk", want: "ICANN section"},
		{pattern: "HTTPS://*.CO.UK", want: "ICANN section"},
		{pattern: "https://*.co.uk:8443", want: "ICANN section"},
		{pattern: "https://*.Co.Uk:443", want: "ICANN section"},
		{pattern: "http://*.com.au", want: "ICANN section"},
		{pattern: "https://*.xn--55qx5d.cn", want: "ICANN section"}, // 公司.cn
		{pattern: "https://*.foo.ck", want: "ICANN section"},        // under the list's *.ck rule
		{pattern: "https://*.github.io", want: "private section"},
		{pattern: "https://*.GitHub.IO:8080", want: "private section"},
		{pattern: "https://*.herokuapp.com", want: "private section"},
		{pattern: "http://*.blogspot.com", want: "private section"},
		{pattern: "https://*.公司.cn", want: "ASCII"},
		{pattern: "https://*.1.2.3.4", want: "IP address"},
		{pattern: "https://*.co.uk.", want: "empty label"},

		{pattern: "https://*.example.co.uk", match: "https://a.example.co.uk", miss: "https://evil.co.uk"},
		{pattern: "HTTPS://*.Example.CO.UK:8443", match: "https://a.b.example.co.uk:8443", miss: "https://a.example.co.uk"},
		{pattern: "https://*.example.co.uk:443", match: "https://A.example.co.uk", miss: "https://a.example.co.uk:8443"},
		{pattern: "https://*.example.com", match: "https://a.example.com", miss: "https://a.example.org"},
		{pattern: "https://*.alice.github.io", match: "https://docs.alice.github.io", miss: "https://bob.github.io"},
		{pattern: "https://*.www.ck", match: "https://a.www.ck", miss: "https://a.foo.ck"}, // the list's !www.ck exception
		{pattern: "http://*.localhost", match: "http://app.localhost", miss: "http://app.localhost:3000"},
		{pattern: "http://*.localhost:3000", match: "http://app.localhost:3000", miss: "http://app.localhost"},
		{pattern: "https://*.svc.cluster.local", match: "https://api.ns.svc.cluster.local", miss: "https://cluster.local"},
	}
	for _, tc := range cases {
		t.Run(tc.pattern, func(t *testing.T) {
			err := CORSConfig{AllowedOrigins: []string{tc.pattern}}.Validate()
			if tc.want != "" {
				if err == nil {
					t.Fatalf("Validate(%q) accepted", tc.pattern)
				}
				if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, strconv.Quote(tc.pattern)) {
					t.Fatalf("Validate(%q) error %q, want one naming the pattern and %q", tc.pattern, msg, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate(%q): %v", tc.pattern, err)
			}
			app, _ := corsApp(t, CORSConfig{AllowedOrigins: []string{tc.pattern}})
			for origin, want := range map[string]string{tc.match: tc.match, tc.miss: ""} {
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, corsRequest("GET", "/items", "Origin", origin))
				if got := rec.Header().Get("Access-Control-Allow-Origin"); got != want {
					t.Errorf("%s, Origin %s: Access-Control-Allow-Origin %q, want %q", tc.pattern, origin, got, want)
				}
			}
		})
	}
}

func TestOriginPatternMatch(t *testing.T) {
	p, err := parseOriginPattern("https://*.example.com")
	if err != nil {
		t.Fatal(err)
	}
	port, err := parseOriginPattern("https://*.Example.com:8443")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pat    originPattern
		origin string
		want   bool
	}{
		{p, "https://a.example.com", true},
		{p, "https://a.b.example.com", true},
		{p, "https://A-1.Example.COM", true},
		{p, "HTTPS://a.example.com", true},
		{p, "https://example.com", false},
		{p, "https://.example.com", false},
		{p, "https://a..example.com", false},
		{p, "https://-a.example.com", false},
		{p, "https://evilexample.com", false},
		{p, "http://a.example.com", false},
		{p, "https://a.example.com.evil.net", false},
		{p, "https://a.example.com:8443", false},
		{p, "https://evil.net/.example.com", false},
		{p, "https://evil.net?.example.com", false},
		{p, "https://u@a.example.com", false},
		{p, "https://evil.net:1.example.com", false},
		{port, "https://a.example.com:8443", true},
		{port, "https://a.example.com", false},
		{port, "https://a.example.com:443", false},
	}
	for _, tc := range cases {
		if got := tc.pat.match(tc.origin); got != tc.want {
			t.Errorf("%s%s match %q = %v, want %v", tc.pat.prefix, tc.pat.suffix, tc.origin, got, tc.want)
		}
	}
}

// corsApp serves GET and POST /items on an App whose scope middleware is
// CORS(cfg), counting the handler's calls.
func corsApp(t *testing.T, cfg CORSConfig) (*plinth.App, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	app := plinth.Bare()
	app.Use(CORS(cfg))
	h := func(c *plinth.Ctx) error { calls.Add(1); return c.Text(200, "ok") }
	app.Get("/items", h)
	app.Post("/items", h)
	return app, &calls
}

func corsRequest(method, path string, hdr ...string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	return r
}

func TestCORSActualRequests(t *testing.T) {
	cfg := CORSConfig{
		AllowedOrigins:   []string{"https://app.example", "https://*.example.com", "http://localhost:3000", "https://default.example:443", "http://*.dev.example:80"},
		AllowOriginFunc:  func(o string) bool { return o == "https://partner.example" },
		ExposedHeaders:   []string{"x-request-id", "ETag"},
		AllowCredentials: true,
	}
	app, calls := corsApp(t, cfg)
	cases := []struct {
		name, origin string // "" sends no Origin
		acao         string // "" means absent
	}{
		{"no origin", "", ""},
		{"exact", "https://app.example", "https://app.example"},
		{"exact, upper case", "https://APP.example", "https://APP.example"},
		{"localhost with port", "http://localhost:3000", "http://localhost:3000"},
		{"default port dropped from the config", "https://default.example", "https://default.example"},
		{"wildcard default port dropped", "http://a.dev.example", "http://a.dev.example"},
		{"other port", "http://localhost:3001", ""},
		{"wildcard", "https://api.example.com", "https://api.example.com"},
		{"nested wildcard", "https://a.b.example.com", "https://a.b.example.com"},
		{"wildcard apex", "https://example.com", ""},
		{"wildcard suffix trick", "https://evilexample.com", ""},
		{"wildcard other scheme", "http://api.example.com", ""},
		{"func", "https://partner.example", "https://partner.example"},
		{"disallowed", "https://evil.example", ""},
		{"null", "null", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			req := corsRequest("GET", "/items")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			h := rec.Header()
			if rec.Code != 200 || calls.Load() != before+1 {
				t.Fatalf("status %d, handler calls %d: the request must be served whatever its origin", rec.Code, calls.Load()-before)
			}
			if got := h.Values("Vary"); !slices.Equal(got, []string{"Origin"}) {
				t.Errorf("Vary %q, want [Origin]", got)
			}
			if got := h.Get("Access-Control-Allow-Origin"); got != tc.acao {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.acao)
			}
			want := map[string]string{"Access-Control-Allow-Credentials": "true", "Access-Control-Expose-Headers": "X-Request-Id, Etag"}
			for k, v := range want {
				if tc.acao == "" {
					v = ""
				}
				if got := h.Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
			for _, k := range []string{"Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age"} {
				if _, ok := h[k]; ok {
					t.Errorf("%s sent on an actual request", k)
				}
			}
		})
	}
}

func TestCORSAnyOrigin(t *testing.T) {
	app, _ := corsApp(t, CORSConfig{AllowedOrigins: []string{"*"}})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, corsRequest("GET", "/items", "Origin", "https://whoever.example"))
	if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin %q, want *", got)
	}
	if v, ok := rec.Header()["Vary"]; ok {
		t.Errorf("Vary %q: a \"*\" answer does not depend on the origin", v)
	}
	if _, ok := rec.Header()["Access-Control-Allow-Credentials"]; ok {
		t.Error("Access-Control-Allow-Credentials sent without AllowCredentials")
	}
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, corsRequest("OPTIONS", "/items", "Origin", "https://whoever.example", "Access-Control-Request-Method", "POST"))
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d, ACAO %q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
	}
	if got := rec.Header().Values("Vary"); !slices.Equal(got, []string{"Access-Control-Request-Method, Access-Control-Request-Headers"}) {
		t.Errorf("preflight Vary %q", got)
	}
}

func TestCORSPreflight(t *testing.T) {
	base := CORSConfig{
		AllowedOrigins: []string{"https://app.example"},
		AllowedMethods: []string{"get", "post", "put", "DELETE"},
		AllowedHeaders: []string{"content-type", "Authorization", "X-Api-Key"},
	}
	const origin = "https://app.example"
	type want struct {
		status  int
		detail  string            // problem detail for a 403
		headers map[string]string // expected CORS headers ("" absent)
	}
	allowed := func(extra map[string]string) map[string]string {
		m := map[string]string{
			"Access-Control-Allow-Origin":          origin,
			"Access-Control-Allow-Methods":         "GET, POST, PUT, DELETE",
			"Access-Control-Allow-Headers":         "Content-Type, Authorization, X-Api-Key",
			"Access-Control-Max-Age":               "300",
			"Access-Control-Allow-Credentials":     "",
			"Access-Control-Allow-Private-Network": "",
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	refused := map[string]string{
		"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": "", "Access-Control-Allow-Headers": "",
		"Access-Control-Max-Age": "",
	}
	cases := []struct {
		name string
		cfg  func(*CORSConfig)
		hdr  []string
		want want
	}{
		{"allowed", nil, []string{"Access-Control-Request-Method", "PUT"}, want{204, "", allowed(nil)}},
		{"allowed with headers", nil,
			[]string{"Access-Control-Request-Method", "DELETE", "Access-Control-Request-Headers", "authorization,content-type, x-api-key"},
			want{204, "", allowed(nil)}},
		{"headers over two lines", nil,
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "x-api-key", "Access-Control-Request-Headers", "Content-Type"},
			want{204, "", allowed(nil)}},
		{"safelisted method always", func(c *CORSConfig) { c.AllowedMethods = []string{"PUT"} },
			[]string{"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Methods": "PUT"})}},
		{"origin refused", nil, []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "PUT"},
			want{403, "CORS preflight refused: origin not allowed", refused}},
		{"method refused", nil, []string{"Access-Control-Request-Method", "PATCH"},
			want{403, `CORS preflight refused: method "PATCH" not allowed`, refused}},
		{"method is case-sensitive", nil, []string{"Access-Control-Request-Method", "Put"},
			want{403, `CORS preflight refused: method "Put" not allowed`, refused}},
		{"header refused", nil, []string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "content-type,x-secret"},
			want{403, `CORS preflight refused: header "x-secret" not allowed`, refused}},
		{"default headers", func(c *CORSConfig) { c.AllowedHeaders = nil },
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "accept,content-type"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Headers": "Accept, Accept-Language, Content-Language, Content-Type"})}},
		{"default headers refuse authorization", func(c *CORSConfig) { c.AllowedHeaders = nil },
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "authorization"},
			want{403, `CORS preflight refused: header "authorization" not allowed`, refused}},
		{"default methods", func(c *CORSConfig) { c.AllowedMethods = nil },
			[]string{"Access-Control-Request-Method", "DELETE"},
			want{403, `CORS preflight refused: method "DELETE" not allowed`, refused}},
		{"default methods rendered", func(c *CORSConfig) { c.AllowedMethods = nil },
			[]string{"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-api-key"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Methods": "GET, HEAD, POST"})}},
		{"star headers", func(c *CORSConfig) { c.AllowedHeaders = []string{"*"} },
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "x-anything,x-else"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Headers": "*"})}},
		{"star headers never cover authorization", func(c *CORSConfig) { c.AllowedHeaders = []string{"*"} },
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "x-anything,authorization"},
			want{403, `CORS preflight refused: header "authorization" not allowed`, refused}},
		{"star headers with authorization listed", func(c *CORSConfig) { c.AllowedHeaders = []string{"*", "authorization"} },
			[]string{"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "x-anything,authorization"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Headers": "*, Authorization"})}},
		{"star methods", func(c *CORSConfig) { c.AllowedMethods = []string{"*"} },
			[]string{"Access-Control-Request-Method", "PURGE"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Methods": "*"})}},
		{"credentials", func(c *CORSConfig) { c.AllowCredentials = true },
			[]string{"Access-Control-Request-Method", "PUT"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Credentials": "true"})}},
		{"max age", func(c *CORSConfig) { c.MaxAge = 90*time.Minute + 500*time.Millisecond },
			[]string{"Access-Control-Request-Method", "PUT"},
			want{204, "", allowed(map[string]string{"Access-Control-Max-Age": "5400"})}},
		{"no max age", func(c *CORSConfig) { c.MaxAge = -1 },
			[]string{"Access-Control-Request-Method", "PUT"},
			want{204, "", allowed(map[string]string{"Access-Control-Max-Age": ""})}},
		{"private network allowed", func(c *CORSConfig) { c.AllowPrivateNetwork = true },
			[]string{"Access-Control-Request-Method", "GET", "Access-Control-Request-Private-Network", "true"},
			want{204, "", allowed(map[string]string{"Access-Control-Allow-Private-Network": "true"})}},
		{"private network refused", nil,
			[]string{"Access-Control-Request-Method", "GET", "Access-Control-Request-Private-Network", "true"},
			want{403, "CORS preflight refused: private network access not allowed", refused}},
		{"private network not asked", func(c *CORSConfig) { c.AllowPrivateNetwork = true },
			[]string{"Access-Control-Request-Method", "GET"},
			want{204, "", allowed(nil)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			app, calls := corsApp(t, cfg)
			req := corsRequest("OPTIONS", "/items")
			req.Header.Set("Origin", origin)
			for i := 0; i+1 < len(tc.hdr); i += 2 {
				if tc.hdr[i] == "Origin" {
					req.Header.Set("Origin", tc.hdr[i+1])
					continue
				}
				req.Header.Add(tc.hdr[i], tc.hdr[i+1])
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if calls.Load() != 0 {
				t.Error("a preflight reached the handler")
			}
			if rec.Code != tc.want.status {
				t.Fatalf("status %d, want %d (body %s)", rec.Code, tc.want.status, rec.Body)
			}
			h := rec.Header()
			for k, v := range tc.want.headers {
				if got := h.Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
			if got := h.Values("Vary"); !slices.Equal(got, []string{"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}) {
				t.Errorf("Vary %q", got)
			}
			if tc.want.status == 204 {
				if rec.Body.Len() != 0 {
					t.Errorf("body %q on a 204", rec.Body)
				}
				return
			}
			if ct := h.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", ct)
			}
			var doc struct {
				Status int    `json:"status"`
				Detail string `json:"detail"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || doc.Status != 403 || doc.Detail != tc.want.detail {
				t.Errorf("problem %s (%v), want status 403, detail %q", rec.Body, err, tc.want.detail)
			}
		})
	}
}

// TestCORSScopes checks that preflights are answered by scope middleware on
// paths the router would otherwise answer itself: the group prefix, an
// unknown path under it (404), a path with only GET (automatic OPTIONS, 405).
func TestCORSScopes(t *testing.T) {
	const origin = "https://app.example"
	cors := CORS(CORSConfig{AllowedOrigins: []string{origin}, AllowedMethods: []string{"GET", "PUT", "DELETE"}})
	for _, install := range []string{"group", "app", "app, New"} {
		t.Run(install, func(t *testing.T) {
			var app *plinth.App
			if install == "app, New" {
				app = plinth.New()
			} else {
				app = plinth.Bare()
			}
			var calls atomic.Int64
			h := func(c *plinth.Ctx) error { calls.Add(1); return c.Text(200, "ok") }
			app.Get("/outside", h)
			api := app.Group("/api")
			api.Get("/items", h)
			api.Get("/items/{id}", h)
			if install == "group" {
				api.Use(cors)
			} else {
				app.Use(cors)
			}
			preflight := func(path, method string) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, corsRequest("OPTIONS", path, "Origin", origin, "Access-Control-Request-Method", method))
				return rec
			}
			for _, path := range []string{"/api", "/api/", "/api/unknown", "/api/items", "/api/items/7", "/api/items/7/deeper"} {
				rec := preflight(path, "PUT")
				if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != origin ||
					rec.Header().Get("Access-Control-Allow-Methods") != "GET, PUT, DELETE" {
					t.Errorf("preflight %s: %d, headers %v", path, rec.Code, rec.Header())
				}
				if _, ok := rec.Header()["Location"]; ok {
					t.Errorf("preflight %s redirected", path)
				}
				if rec := preflight(path, "PATCH"); rec.Code != 403 {
					t.Errorf("refused preflight %s: %d, want 403", path, rec.Code)
				}
			}
			if calls.Load() != 0 {
				t.Errorf("preflights reached handlers %d times", calls.Load())
			}
			// Actual requests on fallbacks carry the headers too, so that
			// the script can read the 404 or 405.
			for path, status := range map[string]int{"/api/unknown": 404, "/api/items": 200} {
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, corsRequest("GET", path, "Origin", origin))
				if rec.Code != status || rec.Header().Get("Access-Control-Allow-Origin") != origin {
					t.Errorf("GET %s: %d, ACAO %q", path, rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
				}
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, corsRequest("DELETE", "/api/items", "Origin", origin))
			if rec.Code != 405 || rec.Header().Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("DELETE /api/items: %d, ACAO %q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
			}
			// Outside the group, group-level CORS does not apply.
			rec = preflight("/outside", "PUT")
			if install == "group" {
				if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "" || rec.Header().Get("Allow") == "" {
					t.Errorf("preflight outside the group: %d, %v: want the router's plain OPTIONS answer", rec.Code, rec.Header())
				}
			} else if rec.Header().Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("preflight /outside with App-level CORS: %d, %v", rec.Code, rec.Header())
			}
			// An OPTIONS request that is not a preflight is left to the router.
			rec = httptest.NewRecorder()
			app.ServeHTTP(rec, corsRequest("OPTIONS", "/api/items", "Origin", origin))
			if rec.Code != 204 || rec.Header().Get("Allow") == "" || rec.Header().Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("plain OPTIONS: %d, %v", rec.Code, rec.Header())
			}
		})
	}
}

func TestCORSRefusedPreflightCarriesRequestID(t *testing.T) {
	app := plinth.New()
	app.Use(CORS(CORSConfig{AllowedOrigins: []string{"https://app.example"}}))
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, corsRequest("OPTIONS", "/", "Origin", "https://evil.example", "Access-Control-Request-Method", "GET", "X-Request-Id", "abc-123"))
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), `"request_id":"abc-123"`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

func TestCORSVaryMerge(t *testing.T) {
	const origin = "https://app.example"
	cors := CORS(CORSConfig{AllowedOrigins: []string{origin}})
	setVary := func(v ...string) plinth.Middleware {
		return func(next plinth.HandlerFunc) plinth.HandlerFunc {
			return func(c *plinth.Ctx) error {
				for _, s := range v {
					c.Header().Add("Vary", s)
				}
				return next(c)
			}
		}
	}
	cases := []struct {
		name   string
		before []string // Vary lines set before CORS runs
		twice  bool     // CORS installed on the App and on the group
		method string
		want   []string
	}{
		{"none", nil, false, "GET", []string{"Origin"}},
		{"other", []string{"Accept-Encoding"}, false, "GET", []string{"Accept-Encoding, Origin"}},
		{"other lines", []string{"Accept-Encoding", "Cookie"}, false, "GET", []string{"Accept-Encoding, Cookie, Origin"}},
		{"star in a list", []string{"Cookie, *"}, false, "GET", []string{"*"}},
		{"already, other case", []string{"Accept-Encoding, origin"}, false, "GET", []string{"Accept-Encoding, origin"}},
		{"star", []string{"*"}, false, "GET", []string{"*"}},
		{"twice", nil, true, "GET", []string{"Origin"}},
		{"preflight twice", nil, true, "OPTIONS", []string{"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}},
		{"preflight partial", []string{"Origin"}, false, "OPTIONS", []string{"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}},
		{"preflight other", []string{"Accept-Encoding"}, false, "OPTIONS", []string{"Accept-Encoding, Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := plinth.Bare()
			if tc.before != nil {
				app.Use(setVary(tc.before...))
			}
			app.Use(cors)
			api := app.Group("/api")
			if tc.twice {
				api.Use(cors)
			}
			api.Get("/x", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
			req := corsRequest(tc.method, "/api/x", "Origin", origin)
			if tc.method == "OPTIONS" {
				req.Header.Set("Access-Control-Request-Method", "GET")
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if got := rec.Header().Values("Vary"); !slices.Equal(got, tc.want) {
				t.Errorf("Vary %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCORSAllocations: a simple request from an allowed exact origin, and its
// preflight, allocate nothing; a wildcard match allocates the echoed value.
func TestCORSAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	app := plinth.Bare()
	app.Use(CORS(CORSConfig{
		AllowedOrigins:   []string{"https://a.example", "https://app.example", "https://*.example.com"},
		AllowedMethods:   []string{"GET", "PUT"},
		ExposedHeaders:   []string{"X-Request-Id"},
		AllowCredentials: true,
	}))
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") })
	app.Build()
	cases := []struct {
		name   string
		req    *http.Request
		status int
		budget float64
	}{
		{"no origin", corsRequest("GET", "/"), 200, 0},
		{"exact origin", corsRequest("GET", "/", "Origin", "https://app.example"), 200, 0},
		{"disallowed origin", corsRequest("GET", "/", "Origin", "https://evil.example"), 200, 0},
		{"preflight", corsRequest("OPTIONS", "/", "Origin", "https://app.example", "Access-Control-Request-Method", "PUT",
			"Access-Control-Request-Headers", "content-type"), 204, 0},
		{"wildcard origin", corsRequest("GET", "/", "Origin", "https://api.example.com"), 200, 1},
	}
	w := newWebWriter()
	for _, tc := range cases {
		w.reset()
		app.ServeHTTP(w, tc.req)
		if w.status != tc.status {
			t.Fatalf("%s: status %d, want %d", tc.name, w.status, tc.status)
		}
		got := testing.AllocsPerRun(200, func() {
			w.reset()
			app.ServeHTTP(w, tc.req)
		})
		if got != tc.budget {
			t.Errorf("%s: %v allocs/request, budget %v", tc.name, got, tc.budget)
		}
	}
}

// TestCORSVaryMergeAllocations: merging Origin into a Vary that an outer
// layer set (the same value on every response) allocates nothing once the
// merge is remembered.
func TestCORSVaryMergeAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	outer := []string{"Accept-Language"}
	app := plinth.Bare()
	app.Use(func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			c.Header()["Vary"] = outer
			return next(c)
		}
	}, CORS(CORSConfig{AllowedOrigins: []string{"https://app.example"}}))
	app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	app.Build()
	w := newWebWriter()
	for _, req := range []*http.Request{corsRequest("GET", "/"), corsRequest("GET", "/", "Origin", "https://app.example")} {
		w.reset()
		app.ServeHTTP(w, req)
		if got := w.h["Vary"]; !slices.Equal(got, []string{"Accept-Language, Origin"}) {
			t.Fatalf("Vary %q", got)
		}
		got := testing.AllocsPerRun(200, func() {
			w.reset()
			app.ServeHTTP(w, req)
		})
		if got != 0 {
			t.Errorf("Origin %q: %v allocs/request, budget 0", req.Header.Get("Origin"), got)
		}
	}
	if outer[0] != "Accept-Language" {
		t.Fatalf("the outer layer's shared value was written into: %q", outer)
	}
}

func ExampleCORS() {
	app := plinth.Bare()
	app.Use(CORS(CORSConfig{
		AllowedOrigins: []string{"https://app.example.com"},
		AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: []string{"Content-Type", "Authorization"},
	}))
	app.Get("/items/{id}", func(c *plinth.Ctx) error { return c.Text(200, "item") })

	req := httptest.NewRequest("OPTIONS", "/items/7", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "PUT")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	fmt.Println(rec.Code)
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age", "Vary"} {
		fmt.Printf("%s: %s\n", k, rec.Header().Get(k))
	}
	// Output:
	// 204
	// Access-Control-Allow-Origin: https://app.example.com
	// Access-Control-Allow-Methods: GET, PUT
	// Access-Control-Allow-Headers: Content-Type, Authorization
	// Access-Control-Max-Age: 300
	// Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers
}

// TestCORSOnBodyLimit: the 413 that the core decides from
// Content-Length passes through CORS like any error, so a browser reads the
// 413 instead of reporting a CORS failure.
func TestCORSOnBodyLimit(t *testing.T) {
	app := plinth.New()
	app.SetBodyLimit(10)
	app.Use(CORS(CORSConfig{AllowedOrigins: []string{"https://app.example"}}))
	app.Post("/upload", func(c *plinth.Ctx) error { return c.NoContent(204) })
	req := httptest.NewRequest("POST", "/upload", strings.NewReader(strings.Repeat("x", 100)))
	req.Header.Set("Origin", "https://app.example")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != 413 || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" || rec.Header().Get("X-Request-Id") == "" {
		t.Errorf("413 for an allowed origin: %d, Access-Control-Allow-Origin %q, X-Request-Id %q",
			rec.Code, rec.Header().Get("Access-Control-Allow-Origin"), rec.Header().Get("X-Request-Id"))
	}
}
