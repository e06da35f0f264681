package metrics_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
)

const durationName = "http_server_request_duration_seconds"

// testApp is plinth.New() with a few routes, measured.
func testApp(t testing.TB, cfg metrics.Config) (*plinth.App, *metrics.Metrics) {
	t.Helper()
	app := plinth.New()
	app.Get("/users/{id}", func(c *plinth.Ctx) error {
		if c.Param("id") == "0" {
			return plinth.NotFound("no such user")
		}
		return c.Text(http.StatusOK, "user "+c.Param("id"))
	})
	app.Post("/users", func(c *plinth.Ctx) error {
		b, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		return c.Bytes(http.StatusCreated, "application/json", b)
	})
	app.Get("/oops", func(c *plinth.Ctx) error { return errors.New("database down") })
	app.Get("/boom", func(c *plinth.Ctx) error { panic("boom") })
	app.Get("/silent", func(c *plinth.Ctx) error { return nil })
	app.Get("/moved", func(c *plinth.Ctx) error { return c.Redirect(http.StatusFound, "/users/1") })
	app.Handle("/any", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	m := metrics.New(app, cfg)
	return app, m
}

func do(t testing.TB, h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// series is one histogram series found by gather.
type series struct {
	labels map[string]string
	h      *dto.Histogram
	g      *dto.Gauge
}

func gather(t testing.TB, reg prometheus.Gatherer, name string) []series {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []series
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			s := series{labels: map[string]string{}, h: m.GetHistogram(), g: m.GetGauge()}
			for _, lp := range m.GetLabel() {
				s.labels[lp.GetName()] = lp.GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

// count returns the sample count of the duration series with these labels
// (method, route, class), and whether it exists.
func count(t testing.TB, reg prometheus.Gatherer, name, method, route, class string) (uint64, bool) {
	t.Helper()
	for _, s := range gather(t, reg, name) {
		if s.labels["http_request_method"] == method && s.labels["http_route"] == route && s.labels["http_response_status_class"] == class {
			return s.h.GetSampleCount(), true
		}
	}
	return 0, false
}

func wantCount(t *testing.T, reg prometheus.Gatherer, method, route, class string, want uint64) {
	t.Helper()
	got, ok := count(t, reg, durationName, method, route, class)
	if !ok {
		t.Errorf("no series {method=%s, route=%s, class=%s}", method, route, class)
		return
	}
	if got != want {
		t.Errorf("{method=%s, route=%s, class=%s}: %d requests, want %d", method, route, class, got, want)
	}
}

func TestSeriesPerPattern(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	for _, id := range []string{"1", "2", "3"} {
		if w := do(t, app, "GET", "/users/"+id, ""); w.Code != 200 {
			t.Fatalf("GET /users/%s: %d", id, w.Code)
		}
	}
	if w := do(t, app, "POST", "/users", `{"name":"ada"}`); w.Code != 201 {
		t.Fatalf("POST /users: %d", w.Code)
	}
	if w := do(t, app, "GET", "/nowhere/42", ""); w.Code != 404 {
		t.Fatalf("GET /nowhere/42: %d", w.Code)
	}
	reg := m.Registry()
	wantCount(t, reg, "GET", "/users/{id}", "2xx", 3)
	wantCount(t, reg, "POST", "/users", "2xx", 1)
	wantCount(t, reg, "GET", "unmatched", "4xx", 1)

	// Every route's series exist from the first request on, at zero.
	wantCount(t, reg, "GET", "/oops", "5xx", 0)
	wantCount(t, reg, "GET", "/silent", "2xx", 0)
	wantCount(t, reg, "GET", "/any", "4xx", 0) // a method-less route starts with GET

	// The raw path never becomes a label value.
	body := do(t, app, "GET", "/metrics", "").Body.String()
	for _, raw := range []string{"/users/1", "/nowhere", `http_route="/metrics"`} {
		if strings.Contains(body, raw) {
			t.Errorf("exposition contains %q", raw)
		}
	}
	if !strings.Contains(body, `http_route="/users/{id}"`) {
		t.Errorf("exposition lacks the pattern:\n%s", body)
	}
}

func TestSizesAndActive(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	do(t, app, "POST", "/users", strings.Repeat("x", 100))
	for _, s := range gather(t, m.Registry(), "http_server_request_body_size_bytes") {
		if s.labels["http_route"] == "/users" && s.labels["http_response_status_class"] == "2xx" {
			if s.h.GetSampleCount() != 1 || s.h.GetSampleSum() != 100 {
				t.Errorf("request size: count %d sum %g, want 1 and 100", s.h.GetSampleCount(), s.h.GetSampleSum())
			}
		}
	}
	for _, s := range gather(t, m.Registry(), "http_server_response_body_size_bytes") {
		if s.labels["http_route"] == "/users" && s.labels["http_response_status_class"] == "2xx" {
			if s.h.GetSampleCount() != 1 || s.h.GetSampleSum() != 100 {
				t.Errorf("response size: count %d sum %g, want 1 and 100", s.h.GetSampleCount(), s.h.GetSampleSum())
			}
		}
	}

	// A request in flight is counted, and no longer once it is done.
	entered, release := make(chan struct{}), make(chan struct{})
	app2 := plinth.New()
	app2.Get("/slow", func(c *plinth.Ctx) error {
		close(entered)
		<-release
		return c.NoContent(http.StatusNoContent)
	})
	m2 := metrics.New(app2, metrics.Config{})
	done := make(chan struct{})
	go func() { do(t, app2, "GET", "/slow", ""); close(done) }()
	<-entered
	active := func() float64 {
		for _, s := range gather(t, m2.Registry(), "http_server_active_requests") {
			if s.labels["http_route"] == "/slow" && s.labels["http_request_method"] == "GET" {
				return s.g.GetValue()
			}
		}
		t.Fatal("no active-requests series for GET /slow")
		return 0
	}
	if v := active(); v != 1 {
		t.Errorf("active requests in flight: %g, want 1", v)
	}
	close(release)
	<-done
	if v := active(); v != 0 {
		t.Errorf("active requests after: %g, want 0", v)
	}
}

func TestLabelValues(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	do(t, app, "HEAD", "/users/1", "")
	do(t, app, "BREW", "/any", "")    // a method-less route: any method reaches it
	do(t, app, "DELETE", "/any", "")  // a known method
	do(t, app, "PUT", "/users/1", "") // 405, answered by the router
	do(t, app, "OPTIONS", "/users/1", "")
	reg := m.Registry()
	wantCount(t, reg, "HEAD", "/users/{id}", "2xx", 1)
	wantCount(t, reg, "_OTHER", "/any", "2xx", 1)
	wantCount(t, reg, "DELETE", "/any", "2xx", 1)
	wantCount(t, reg, "PUT", "unmatched", "4xx", 1)
	wantCount(t, reg, "OPTIONS", "unmatched", "2xx", 1)
	for _, s := range gather(t, reg, durationName) {
		if s.labels["http_request_method"] == "BREW" {
			t.Error("an unknown method became a label value")
		}
		if len(s.labels) != 3 {
			t.Errorf("labels %v, want method, route and class", s.labels)
		}
	}
}

func TestStatusClasses(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	cases := []struct {
		target string
		code   int
		route  string
		class  string
	}{
		{"/users/0", 404, "/users/{id}", "4xx"}, // plinth.NotFound returned
		{"/oops", 500, "/oops", "5xx"},          // a plain error, rendered as 500
		{"/boom", 500, "/boom", "5xx"},          // a panic, recovered by New's layer
		{"/silent", 200, "/silent", "2xx"},      // nothing written: net/http's 200
		{"/moved", 302, "/moved", "3xx"},
		{"/users/1/", 404, "unmatched", "4xx"},
		{"/users//1", 307, "unmatched", "3xx"}, // the router's redirect to the clean path
	}
	for _, tc := range cases {
		if w := do(t, app, "GET", tc.target, ""); w.Code != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.target, w.Code, tc.code)
		}
	}
	reg := m.Registry()
	wantCount(t, reg, "GET", "/users/{id}", "4xx", 1)
	wantCount(t, reg, "GET", "/oops", "5xx", 1)
	wantCount(t, reg, "GET", "/boom", "5xx", 1)
	wantCount(t, reg, "GET", "/silent", "2xx", 1)
	wantCount(t, reg, "GET", "/moved", "3xx", 1)
	wantCount(t, reg, "GET", "unmatched", "4xx", 1)
	wantCount(t, reg, "GET", "unmatched", "3xx", 1)
	for _, s := range gather(t, reg, "http_server_active_requests") {
		if s.g.GetValue() != 0 {
			t.Errorf("active requests %v: %g after every request ended (a panic must decrement too)", s.labels, s.g.GetValue())
		}
	}
}

func TestHandlerTimeout(t *testing.T) {
	app := plinth.New()
	app.HandlerTimeout = 5 * time.Millisecond
	app.Get("/wait", func(c *plinth.Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	m := metrics.New(app, metrics.Config{})
	if w := do(t, app, "GET", "/wait", ""); w.Code != 503 {
		t.Fatalf("GET /wait: %d, want 503", w.Code)
	}
	wantCount(t, m.Registry(), "GET", "/wait", "5xx", 1)
}

func TestMetricsRoute(t *testing.T) {
	app, m := testApp(t, metrics.Config{Path: "/internal/metrics"})
	do(t, app, "GET", "/users/1", "")
	w := do(t, app, "GET", "/internal/metrics", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), durationName) {
		t.Fatalf("GET /internal/metrics: %d\n%s", w.Code, w.Body)
	}
	if w := do(t, app, "GET", "/metrics", ""); w.Code != 404 {
		t.Errorf("GET /metrics with Path set elsewhere: %d, want 404", w.Code)
	}
	for _, s := range gather(t, m.Registry(), durationName) {
		if s.labels["http_route"] == "/internal/metrics" {
			t.Errorf("the metrics route measured itself: %v", s.labels)
		}
	}

	app2, _ := testApp(t, metrics.Config{Path: "-"})
	if w := do(t, app2, "GET", "/metrics", ""); w.Code != 404 {
		t.Errorf(`GET /metrics with Path "-": %d, want 404`, w.Code)
	}
}

func TestOwnRegistryAndBuckets(t *testing.T) {
	reg := prometheus.NewRegistry()
	app, m := testApp(t, metrics.Config{Registry: reg, Buckets: []float64{0.1, 1}})
	if m.Registry() != reg {
		t.Fatal("Registry() is not Config.Registry")
	}
	do(t, app, "GET", "/users/1", "")
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "go_") || strings.HasPrefix(mf.GetName(), "process_") {
			t.Errorf("%s registered on a registry the caller gave", mf.GetName())
		}
	}
	for _, s := range gather(t, reg, durationName) {
		if n := len(s.h.GetBucket()); n != 2 {
			t.Fatalf("%d buckets, want Config.Buckets' 2", n)
		}
	}
	// The default registry carries the Go and process collectors.
	_, m2 := testApp(t, metrics.Config{})
	if len(gather(t, m2.Registry(), "go_goroutines")) == 0 {
		t.Error("the default registry has no Go collector")
	}
}

func TestDefaultBuckets(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	do(t, app, "GET", "/users/1", "")
	s := gather(t, m.Registry(), durationName)[0]
	var got []float64
	for _, b := range s.h.GetBucket() {
		got = append(got, b.GetUpperBound())
	}
	want := []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	if len(got) != len(want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("buckets %v, want %v", got, want)
		}
	}
}

