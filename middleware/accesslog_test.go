package middleware

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// captureHandler keeps every record at or above its level.
type captureHandler struct {
	level   slog.Level
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func (h *captureHandler) take() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.records
	h.records = nil
	return r
}

// attrs flattens a record's attributes to strings.
func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

// stepClock returns a clock that advances by step at each reading.
func stepClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}

// accessLogApp installs AccessLog with cfg (its Logger replaced by one on h)
// and a clock that steps 42ms per reading.
func accessLogApp(app *plinth.App, h slog.Handler, cfg AccessLogConfig) *plinth.App {
	cfg.Logger = slog.New(h)
	app.Use(newAccessLog(cfg, stepClock(42*time.Millisecond)).middleware)
	app.Get("/users/{id}", func(c *plinth.Ctx) error { return c.Text(200, "user "+c.Param("id")) })
	app.Get("/empty", func(c *plinth.Ctx) error { return nil })
	app.Get("/missing", func(c *plinth.Ctx) error { return plinth.NotFound("no such thing") })
	app.Get("/teapot", func(c *plinth.Ctx) error { return c.Text(418, "short and stout") })
	app.Get("/fail", func(c *plinth.Ctx) error { return errors.New("database on fire") })
	app.Get("/unavailable", func(c *plinth.Ctx) error { return plinth.Error(503, "later") })
	app.Get("/late", func(c *plinth.Ctx) error {
		_ = c.Text(200, "partial")
		return errors.New("after the response started")
	})
	app.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "plain") })
	return app
}

func TestAccessLogRecords(t *testing.T) {
	h := &captureHandler{level: slog.LevelDebug}
	app := plinth.New()
	app.Logger = slog.New(slog.DiscardHandler) // the renderer's own logs
	app.TrustedProxies = defaultTrusted
	accessLogApp(app, h, AccessLogConfig{})
	cases := []struct {
		method, path string
		hdr          []string
		level        slog.Level
		want         map[string]string // "-" means absent
	}{
		{"GET", "/users/7?token=secret", []string{"X-Request-Id", "req-1"}, slog.LevelInfo, map[string]string{
			"method": "GET", "pattern": "GET /users/{id}", "path": "/users/7", "status": "200", "bytes": "6",
			"duration": "42ms", "request_id": "req-1", "client_ip": "192.0.2.1", "user_agent": "-", "referer": "-"}},
		{"HEAD", "/users/7", nil, slog.LevelInfo, map[string]string{"method": "HEAD", "pattern": "GET /users/{id}", "status": "200"}},
		{"GET", "/empty", nil, slog.LevelInfo, map[string]string{"status": "200", "bytes": "0"}},
		{"GET", "/plain", nil, slog.LevelInfo, map[string]string{"pattern": "GET /plain", "status": "200", "bytes": "5"}},
		{"GET", "/nowhere", nil, slog.LevelInfo, map[string]string{"pattern": "", "path": "/nowhere", "status": "404"}},
		{"DELETE", "/empty", nil, slog.LevelInfo, map[string]string{"pattern": "", "status": "405"}},
		{"GET", "/missing", nil, slog.LevelInfo, map[string]string{"pattern": "GET /missing", "status": "404"}},
		{"GET", "/teapot", nil, slog.LevelInfo, map[string]string{"status": "418", "bytes": "15"}},
		{"GET", "/fail", nil, slog.LevelError, map[string]string{"status": "500"}},
		{"GET", "/unavailable", nil, slog.LevelError, map[string]string{"status": "503"}},
		{"GET", "/late", nil, slog.LevelInfo, map[string]string{"status": "200", "bytes": "7"}},
		{"GET", "/empty", []string{"X-Forwarded-For", "198.51.100.7"}, slog.LevelInfo, map[string]string{"client_ip": "192.0.2.1"}},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			req.Header.Add(tc.hdr[i], tc.hdr[i+1])
		}
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		recs := h.take()
		if len(recs) != 1 {
			t.Errorf("%s %s: %d records, want 1", tc.method, tc.path, len(recs))
			continue
		}
		r := recs[0]
		got := attrs(r)
		if r.Message != "request" || r.Level != tc.level {
			t.Errorf("%s %s: message %q level %v, want \"request\" %v", tc.method, tc.path, r.Message, r.Level, tc.level)
		}
		if got["status"] != strconv.Itoa(rec.Code) {
			t.Errorf("%s %s: logged status %s, response %d", tc.method, tc.path, got["status"], rec.Code)
		}
		if got["request_id"] == "" || got["request_id"] != rec.Header().Get("X-Request-Id") {
			t.Errorf("%s %s: request_id %q, response's %q", tc.method, tc.path, got["request_id"], rec.Header().Get("X-Request-Id"))
		}
		for k, v := range tc.want {
			g, ok := got[k]
			if v == "-" {
				if ok {
					t.Errorf("%s %s: %s=%q, want absent", tc.method, tc.path, k, g)
				}
				continue
			}
			if !ok || g != v {
				t.Errorf("%s %s: %s=%q, want %q", tc.method, tc.path, k, g, v)
			}
		}
	}

	// A trusted proxy's client is logged.
	app2 := plinth.Bare()
	app2.TrustedProxies = defaultTrusted
	accessLogApp(app2, h, AccessLogConfig{UserAgent: true, Referer: true, Message: "http"})
	req := httptest.NewRequest("GET", "/empty", nil)
	req.RemoteAddr = "10.0.0.1:5000"
	req.Header.Set("X-Forwarded-For", "2001:db8::7")
	req.Header.Set("User-Agent", "curl/8")
	req.Header.Set("Referer", "https://app.example/page")
	app2.ServeHTTP(httptest.NewRecorder(), req)
	recs := h.take()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	got := attrs(recs[0])
	if recs[0].Message != "http" || got["client_ip"] != "2001:db8::7" || got["user_agent"] != "curl/8" ||
		got["referer"] != "https://app.example/page" {
		t.Errorf("record %q %v", recs[0].Message, got)
	}
	if _, ok := got["request_id"]; ok {
		t.Error("request_id logged on Bare, which has none")
	}
}

