package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/observe/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

const (
	incomingTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingSpanID  = "00f067aa0ba902b7"
	traceparent     = "00-" + incomingTraceID + "-" + incomingSpanID + "-01"
)

// recorder is an App traced into an in-memory exporter.
type recorder struct {
	app *plinth.App
	tr  *tracing.Tracing
	exp *tracetest.InMemoryExporter
	tp  *sdktrace.TracerProvider
}

func newRecorder(t *testing.T, sampler sdktrace.Sampler, logger *slog.Logger) *recorder {
	t.Helper()
	return newRecorderConfig(t, sampler, logger, plinth.New(), tracing.Config{})
}

// newRecorderConfig is newRecorder with app and cfg (its TracerProvider set
// here) of the caller's.
func newRecorderConfig(t *testing.T, sampler sdktrace.Sampler, logger *slog.Logger, app *plinth.App, cfg tracing.Config) *recorder {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sampler))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	app.Logger = logger
	cfg.TracerProvider = tp
	tr, err := tracing.New(app, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{app: app, tr: tr, exp: exp, tp: tp}
}

func (rc *recorder) do(t *testing.T, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	rc.app.ServeHTTP(w, r)
	return w
}

// only returns the one span exported since the last reset.
func (rc *recorder) only(t *testing.T) tracetest.SpanStub {
	t.Helper()
	spans := rc.exp.GetSpans()
	rc.exp.Reset()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1: %v", len(spans), names(spans))
	}
	return spans[0]
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestServerSpan(t *testing.T) {
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	var seen trace.SpanContext
	var seenReq trace.SpanContext
	rc.app.Get("/users/{id}", func(c *plinth.Ctx) error {
		seen = trace.SpanContextFromContext(c.Context())
		seenReq = trace.SpanContextFromContext(c.Request().Context())
		return c.Text(http.StatusOK, c.Param("id"))
	})
	r := httptest.NewRequest("GET", "http://example.com:8443/users/7?secret=x", nil)
	r.Header.Set("User-Agent", "plinth-test/1")
	r.Header.Set("X-Request-ID", "req-123")
	w := rc.do(t, r)
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	s := rc.only(t)
	if s.Name != "GET /users/{id}" {
		t.Errorf("name %q", s.Name)
	}
	if s.SpanKind != trace.SpanKindServer {
		t.Errorf("kind %v", s.SpanKind)
	}
	if s.Parent.IsValid() {
		t.Errorf("root span has parent %v", s.Parent)
	}
	if s.Status.Code != codes.Unset {
		t.Errorf("status %v", s.Status)
	}
	if seen.SpanID() != s.SpanContext.SpanID() || seenReq.SpanID() != s.SpanContext.SpanID() {
		t.Errorf("handler saw span %v (context) and %v (request), want %v", seen.SpanID(), seenReq.SpanID(), s.SpanContext.SpanID())
	}
	want := map[attribute.Key]any{
		"http.request.method":       "GET",
		"url.path":                  "/users/7",
		"url.scheme":                "http",
		"http.route":                "/users/{id}",
		"http.response.status_code": int64(200),
		"server.address":            "example.com",
		"server.port":               int64(8443),
		"user_agent.original":       "plinth-test/1",
		"network.protocol.version":  "1.1",
		"client.address":            "192.0.2.1",
		"plinth.request_id":         "req-123",
	}
	got := attrs(s)
	for k, v := range want {
		if g, ok := got[k]; !ok || g.AsInterface() != v {
			t.Errorf("%s = %v, want %v", k, g.AsInterface(), v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected attribute %s = %v", k, got[k].AsInterface())
		}
	}
	if w.Header().Get("Traceparent") != "" || w.Header().Get("Traceresponse") != "" {
		t.Errorf("response carries trace headers: %v", w.Header())
	}
}

func TestSpanNames(t *testing.T) {
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	ok := func(c *plinth.Ctx) error { return c.NoContent(204) }
	rc.app.Get("/a/{x}", ok)
	rc.app.Handle("/any", plinth.HandlerFunc(ok))
	api := rc.app.Group("/api")
	api.Post("/items", ok)
	for _, tc := range []struct {
		method, path, name, route string
	}{
		{"GET", "/a/1", "GET /a/{x}", "/a/{x}"},
		{"HEAD", "/a/1", "HEAD /a/{x}", "/a/{x}"},
		{"PUT", "/any", "PUT /any", "/any"},
		{"POST", "/api/items", "POST /api/items", "/api/items"},
		{"GET", "/nowhere", "GET", ""},
		{"DELETE", "/a/1", "DELETE", ""}, // 405: no route matched
		{"BREW", "/any", "HTTP", "/any"},
	} {
		rc.do(t, httptest.NewRequest(tc.method, tc.path, nil))
		s := rc.only(t)
		if s.Name != tc.name {
			t.Errorf("%s %s: name %q, want %q", tc.method, tc.path, s.Name, tc.name)
		}
		route, has := attrs(s)["http.route"]
		if tc.route == "" && has || tc.route != "" && route.AsString() != tc.route {
			t.Errorf("%s %s: http.route %v, want %q", tc.method, tc.path, route.AsInterface(), tc.route)
		}
		if tc.method == "BREW" {
			a := attrs(s)
			if a["http.request.method"].AsString() != "_OTHER" || a["http.request.method_original"].AsString() != "BREW" {
				t.Errorf("unknown method: %v %v", a["http.request.method"].AsInterface(), a["http.request.method_original"].AsInterface())
			}
		}
	}
}

// TestParentFromTraceparent: a trusted proxy's trace context is continued
// (httptest's requests come from 192.0.2.1).
func TestParentFromTraceparent(t *testing.T) {
	app := plinth.New()
	app.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	rc := newRecorderConfig(t, sdktrace.ParentBased(sdktrace.NeverSample()), quietLogger(), app, tracing.Config{})
	rc.app.Get("/", func(c *plinth.Ctx) error { return c.NoContent(204) })
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("traceparent", traceparent)
	r.Header.Set("tracestate", "vendor=abc")
	rc.do(t, r)
	s := rc.only(t) // sampled: the parent was
	if got := s.SpanContext.TraceID().String(); got != incomingTraceID {
		t.Errorf("trace ID %s, want %s", got, incomingTraceID)
	}
	if got := s.Parent.SpanID().String(); got != incomingSpanID || !s.Parent.IsRemote() {
		t.Errorf("parent %s (remote %v), want %s", got, s.Parent.IsRemote(), incomingSpanID)
	}
	if got := s.SpanContext.TraceState().Get("vendor"); got != "abc" {
		t.Errorf("tracestate vendor=%q", got)
	}
}

func TestStatus(t *testing.T) {
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	rc.app.Get("/ok", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	rc.app.Get("/silent", func(c *plinth.Ctx) error { return nil })
	rc.app.Get("/missing", func(c *plinth.Ctx) error { return plinth.NotFound("no") })
	rc.app.Get("/fail", func(c *plinth.Ctx) error { return errors.New("database on fire") })
	rc.app.Get("/unavailable", func(c *plinth.Ctx) error { return plinth.Error(503, "later") })
	rc.app.Get("/written500", func(c *plinth.Ctx) error { return c.Text(500, "oops") })
	rc.app.Get("/panic", func(c *plinth.Ctx) error { panic("boom") })
	for _, tc := range []struct {
		path   string
		status int
		err    bool
		event  string // the message of an exception event, if any
	}{
		{"/ok", 200, false, ""},
		{"/silent", 200, false, ""},
		{"/missing", 404, false, ""},
		{"/nowhere", 404, false, ""},
		{"/fail", 500, true, "database on fire"},
		{"/unavailable", 503, true, "503 Service Unavailable: later"},
		{"/written500", 500, true, ""},
		{"/panic", 500, true, "panic: boom"},
	} {
		w := rc.do(t, httptest.NewRequest("GET", tc.path, nil))
		if w.Code != tc.status {
			t.Errorf("%s: answered %d, want %d", tc.path, w.Code, tc.status)
		}
		s := rc.only(t)
		a := attrs(s)
		if got := a["http.response.status_code"].AsInt64(); got != int64(tc.status) {
			t.Errorf("%s: http.response.status_code %d, want %d", tc.path, got, tc.status)
		}
		if (s.Status.Code == codes.Error) != tc.err {
			t.Errorf("%s: status %v, want error %v", tc.path, s.Status, tc.err)
		}
		_, hasType := a["error.type"]
		if hasType != tc.err {
			t.Errorf("%s: error.type %v", tc.path, a["error.type"].AsInterface())
		}
		var msg string
		for _, e := range s.Events {
			if e.Name == "exception" {
				for _, kv := range e.Attributes {
					if kv.Key == "exception.message" {
						msg = kv.Value.AsString()
					}
				}
			}
		}
		if tc.event != "" && !strings.Contains(msg, tc.event) {
			t.Errorf("%s: exception message %q, want %q", tc.path, msg, tc.event)
		}
	}
}

func TestExclude(t *testing.T) {
	rc := newRecorder(t, sdktrace.AlwaysSample(), quietLogger())
	var had bool
	rc.app.Get("/metrics", func(c *plinth.Ctx) error {
		had = trace.SpanContextFromContext(c.Context()).IsValid()
		return c.Text(200, "# metrics")
	})
	r := httptest.NewRequest("GET", "/metrics", nil)
	r.Header.Set("traceparent", traceparent)
	rc.do(t, r)
	if spans := rc.exp.GetSpans(); len(spans) != 0 {
		t.Errorf("/metrics traced: %v", names(spans))
	}
	if had {
		t.Error("/metrics handler got a span context")
	}

	// A custom Exclude replaces the default.
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	app := plinth.New()
	app.Logger = quietLogger()
	if _, err := tracing.New(app, tracing.Config{TracerProvider: tp, Exclude: func(r *http.Request) bool {
		return strings.HasPrefix(r.URL.Path, "/static/")
	}}); err != nil {
		t.Fatal(err)
	}
	app.Get("/static/{f}", func(c *plinth.Ctx) error { return c.NoContent(204) })
	app.Get("/metrics", func(c *plinth.Ctx) error { return c.NoContent(204) })
	for _, p := range []string{"/static/a.css", "/metrics"} {
		app.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
	}
	if got := names(exp.GetSpans()); len(got) != 1 || got[0] != "GET /metrics" {
		t.Errorf("spans %v, want [GET /metrics]", got)
	}
}

func TestClientPropagation(t *testing.T) {
	type received struct{ traceparent, baggage string }
	got := make(chan received, 1)
	downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- received{r.Header.Get("traceparent"), r.Header.Get("baggage")}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer downstream.Close()

	rc := newRecorderConfig(t, sdktrace.AlwaysSample(), quietLogger(), plinth.New(),
		tracing.Config{TrustRemote: tracing.TrustAll, ForwardBaggage: true})
	client := rc.tr.Client(downstream.Client())
	var member string
	rc.app.Get("/proxy", func(c *plinth.Ctx) error {
		member = baggage.FromContext(c.Context()).Member("tenant").Value()
		req, err := http.NewRequestWithContext(c.Context(), "GET", downstream.URL+"/x?sig=s3cr3t&a=1", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if req.Header.Get("traceparent") != "" {
			t.Error("Client changed the caller's request")
		}
		return c.NoContent(204)
	})
	r := httptest.NewRequest("GET", "/proxy", nil)
	r.Header.Set("traceparent", traceparent)
	r.Header.Set("baggage", "tenant=acme")
	rc.do(t, r)
	rcv := <-got
	if member != "acme" {
		t.Errorf("handler's baggage tenant=%q, want acme", member)
	}
	if rcv.baggage != "tenant=acme" {
		t.Errorf("downstream baggage %q", rcv.baggage)
	}
	spans := rc.exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("spans %v", names(spans))
	}
	clientSpan, serverSpan := spans[0], spans[1] // the client span ends first
	if clientSpan.SpanKind != trace.SpanKindClient || clientSpan.Name != "GET" {
		t.Errorf("client span %q kind %v", clientSpan.Name, clientSpan.SpanKind)
	}
	if clientSpan.Parent.SpanID() != serverSpan.SpanContext.SpanID() {
		t.Error("client span is not the server span's child")
	}
	want := "00-" + incomingTraceID + "-" + clientSpan.SpanContext.SpanID().String() + "-01"
	if rcv.traceparent != want {
		t.Errorf("downstream traceparent %q, want %q", rcv.traceparent, want)
	}
	a := attrs(clientSpan)
	if got := a["http.response.status_code"].AsInt64(); got != 418 {
		t.Errorf("client status %d", got)
	}
	if clientSpan.Status.Code != codes.Error {
		t.Errorf("client span status %v, want Error for a 4xx", clientSpan.Status)
	}
	if u := a["url.full"].AsString(); !strings.Contains(u, "sig=REDACTED") || strings.Contains(u, "s3cr3t") {
		t.Errorf("url.full %q", u)
	}
}

func TestSampledOutPropagates(t *testing.T) {
	got := make(chan string, 1)
	downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("traceparent")
	}))
	defer downstream.Close()
	rc := newRecorder(t, sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)), quietLogger())
	client := rc.tr.Client(nil)
	rc.app.Get("/", func(c *plinth.Ctx) error {
		req, _ := http.NewRequestWithContext(c.Context(), "GET", downstream.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return c.NoContent(204)
	})
	rc.do(t, httptest.NewRequest("GET", "/", nil))
	if spans := rc.exp.GetSpans(); len(spans) != 0 {
		t.Errorf("sampled-out request exported %v", names(spans))
	}
	tp := <-got
	if !strings.HasPrefix(tp, "00-") || !strings.HasSuffix(tp, "-00") {
		t.Errorf("downstream traceparent %q, want one flagged not sampled", tp)
	}
}

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, nil)))
	decode := func() map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, buf.String())
		}
		buf.Reset()
		return m
	}
	log.InfoContext(context.Background(), "plain")
	if m := decode(); m["trace_id"] != nil || m["span_id"] != nil {
		t.Errorf("IDs without a span: %v", m)
	}
	tid, _ := trace.TraceIDFromHex(incomingTraceID)
	sid, _ := trace.SpanIDFromHex(incomingSpanID)
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	log.With("k", "v").InfoContext(ctx, "traced")
	if m := decode(); m["trace_id"] != incomingTraceID || m["span_id"] != incomingSpanID || m["k"] != "v" {
		t.Errorf("record %v", m)
	}
	if tracing.LogHandler(log.Handler()) != log.Handler() {
		t.Error("LogHandler wrapped itself twice")
	}
}