// TestPromlint runs the linter of `promtool check metrics` over the
// exposition, after requests that made series of every kind.
func TestPromlint(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	m.DBStats("main", func() sql.DBStats { return sql.DBStats{OpenConnections: 1} })
	for _, target := range []string{"/users/1", "/users/0", "/oops", "/boom", "/nowhere"} {
		do(t, app, "GET", target, "")
	}
	do(t, app, "POST", "/users", "{}")
	w := do(t, app, "GET", "/metrics", "")
	if w.Code != 200 {
		t.Fatalf("GET /metrics: %d", w.Code)
	}
	problems, err := promlint.New(w.Body).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

func TestConfigPanics(t *testing.T) {
	cases := []struct {
		cfg  metrics.Config
		want string
	}{
		{metrics.Config{Path: "metrics"}, "Config.Path"},
		{metrics.Config{Path: "/a b"}, "Config.Path"},
		{metrics.Config{Buckets: []float64{1, 0.5}}, "Config.Buckets"},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%+v: no panic", tc.cfg)
					return
				}
				if !strings.Contains(r.(string), tc.want) {
					t.Errorf("%+v: panic %q does not name %s", tc.cfg, r, tc.want)
				}
			}()
			metrics.New(plinth.New(), tc.cfg)
		}()
	}
	// A registry that has the series already (a second New on it).
	reg := prometheus.NewRegistry()
	metrics.New(plinth.New(), metrics.Config{Registry: reg})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Config.Registry") {
			t.Errorf("a second New on one registry: panic %v, want one naming Config.Registry", r)
		}
	}()
	metrics.New(plinth.New(), metrics.Config{Registry: reg})
}