// TestAccessLogRendersErrors: an error returned below AccessLog is rendered
// once, by AccessLog, so the record and the response agree.
func TestAccessLogRendersErrors(t *testing.T) {
	h := &captureHandler{}
	app := accessLogApp(plinth.Bare(), h, AccessLogConfig{})
	app.Logger = slog.New(slog.DiscardHandler)
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/missing", nil))
	if rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" ||
		strings.Count(rec.Body.String(), `"status":404`) != 1 || !strings.Contains(rec.Body.String(), "no such thing") {
		t.Errorf("%d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	recs := h.take()
	if len(recs) != 1 || attrs(recs[0])["status"] != "404" {
		t.Errorf("records %v", recs)
	}
}

// levelVar returns a *slog.LevelVar holding l.
func levelVar(l slog.Level) *slog.LevelVar {
	v := new(slog.LevelVar)
	v.Set(l)
	return v
}

func TestAccessLogLevels(t *testing.T) {
	cases := []struct {
		name      string
		handler   slog.Level
		cfg       AccessLogConfig
		path      string
		wantLevel slog.Level
		logged    bool
	}{
		{"ok at info", slog.LevelInfo, AccessLogConfig{}, "/empty", slog.LevelInfo, true},
		{"4xx at info", slog.LevelInfo, AccessLogConfig{}, "/missing", slog.LevelInfo, true},
		{"5xx at error", slog.LevelInfo, AccessLogConfig{}, "/fail", slog.LevelError, true},
		{"custom level", slog.LevelDebug, AccessLogConfig{Level: slog.LevelDebug}, "/empty", slog.LevelDebug, true},
		{"4xx follows the level", slog.LevelDebug, AccessLogConfig{Level: slog.LevelDebug}, "/missing", slog.LevelDebug, true},
		{"custom 4xx", slog.LevelInfo, AccessLogConfig{ClientErrorLevel: slog.LevelWarn}, "/teapot", slog.LevelWarn, true},
		{"custom 5xx", slog.LevelInfo, AccessLogConfig{ServerErrorLevel: slog.LevelWarn}, "/unavailable", slog.LevelWarn, true},
		{"handler at warn drops 2xx", slog.LevelWarn, AccessLogConfig{}, "/empty", 0, false},
		{"handler at warn drops 4xx", slog.LevelWarn, AccessLogConfig{}, "/missing", 0, false},
		{"handler at warn keeps 5xx", slog.LevelWarn, AccessLogConfig{}, "/fail", slog.LevelError, true},
		{"4xx set to info under debug", slog.LevelDebug, AccessLogConfig{Level: slog.LevelDebug, ClientErrorLevel: slog.LevelInfo}, "/missing", slog.LevelInfo, true},
		{"level var read once", slog.LevelDebug, AccessLogConfig{Level: levelVar(slog.LevelWarn)}, "/empty", slog.LevelWarn, true},
		{"handler at warn keeps warned 4xx", slog.LevelWarn, AccessLogConfig{ClientErrorLevel: slog.LevelWarn}, "/missing", slog.LevelWarn, true},
		{"all disabled", slog.LevelError + 4, AccessLogConfig{}, "/fail", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &captureHandler{level: tc.handler}
			app := accessLogApp(plinth.Bare(), h, tc.cfg)
			app.Logger = slog.New(slog.DiscardHandler)
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			recs := h.take()
			if !tc.logged {
				if len(recs) != 0 {
					t.Errorf("%d records, want none", len(recs))
				}
				if rec.Code == 200 && tc.path != "/empty" {
					t.Errorf("status %d: the error was not rendered", rec.Code)
				}
				return
			}
			if len(recs) != 1 || recs[0].Level != tc.wantLevel {
				t.Fatalf("records %v, want one at %v", recs, tc.wantLevel)
			}
		})
	}
}

// TestAccessLogPanic: a panic passes through AccessLog unlogged by it; New's
// recovery layer, outermost, answers 500 and logs it.
func TestAccessLogPanic(t *testing.T) {
	access := &captureHandler{}
	appLog := &captureHandler{}
	app := plinth.New()
	app.Logger = slog.New(appLog)
	app.Use(AccessLog(AccessLogConfig{Logger: slog.New(access)}))
	app.Get("/boom", func(c *plinth.Ctx) error { panic("boom") })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest("GET", "/boom", nil))
	if rec.Code != 500 {
		t.Errorf("status %d", rec.Code)
	}
	if n := len(access.take()); n != 0 {
		t.Errorf("%d access records for a panic, want 0", n)
	}
	if recs := appLog.take(); len(recs) != 1 || !strings.Contains(recs[0].Message, "panic") {
		t.Errorf("recovery records %v", recs)
	}
}

