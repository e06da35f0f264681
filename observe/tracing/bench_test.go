package tracing_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/observe/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// discardWriter is a ResponseWriter that allocates nothing, so that
// allocation counts are the App's and the middleware's.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header               { return w.h }
func (w *discardWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *discardWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *discardWriter) WriteHeader(int)                   {}

// discardExporter drops what the batch span processor hands it.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// The modes measured: the same App (plinth.New(), one route) with no
// tracing, tracing off (no endpoint: the middleware is left out), a
// provider that samples nothing (ParentBased(TraceIDRatioBased(0))), and
// one that samples everything into a batch processor whose exporter drops
// the spans.
const (
	modeNone       = "none"
	modeOff        = "off"
	modeSampledOut = "sampled-out"
	modeSampled    = "sampled"
)

func benchApp(tb testing.TB, mode string) *plinth.App {
	tb.Helper()
	app := plinth.New()
	app.Logger = quietLogger()
	var tp *sdktrace.TracerProvider
	switch mode {
	case modeNone:
	case modeOff:
		for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
			tb.Setenv(k, "")
		}
	case modeSampledOut:
		tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))))
	case modeSampled:
		tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(discardExporter{}))
	}
	if tp != nil {
		tb.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	}
	if mode != modeNone {
		cfg := tracing.Config{}
		if tp != nil {
			cfg.TracerProvider = tp
		}
		if _, err := tracing.New(app, cfg); err != nil {
			tb.Fatal(err)
		}
	}
	app.Get("/users/{id}", func(c *plinth.Ctx) error {
		_ = c.Context() // what a handler passes to a database call
		return c.NoContent(http.StatusNoContent)
	})
	app.Build()
	return app
}

// unsampledParent is traceparent with the sampled flag off.
const unsampledParent = "00-" + incomingTraceID + "-" + incomingSpanID + "-00"

// request returns a GET /users/42, with a client request ID (so that the
// default layer generates none) and, when parent is set, a traceparent.
func request(parent string) *http.Request {
	r, _ := http.NewRequest("GET", "http://example.com/users/42", nil)
	r.RemoteAddr = "192.0.2.1:1234"
	r.Header.Set("X-Request-ID", "bench-1")
	r.Header.Set("User-Agent", "bench/1")
	if parent != "" {
		r.Header.Set("traceparent", parent)
	}
	return r
}

func BenchmarkMiddleware(b *testing.B) {
	for _, mode := range []string{modeNone, modeOff, modeSampledOut, modeSampled} {
		parents := []string{"", traceparent}
		if mode == modeSampledOut {
			parents[1] = unsampledParent // a sampled parent would be sampled
		}
		for _, parent := range parents {
			name := mode + "/no-traceparent"
			if parent != "" {
				name = mode + "/traceparent"
			}
			b.Run(name, func(b *testing.B) {
				app := benchApp(b, mode)
				r := request(parent)
				w := &discardWriter{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					app.ServeHTTP(w, r)
				}
			})
		}
	}
}
