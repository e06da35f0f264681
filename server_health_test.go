package plinth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// getAccept is mustGet with an Accept header.
func getAccept(t *testing.T, url, accept string, status int) result {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	res, err := newClient(t, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s (Accept %s): %d %q, want %d", url, accept, res.StatusCode, string(b), status)
	}
	return result{status: res.StatusCode, header: res.Header, body: string(b)}
}

// TestDegradedReadiness: a failing DegradedCheck keeps readiness at 200 and
// is reported as degraded (text and JSON); a failing ReadinessCheck makes
// it 503, down, in both forms; Ready and Readiness say the same.
func TestDegradedReadiness(t *testing.T) {
	cacheDown := errors.New("connection refused")
	var dbErr error
	app := New()
	app.Config = testConfig()
	app.Config.ReadinessCacheTTL = time.Nanosecond
	app.ReadinessCheck("db", time.Second, func(context.Context) error { return dbErr })
	app.ReadinessCheck("queue", time.Second, func(context.Context) error { return nil })
	app.DegradedCheck("cache", time.Second, func(context.Context) error { return cacheDown })
	app.DegradedCheck("mail", time.Second, func(context.Context) error { return nil })
	s := serveApp(t, app, listenLocal(t))

	r := mustGet(t, newClient(t, false), s.url+"/readyz", 200)
	if r.body != "ready\ndegraded: cache: connection refused\n" {
		t.Errorf("text body %q", r.body)
	}
	r = getAccept(t, s.url+"/readyz", "application/json", 200)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatalf("%q: %v", r.body, err)
	}
	want := map[string]string{"db": "ok", "queue": "ok", "cache": "degraded", "mail": "ok"}
	if len(body) != len(want) {
		t.Errorf("JSON %v, want %v", body, want)
	}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("JSON %v, want %v", body, want)
		}
	}
	if err := app.Ready(t.Context()); err != nil {
		t.Errorf("Ready with only a degraded check failing: %v", err)
	}
	results, err := app.Readiness(t.Context())
	if err != nil || len(results) != 4 || results[0].Name != "cache" || results[0].Status != CheckDegraded || results[0].Err != cacheDown {
		t.Errorf("Readiness = %+v, %v", results, err)
	}

	dbErr = errors.New("db gone")
	r = getAccept(t, s.url+"/readyz", "application/json", 503)
	if err := json.Unmarshal([]byte(r.body), &body); err != nil || body["db"] != "down" || body["cache"] != "degraded" || body["queue"] != "ok" {
		t.Errorf("JSON with the db down: %q, %v", r.body, err)
	}
	r = mustGet(t, newClient(t, false), s.url+"/readyz", 503)
	if !strings.Contains(r.body, "db: db gone") || strings.Contains(r.body, "cache") {
		t.Errorf("text with the db down: %q; want the db named, not the degraded cache", r.body)
	}
	if err := app.Ready(t.Context()); err == nil || !strings.Contains(err.Error(), "db gone") {
		t.Errorf("Ready with the db down: %v", err)
	}
}

// TestReadinessJSONConfig: Config.ReadinessJSON answers JSON without an
// Accept; draining is the 503 problem either way.
func TestReadinessJSONConfig(t *testing.T) {
	app := New()
	app.Config = testConfig()
	app.Config.ReadinessJSON = true
	app.ReadinessCheck("db", time.Second, func(context.Context) error { return nil })
	s := serveApp(t, app, listenLocal(t))
	r := mustGet(t, newClient(t, false), s.url+"/readyz", 200)
	if r.body != "{\"db\":\"ok\"}\n" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("%q %q", r.header.Get("Content-Type"), r.body)
	}
	app.health.draining.Store(true)
	r = mustGet(t, newClient(t, false), s.url+"/readyz", 503)
	if !strings.Contains(r.body, "draining") {
		t.Errorf("draining: %q", r.body)
	}
	app.health.draining.Store(false)

	bare := New()
	bare.Config = testConfig()
	s = serveApp(t, bare, listenLocal(t))
	if r := getAccept(t, s.url+"/readyz", "application/json", 200); r.body != "{}\n" {
		t.Errorf("no checks, JSON: %q", r.body)
	}
}