// TestLogs checks that c.Logger() and middleware.AccessLog, installed before
// New (outside the server span's middleware) or after it (inside), log the
// request's trace and span IDs: c.Logger() through the App's Logger that New
// wrapped, the access log through a logger with a LogHandler.
func TestLogs(t *testing.T) {
	for _, accessFirst := range []bool{true, false} {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, nil))
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		app := plinth.New()
		app.Logger = logger
		if accessFirst {
			// Before New: the access log's logger is wrapped by hand.
			app.Use(middleware.AccessLog(middleware.AccessLogConfig{Logger: slog.New(tracing.LogHandler(logger.Handler()))}))
		}
		if _, err := tracing.New(app, tracing.Config{TracerProvider: tp, TrustRemote: tracing.TrustAll}); err != nil {
			t.Fatal(err)
		}
		if !accessFirst {
			// After New: app.Logger is wrapped.
			app.Use(middleware.AccessLog(middleware.AccessLogConfig{Logger: app.Logger}))
		}
		app.Get("/", func(c *plinth.Ctx) error {
			c.Logger().Info("in handler")
			return c.NoContent(204)
		})
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("traceparent", traceparent)
		app.ServeHTTP(httptest.NewRecorder(), r)
		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("spans %v", names(spans))
		}
		spanID := spans[0].SpanContext.SpanID().String()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("log lines %q", lines)
		}
		for _, line := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			if m["trace_id"] != incomingTraceID || m["span_id"] != spanID {
				t.Errorf("access log first=%v: %s: trace_id %v span_id %v, want %s %s", accessFirst, m["msg"], m["trace_id"], m["span_id"], incomingTraceID, spanID)
			}
		}
	}
}

// TestErrorLogCarriesTraceID checks the core's log of a 500's error.
func TestErrorLogCarriesTraceID(t *testing.T) {
	var buf bytes.Buffer
	rc := newRecorder(t, sdktrace.AlwaysSample(), slog.New(slog.NewJSONHandler(&buf, nil)))
	rc.app.Get("/fail", func(c *plinth.Ctx) error { return errors.New("broken") })
	rc.do(t, httptest.NewRequest("GET", "/fail", nil))
	s := rc.only(t)
	if !strings.Contains(buf.String(), `"trace_id":"`+s.SpanContext.TraceID().String()+`"`) {
		t.Errorf("error log without the trace ID: %s", buf.String())
	}
}

func TestNilLoggerWrapsDefault(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	app := plinth.New()
	if _, err := tracing.New(app, tracing.Config{TracerProvider: tp}); err != nil {
		t.Fatal(err)
	}
	if app.Logger == nil {
		t.Fatal("app.Logger still nil")
	}
	if tracing.LogHandler(app.Logger.Handler()) != app.Logger.Handler() {
		t.Error("app.Logger's handler is not a LogHandler")
	}
}
