package tracing_test

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/tracing"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// clearOTEL unsets the OTEL_* variables New reads, for the test.
func clearOTEL(t *testing.T) {
	for _, k := range []string{
		"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
		"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	} {
		t.Setenv(k, "")
	}
}

// TestOffWithoutEndpoint checks that with no endpoint tracing is off: a
// no-op provider, no span in the handler's context, nothing injected.
func TestOffWithoutEndpoint(t *testing.T) {
	for _, env := range [][2]string{
		{"", ""},
		{"OTEL_TRACES_EXPORTER", "none"},
		{"OTEL_SDK_DISABLED", "true"},
	} {
		clearOTEL(t)
		if env[0] != "" {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv(env[0], env[1])
		}
		app := plinth.New()
		tr, err := tracing.New(app, tracing.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tr.TracerProvider().(noop.TracerProvider); !ok {
			t.Errorf("%v: provider %T, want noop", env, tr.TracerProvider())
		}
		var had bool
		app.Get("/", func(c *plinth.Ctx) error {
			had = trace.SpanContextFromContext(c.Context()).IsValid()
			return c.NoContent(204)
		})
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("traceparent", traceparent)
		app.ServeHTTP(httptest.NewRecorder(), r)
		if had {
			t.Errorf("%v: tracing off, yet the handler got a span context", env)
		}
		if c := tr.Client(nil); c.Transport != nil {
			t.Errorf("%v: Client wrapped the transport with tracing off", env)
		}
		if err := tr.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

func TestBadEnvironment(t *testing.T) {
	clearOTEL(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	_, err := tracing.New(plinth.New(), tracing.Config{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"OTEL_TRACES_EXPORTER", "zipkin", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// receiver is an OTLP/HTTP trace receiver.
type receiver struct {
	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	draining []bool // whether the App was draining when each arrived
	gzipped  bool   // an export came gzip-compressed
	app      *plinth.App
	t        *testing.T
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" || r.URL.Path != "/v1/traces" {
		rc.t.Errorf("receiver got %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			rc.t.Error(err)
			http.Error(w, err.Error(), 400)
			return
		}
		body = gz
		rc.mu.Lock()
		rc.gzipped = true
		rc.mu.Unlock()
	}
	data, err := io.ReadAll(body)
	if err != nil {
		rc.t.Error(err)
		return
	}
	req := new(coltracepb.ExportTraceServiceRequest)
	if err := proto.Unmarshal(data, req); err != nil {
		rc.t.Errorf("decoding the export: %v", err)
		http.Error(w, err.Error(), 400)
		return
	}
	draining := false
	select {
	case <-rc.app.Draining():
		draining = true
	default:
	}
	rc.mu.Lock()
	rc.requests = append(rc.requests, req)
	rc.draining = append(rc.draining, draining)
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestOTLPEndToEnd serves a traced App configured from the environment,
// sends one request with a traceparent, stops the App, and checks that the
// span reached the OTLP/HTTP receiver during the drain, with the incoming
// trace ID and parent, and the service name.
func TestOTLPEndToEnd(t *testing.T) {
	for _, compression := range []string{"", "gzip"} {
		t.Run("compression="+compression, func(t *testing.T) {
			clearOTEL(t)
			app := plinth.New()
			app.Logger = quietLogger()
			app.Config.ShutdownTimeout = 5 * time.Second
			rcv := &receiver{app: app, t: t}
			collector := httptest.NewServer(rcv)
			defer collector.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
			t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", compression)
			t.Setenv("OTEL_SERVICE_NAME", "orders")
			t.Setenv("PLINTH_ADDR", "")
			t.Setenv(tracing.EnvTrustRemote, "all") // the test's client is the caller whose trace continues

			if _, err := tracing.New(app, tracing.Config{}); err != nil {
				t.Fatal(err)
			}
			app.Get("/orders/{id}", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- app.Serve(ctx, ln) }()

			req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/orders/42", nil)
			req.Header.Set("traceparent", traceparent)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			http.DefaultClient.CloseIdleConnections()
			cancel()
			if err := <-served; err != nil {
				t.Fatalf("Serve: %v", err)
			}

			rcv.mu.Lock()
			defer rcv.mu.Unlock()
			var found *tracepb.Span
			var service string
			for i, r := range rcv.requests {
				for _, rs := range r.ResourceSpans {
					for _, ss := range rs.ScopeSpans {
						for _, s := range ss.Spans {
							if s.Name != "GET /orders/{id}" {
								continue
							}
							found = s
							if !rcv.draining[i] {
								t.Error("the span arrived before the drain")
							}
							for _, kv := range rs.Resource.GetAttributes() {
								if kv.Key == "service.name" {
									service = kv.Value.GetStringValue()
								}
							}
							if ss.Scope.GetName() != tracing.ScopeName {
								t.Errorf("scope %q", ss.Scope.GetName())
							}
						}
					}
				}
			}
			if rcv.gzipped != (compression == "gzip") {
				t.Errorf("gzip-compressed export: %v", rcv.gzipped)
			}
			if found == nil {
				t.Fatalf("no span GET /orders/{id} among %d exports", len(rcv.requests))
			}
			if got := trace.TraceID(found.TraceId).String(); got != incomingTraceID {
				t.Errorf("trace ID %s, want %s", got, incomingTraceID)
			}
			if got := trace.SpanID(found.ParentSpanId).String(); got != incomingSpanID {
				t.Errorf("parent span ID %s, want %s", got, incomingSpanID)
			}
			if found.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("kind %v", found.Kind)
			}
			if service != "orders" {
				t.Errorf("service.name %q, want orders", service)
			}
		})
	}
}
