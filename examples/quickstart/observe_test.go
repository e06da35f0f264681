package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth/data"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func migratedDB(t *testing.T) *data.DB {
	t.Helper()
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: "sqlite:" + filepath.Join(t.TempDir(), "notes.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// serveQuickstart serves the quickstart's App on a loopback port, with its
// metrics on another (PLINTH_METRICS_ADDR=127.0.0.1:0), until the test ends.
func serveQuickstart(t *testing.T) (base, metricsBase string) {
	t.Helper()
	t.Setenv("PLINTH_METRICS_ADDR", "127.0.0.1:0")
	t.Setenv("PLINTH_DRAIN_DELAY", "0s")
	app, m, err := newApp(migratedDB(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	base = "http://" + ln.Addr().String()
	for i := 0; m.Addr() == ""; i++ { // the OnStart hook starts it
		if i > 500 {
			t.Fatal("the metrics server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return base, "http://" + m.Addr()
}

// The metrics are not on the App's public port: /metrics there is a 404.
// On the metrics address they have a series per route pattern (never a raw
// path), the database pool's gauges, and pass the linter promtool uses.
func TestQuickstartMetrics(t *testing.T) {
	base, metricsBase := serveQuickstart(t)
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) (int, []byte) {
		t.Helper()
		res, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, body
	}
	for _, p := range []string{"/api/notes/1", "/api/notes/1", "/api/notes/99", "/hello/ada", "/nothing/here"} {
		get(base + p)
	}
	if code, _ := get(base + "/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the public port: %d, want 404", code)
	}
	if !strings.HasPrefix(metricsBase, "http://127.0.0.1:") {
		t.Errorf("metrics served on %s, want loopback", metricsBase)
	}
	code, body := get(metricsBase + "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics on %s: %d", metricsBase, code)
	}
	text := string(body)
	for _, want := range []string{
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_class="2xx",http_route="/api/notes/{id}"} 2`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_class="4xx",http_route="/api/notes/{id}"} 1`,
		`http_route="/hello/{name}"`,
		`http_route="unmatched"`,
		`go_sql_open_connections{db_name="notes"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(text, "/api/notes/99") || strings.Contains(text, "/hello/ada") {
		t.Error("a raw path became a label value")
	}
	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", err, problems)
	}
}

// Without PLINTH_METRICS_ADDR the metrics go to 127.0.0.1:9090, not to the
// public port.
func TestQuickstartMetricsDefaultAddr(t *testing.T) {
	t.Setenv("PLINTH_METRICS_ADDR", "")
	app, _, err := newApp(migratedDB(t))
	if err != nil {
		t.Fatal(err)
	}
	if metricsAddr != "127.0.0.1:9090" {
		t.Errorf("default metrics address %q", metricsAddr)
	}
	srv := httptest.NewServer(app)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the public port: %d, want 404", res.StatusCode)
	}
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, the quickstart's spans reach an
// OTLP/HTTP receiver, their parent the incoming traceparent, flushed while
// the App drains.
func TestQuickstartTraces(t *testing.T) {
	var mu sync.Mutex
	var spans []string // "traceID parentSpanID name"
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = gz
		}
		b, _ := io.ReadAll(body)
		req := new(coltracepb.ExportTraceServiceRequest)
		if err := proto.Unmarshal(b, req); err != nil {
			t.Errorf("receiver: %v", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, hex.EncodeToString(s.TraceId)+" "+hex.EncodeToString(s.ParentSpanId)+" "+s.Name)
				}
			}
		}
	}))
	defer recv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "quickstart")
	t.Setenv("PLINTH_METRICS_ADDR", "127.0.0.1:0")
	// The test's client is trusted to continue its trace; by default the
	// quickstart is a public endpoint and would only link to it.
	t.Setenv("PLINTH_TRACING_TRUST_REMOTE", "all")
	app, _, err := newApp(migratedDB(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/api/notes/1", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	client := &http.Client{Timeout: 10 * time.Second}
	var res *http.Response
	for i := 0; ; i++ {
		if res, err = client.Do(req); err == nil {
			break
		}
		if i > 100 {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7 GET /api/notes/{id}"
	for _, s := range spans {
		if s == want {
			return
		}
	}
	t.Errorf("no span %q among %q", want, spans)
}