func TestConcurrent(t *testing.T) {
	app, m := testApp(t, metrics.Config{})
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			for j := range each {
				switch (i + j) % 4 {
				case 0:
					do(t, app, "GET", "/users/1", "")
				case 1:
					do(t, app, "GET", "/users/0", "")
				case 2:
					do(t, app, "PATCH", "/any", "")
				case 3:
					do(t, app, "GET", "/metrics", "")
				}
			}
		})
	}
	wg.Wait()
	n := uint64(workers * each / 4)
	reg := m.Registry()
	wantCount(t, reg, "GET", "/users/{id}", "2xx", n)
	wantCount(t, reg, "GET", "/users/{id}", "4xx", n)
	wantCount(t, reg, "PATCH", "/any", "2xx", n)
}

// plinth_ready follows the App's readiness checks.
func TestReadyGauge(t *testing.T) {
	app := plinth.Bare()
	app.Config.ReadinessCacheTTL = time.Nanosecond
	var down atomic.Bool
	app.ReadinessCheck("db", 0, func(context.Context) error {
		if down.Load() {
			return errors.New("down")
		}
		return nil
	})
	m := metrics.New(app, metrics.Config{})
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	if !strings.Contains(scrape(), "plinth_ready 1") {
		t.Error("ready App: no plinth_ready 1")
	}
	down.Store(true)
	time.Sleep(time.Millisecond)
	if !strings.Contains(scrape(), "plinth_ready 0") {
		t.Error("failing check: no plinth_ready 0")
	}
}
