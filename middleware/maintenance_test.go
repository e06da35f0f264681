package middleware

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

func newMaintenanceApp(m *Maintenance) *plinth.App {
	app := plinth.Bare()
	app.Logger = discardLogger()
	app.Use(m.Middleware())
	for _, p := range []string{"/{$}", "/admin", "/admin/users", "/administrator", "/static/app.js", "/api/v1/status", "/api/v1/statusx"} {
		app.Get(p, okHandler)
	}
	app.Handle("/admin/maintenance", m.Handler())
	return app
}

func TestMaintenanceToggle(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{Logger: discardLogger()})
	app := newMaintenanceApp(m)
	if m.Enabled() {
		t.Fatal("enabled at start")
	}
	if w := serve(app, httptest.NewRequest("GET", "/", nil)); w.Code != 200 {
		t.Fatalf("disabled: %d", w.Code)
	}
	m.Enable(0)
	w := serve(app, httptest.NewRequest("GET", "/", nil))
	checkProblem(t, w, 503, "60")
	if !strings.Contains(w.Body.String(), "maintenance") {
		t.Errorf("body %q does not say maintenance", w.Body)
	}
	// Unknown paths and other methods are refused too (the middleware runs
	// on the fallbacks).
	checkProblem(t, serve(app, httptest.NewRequest("GET", "/nope", nil)), 503, "60")
	checkProblem(t, serve(app, httptest.NewRequest("POST", "/", nil)), 503, "60")
	m.Enable(90*time.Second + time.Millisecond) // rounds up
	checkProblem(t, serve(app, httptest.NewRequest("GET", "/", nil)), 503, "91")
	m.Disable()
	if w := serve(app, httptest.NewRequest("GET", "/", nil)); w.Code != 200 || w.Header().Get("Retry-After") != "" {
		t.Fatalf("disabled again: %d %v", w.Code, w.Header())
	}
}

func TestMaintenanceAllowList(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{
		AllowPaths:    []string{"/admin/maintenance", "/api/v1/status"},
		AllowPrefixes: []string{"/admin", "/static/"},
		RetryAfter:    5 * time.Minute,
		Detail:        "back at noon",
		Logger:        discardLogger(),
	})
	app := newMaintenanceApp(m)
	m.Enable(0)
	for _, tc := range []struct {
		path string
		open bool
	}{
		{"/", false},
		{"/admin", true},
		{"/admin/users", true},
		{"/administrator", false}, // prefixes stop at segment boundaries
		{"/static/app.js", true},
		{"/api/v1/status", true},
		{"/api/v1/statusx", false}, // exact means exact
		{"/admin/maintenance", true},
	} {
		w := serve(app, httptest.NewRequest("GET", tc.path, nil))
		if tc.open && w.Code != 200 {
			t.Errorf("%s: %d, want it served", tc.path, w.Code)
		}
		if !tc.open {
			checkProblem(t, w, 503, "300")
			if !strings.Contains(w.Body.String(), "back at noon") {
				t.Errorf("%s: body %q lacks the configured detail", tc.path, w.Body)
			}
		}
	}
}