// TestAccessLogHandlerTimeout: the default layer's timeout answers 503 after
// AccessLog returned; the record says 503 too.
func TestAccessLogHandlerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &captureHandler{}
		app := plinth.New()
		app.Logger = slog.New(slog.DiscardHandler)
		app.HandlerTimeout = time.Second
		app.Use(AccessLog(AccessLogConfig{Logger: slog.New(h)}))
		app.Get("/slow", func(c *plinth.Ctx) error {
			<-c.Context().Done()
			return c.Context().Err()
		})
		app.Get("/quiet", func(c *plinth.Ctx) error {
			<-c.Context().Done()
			return nil
		})
		for _, path := range []string{"/slow", "/quiet"} {
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			recs := h.take()
			if rec.Code != 503 || len(recs) != 1 || attrs(recs[0])["status"] != "503" || recs[0].Level != slog.LevelError {
				t.Errorf("%s: response %d, records %v", path, rec.Code, recs)
			}
		}
	})
}

// TestAccessLogNilLogger: nil means slog.Default().
func TestAccessLogNilLogger(t *testing.T) {
	h := &captureHandler{}
	old := slog.Default()
	slog.SetDefault(slog.New(h))
	defer slog.SetDefault(old)
	app := plinth.Bare()
	app.Use(AccessLog(AccessLogConfig{}))
	app.Get("/", func(c *plinth.Ctx) error { return nil })
	app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if n := len(h.take()); n != 1 {
		t.Errorf("%d records through slog.Default, want 1", n)
	}
}

func TestAccessLogConcurrent(t *testing.T) {
	h := &captureHandler{}
	app := plinth.New()
	app.Use(AccessLog(AccessLogConfig{Logger: slog.New(h)}))
	app.Get("/users/{id}", func(c *plinth.Ctx) error { return c.Text(200, c.Param("id")) })
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := strconv.Itoa(w*each + i + 1)
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, httptest.NewRequest("GET", "/users/"+id, nil))
				if rec.Body.String() != id {
					t.Errorf("body %q, want %q", rec.Body, id)
				}
			}
		}()
	}
	wg.Wait()
	recs := h.take()
	if len(recs) != workers*each {
		t.Fatalf("%d records, want %d", len(recs), workers*each)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		a := attrs(r)
		if id := strings.TrimPrefix(a["path"], "/users/"); a["pattern"] != "GET /users/{id}" || a["status"] != "200" ||
			a["bytes"] != strconv.Itoa(len(id)) {
			t.Errorf("record %v", a)
		}
		if seen[a["path"]] || seen["id:"+a["request_id"]] {
			t.Errorf("duplicate record %v", a)
		}
		seen[a["path"]], seen["id:"+a["request_id"]] = true, true
	}
}

// nopHandler is enabled at every level and does nothing, to measure what
// AccessLog itself costs.
type nopHandler struct{}

func (nopHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (nopHandler) Handle(context.Context, slog.Record) error { return nil }
func (h nopHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h nopHandler) WithGroup(string) slog.Handler           { return h }

// TestAccessLogAllocations pins the per-request allocations on a minimal
// Bare() route: none when the logger's level is disabled; enabled, the
// client IP's text (1) and slog's overflow of the record's five inline
// attributes (1), plus what the handler allocates (slog.JSONHandler to
// io.Discard: nothing more, its buffers are pooled).
func TestAccessLogAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for _, tc := range []struct {
		name   string
		logger *slog.Logger
		budget float64
	}{
		{"disabled", slog.New(slog.DiscardHandler), 0},
		{"level disabled", slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1})), 0},
		{"enabled, nop handler", slog.New(nopHandler{}), 2},
		{"only 5xx enabled, 200", slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})), 0},
		{"enabled, JSON handler", slog.New(slog.NewJSONHandler(io.Discard, nil)), 2},
	} {
		app := plinth.Bare()
		app.Use(AccessLog(AccessLogConfig{Logger: tc.logger}))
		app.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "Hello, World!") })
		app.Build()
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = netip.MustParseAddrPort("192.0.2.1:1234").String()
		w := newWebWriter()
		got := testing.AllocsPerRun(200, func() {
			w.reset()
			app.ServeHTTP(w, req)
		})
		if got != tc.budget {
			t.Errorf("%s: %v allocs/request, budget %v", tc.name, got, tc.budget)
		}
	}
}
