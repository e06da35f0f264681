// Package fullstack is the "full production stack" scenario: GET
// /accounts/{id} answering the json scenario's account object behind the
// middlewares a production service usually runs, each framework with its own
// (or its ecosystem's usual) form of each: request ID, access log to
// io.Discard, Prometheus request-duration histogram per route,
// OpenTelemetry tracing sampled at 10% (ParentBased(TraceIDRatioBased(0.1))
// through a batch span processor to an exporter that discards), gzip, and a
// concurrency limit of MaxInFlight. bench/fullstack_test.go times it in
// process; cmd/bench-server serves it over real HTTP (scenario fullstack).
//
// Every stack gets its own Prometheus registry and TracerProvider (Build).
package fullstack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

// Scenario is the scenario's name in cmd/bench-server and run-http.sh.
const Scenario = "fullstack"

// Path is the timed request's path; RequestHeaders the headers it carries.
const Path = "/accounts/42"

// RequestHeaders are sent with every request of the scenario.
var RequestHeaders = [][2]string{{"Accept-Encoding", "gzip"}}

// ID is the account id Path asks for.
const ID = 42

// MaxInFlight is every stack's concurrency limit.
const MaxInFlight = 1024

// GzipLevel is every stack's gzip level (Plinth's compress default).
const GzipLevel = 5

// SampleRatio is the root sampling ratio of every TracerProvider.
const SampleRatio = 0.1

// Names lists the stacks, Plinth first.
var Names = []string{"plinth", "chi", "gin", "echo"}

// Stack is one framework's full stack and what it reports into.
type Stack struct {
	Name     string
	Handler  http.Handler
	Registry *prometheus.Registry
	Tracer   *sdktrace.TracerProvider
	// Exporter counts the sampled spans it drops.
	Exporter *DiscardExporter
}

// Shutdown flushes and stops the stack's TracerProvider.
func (s *Stack) Shutdown(ctx context.Context) error { return s.Tracer.Shutdown(ctx) }

// Build builds the stack of the framework called name ("plinth-new" is
// "plinth": the stack is on plinth.New()).
func Build(name string) (*Stack, error) {
	if name == "plinth-new" {
		name = "plinth"
	}
	exp := &DiscardExporter{}
	s := &Stack{Name: name, Registry: prometheus.NewRegistry(), Tracer: NewTracerProvider(exp), Exporter: exp}
	var err error
	switch name {
	case "plinth":
		s.Handler, err = newPlinth(s.Registry, s.Tracer)
	case "chi":
		s.Handler, err = newChi(s.Registry, s.Tracer)
	case "gin":
		s.Handler, err = newGin(s.Registry, s.Tracer)
	case "echo":
		s.Handler, err = newEcho(s.Registry, s.Tracer)
	default:
		err = fmt.Errorf("fullstack: unknown framework %q (served: plinth-new, chi, gin, echo)", name)
	}
	if err != nil {
		s.Tracer.Shutdown(context.Background())
		return nil, err
	}
	return s, nil
}

// NewTracerProvider samples 10% of root spans (children follow their
// parent) and batches the sampled ones to exp, with the batch span
// processor's defaults.
func NewTracerProvider(exp sdktrace.SpanExporter) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(SampleRatio))),
		sdktrace.WithBatcher(exp),
	)
}

// Propagator is every stack's: W3C Trace Context and Baggage (Plinth's
// default; otelhttp, otelgin and otelecho would otherwise take the global
// one, a no-op until a program sets it).
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// DiscardExporter is a sdktrace.SpanExporter that drops every span, only
// counting them.
type DiscardExporter struct{ spans atomic.Int64 }

// ExportSpans counts and drops spans.
func (e *DiscardExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.spans.Add(int64(len(spans)))
	return nil
}

// Shutdown does nothing.
func (e *DiscardExporter) Shutdown(context.Context) error { return nil }

// Spans is the number of spans exported so far.
func (e *DiscardExporter) Spans() int64 { return e.spans.Load() }

// discardLogger is a structured JSON logger writing to discard, for the
// stacks whose access log takes a *slog.Logger.
func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(discard{}, nil)) }

// Shared request-duration histogram options (the buckets are Prometheus'
// defaults, as every middleware here uses).
const (
	histName = "http_request_duration_seconds"
	histHelp = "Duration of HTTP requests, by route."
)

// writeAccount is the handler in net/http form (the json scenario's).
func writeAccount(w http.ResponseWriter, idParam string) {
	id, err := strconv.Atoi(idParam)
	if err != nil {
		http.Error(w, suite.InvalidID, http.StatusBadRequest)
		return
	}
	acct := suite.NewAccount(id)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(&acct)
}