func TestMaintenanceAdminEndpoint(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{AllowPaths: []string{"/admin/maintenance"}, Logger: discardLogger()})
	app := newMaintenanceApp(m)
	call := func(method, body string) *httptest.ResponseRecorder {
		var r *http.Request
		if body == "" {
			r = httptest.NewRequest(method, "/admin/maintenance", nil)
		} else {
			r = httptest.NewRequest(method, "/admin/maintenance", strings.NewReader(body))
		}
		return serve(app, r)
	}
	type state struct {
		Enabled    bool    `json:"enabled"`
		RetryAfter int64   `json:"retry_after"`
		Since      *string `json:"since"`
	}
	decode := func(w *httptest.ResponseRecorder) state {
		t.Helper()
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("status %d, Content-Type %q, body %q", w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		var s state
		if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := decode(call("GET", "")); s.Enabled || s.Since != nil {
		t.Fatalf("initial state %+v", s)
	}
	if s := decode(call("POST", "")); !s.Enabled || s.RetryAfter != 60 || s.Since == nil {
		t.Fatalf("POST without a body: %+v", s)
	}
	if !m.Enabled() {
		t.Fatal("POST did not enable")
	}
	if s := decode(call("PUT", `{"retry_after": 300}`)); !s.Enabled || s.RetryAfter != 300 {
		t.Fatalf("PUT 300: %+v", s)
	}
	checkProblem(t, serve(app, httptest.NewRequest("GET", "/", nil)), 503, "300")
	if s := decode(call("GET", "")); !s.Enabled || s.RetryAfter != 300 {
		t.Fatalf("GET while enabled: %+v", s)
	}
	if s := decode(call("DELETE", "")); s.Enabled {
		t.Fatalf("DELETE: %+v", s)
	}
	if m.Enabled() {
		t.Fatal("DELETE did not disable")
	}

	// Bad input: a clear status and a problem body, never a change.
	for _, tc := range []struct {
		method, body string
		status       int
	}{
		{"PATCH", "", 405},
		{"TRACE", "", 405},
		{"POST", "{", 400},
		{"POST", "[]", 400},
		{"POST", `{"retry_after": "soon"}`, 400},
		{"POST", `{"retry_after": -1}`, 400},
		{"POST", `{"retry_after": 1.5}`, 400},
		{"POST", `{"retry_after": 99999999999}`, 400},
		{"POST", `{"retry_afterr": 5}`, 400},
		{"PUT", `{"retry_after": 5} {}`, 400},
		{"POST", `{"retry_after": 5, "x": "` + strings.Repeat("a", 5000) + `"}`, 413},
	} {
		w := call(tc.method, tc.body)
		checkProblem(t, w, tc.status, "")
		if tc.status == 405 && w.Header().Get("Allow") != "GET, HEAD, POST, PUT, DELETE" {
			t.Errorf("%s: Allow %q", tc.method, w.Header().Get("Allow"))
		}
		if m.Enabled() {
			t.Fatalf("%s %q enabled maintenance", tc.method, tc.body)
		}
	}
}

// TestMaintenanceHandlerOutsideRouter serves the admin endpoint with plain
// net/http, as a user might mount it on a separate admin listener.
func TestMaintenanceHandlerOutsideRouter(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{Logger: discardLogger()})
	mux := http.NewServeMux()
	mux.Handle("/maintenance", m.Handler())
	w := serve(mux, httptest.NewRequest("POST", "/maintenance", strings.NewReader(`{"retry_after":10}`)))
	if w.Code != 200 || !m.Enabled() {
		t.Fatalf("POST: %d, enabled %v", w.Code, m.Enabled())
	}
	w = serve(mux, httptest.NewRequest("POST", "/maintenance", strings.NewReader(`nope`)))
	checkProblem(t, w, 400, "")
}

// TestMaintenanceRace toggles the switch while requests run.
func TestMaintenanceRace(t *testing.T) {
	m := NewMaintenance(MaintenanceConfig{AllowPrefixes: []string{"/admin"}, Logger: discardLogger()})
	app := newMaintenanceApp(m)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				m.Enable(time.Duration(i%7) * time.Second)
			} else {
				m.Disable()
			}
		}
	})
	var served, refused atomic.Int64
	var clients sync.WaitGroup
	for range 8 {
		clients.Go(func() {
			for range 300 {
				switch w := serve(app, httptest.NewRequest("GET", "/", nil)); w.Code {
				case 200:
					served.Add(1)
				case 503:
					if w.Header().Get("Retry-After") == "" {
						t.Error("503 without Retry-After")
					}
					refused.Add(1)
				default:
					t.Errorf("status %d", w.Code)
				}
				if w := serve(app, httptest.NewRequest("GET", "/admin", nil)); w.Code != 200 {
					t.Errorf("allow-listed path: %d", w.Code)
				}
			}
		})
	}
	clients.Wait()
	stop.Store(true)
	wg.Wait()
	t.Logf("served %d, refused %d", served.Load(), refused.Load())
}

func TestMaintenanceAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	m := NewMaintenance(MaintenanceConfig{AllowPaths: []string{"/health"}, Logger: discardLogger()})
	app := plinth.Bare()
	app.Use(m.Middleware())
	app.Get("/", okHandler)
	req := httptest.NewRequest("GET", "/", nil)
	w := &nopWriter{h: http.Header{}}
	app.ServeHTTP(w, req)
	if n := testing.AllocsPerRun(200, func() { app.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("%v allocations per request while disabled, want 0", n)
	}
}

func TestMaintenanceBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  MaintenanceConfig
		want string // substring of the error
	}{
		{MaintenanceConfig{AllowPaths: []string{"admin"}}, `MaintenanceConfig.AllowPaths entry "admin"`},
		{MaintenanceConfig{AllowPrefixes: []string{""}}, `MaintenanceConfig.AllowPrefixes entry ""`},
	} {
		err := tc.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate() = %v, want an error containing %q", tc.cfg, err, tc.want)
			continue
		}
		func() {
			defer func() {
				if p := recover(); p == nil {
					t.Errorf("%+v: no panic", tc.cfg)
				} else if p != err.Error() {
					t.Errorf("%+v: panicked with %v, want %q", tc.cfg, p, err.Error())
				}
			}()
			NewMaintenance(tc.cfg)
		}()
	}
	if err := (MaintenanceConfig{AllowPaths: []string{"/admin"}, AllowPrefixes: []string{"/assets/"}}).Validate(); err != nil {
		t.Errorf("a valid configuration: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NotifyOnSignal() without a signal: no panic")
		}
	}()
	NewMaintenance(MaintenanceConfig{}).NotifyOnSignal()
}
