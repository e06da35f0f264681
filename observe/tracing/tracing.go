package tracing

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/plinth-go/plinth"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of the spans this package makes.
const ScopeName = "github.com/plinth-go/plinth/observe/tracing"

// DefaultExcludePath is the path that a nil Config.Exclude leaves
// untraced: the metrics endpoint, scraped every few seconds.
const DefaultExcludePath = "/metrics"

// Config configures New. Its zero value is the default: a provider made
// from the OTEL_* environment variables, W3C trace context and baggage, and
// every request traced but /metrics.
type Config struct {
	// TracerProvider makes the spans. Nil means one made from the standard
	// OTEL_* variables: OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, and the other
	// OTEL_EXPORTER_OTLP_* settings, which the exporter reads) through a
	// batch span processor, the sampler of OTEL_TRACES_SAMPLER and
	// OTEL_TRACES_SAMPLER_ARG (parentbased_always_on when unset), and the
	// resource of OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. New
	// registers an OnStop hook that flushes and shuts it down. With no
	// endpoint set, OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true,
	// tracing is off: the provider is a no-op, the middleware is left out
	// of the chain (it costs nothing) and nothing is extracted or injected.
	// A provider given here is used as it is, and is the caller's to shut
	// down; noop.NewTracerProvider() gives propagation without recording.
	TracerProvider trace.TracerProvider

	// Propagator reads the trace context from incoming requests and writes
	// it into outgoing ones. Nil means W3C Trace Context (traceparent,
	// tracestate) and W3C Baggage.
	Propagator propagation.TextMapPropagator

	// Exclude reports the requests that are not traced: no span, nothing
	// extracted. Nil means the requests for DefaultExcludePath ("/metrics").
	// The probes (/livez, /readyz) never reach the middleware.
	Exclude func(*http.Request) bool

	// TrustRemote says whose incoming trace context (traceparent,
	// tracestate) the server span continues. The zero value, TrustProxies,
	// continues it only for requests whose peer is one of the App's trusted
	// proxies (App.TrustedProxies, PLINTH_TRUSTED_PROXIES; none by
	// default): the server is a public endpoint, as otelhttp's
	// WithPublicEndpoint makes it, because a client on the internet could
	// otherwise choose its trace IDs and switch sampling off for its own
	// requests. An untrusted request with a trace context gets a new trace,
	// sampled by the provider's own decision, whose root span links to the
	// remote span. TrustAll continues every incoming context (a service
	// reached only by other services of the same system), TrustNone none.
	// PLINTH_TRACING_TRUST_REMOTE (proxies, all or none) overrides it.
	TrustRemote TrustRemote

	// ForwardBaggage keeps the W3C baggage of a trusted request (see
	// TrustRemote) in the handler's context, where Client sends it on to
	// the services the handler calls. False, the default, drops incoming
	// baggage: entries a client chose would otherwise reach internal
	// services, which may act on them. Baggage the handler sets itself is
	// always forwarded. PLINTH_TRACING_FORWARD_BAGGAGE (true or false)
	// overrides it.
	ForwardBaggage bool
}

// TrustRemote is Config.TrustRemote: whose incoming trace context is
// continued.
type TrustRemote uint8

const (
	// TrustProxies continues the trace context of requests from the App's
	// trusted proxies only; the default.
	TrustProxies TrustRemote = iota
	// TrustNone starts a new trace for every request, linked to the
	// incoming span context when there is one.
	TrustNone
	// TrustAll continues every incoming trace context.
	TrustAll
)

// String is the value's spelling in PLINTH_TRACING_TRUST_REMOTE.
func (tr TrustRemote) String() string {
	switch tr {
	case TrustProxies:
		return "proxies"
	case TrustNone:
		return "none"
	case TrustAll:
		return "all"
	}
	return "TrustRemote(" + strconv.Itoa(int(tr)) + ")"
}

// Tracing is the tracing of one App, made by New.
type Tracing struct {
	tp      trace.TracerProvider
	sdk     *sdktrace.TracerProvider // made by New: shut down by Shutdown
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	exclude func(*http.Request) bool
	off     bool // tracing off: nothing extracted, injected or recorded
	trust   TrustRemote
	baggage bool // Config.ForwardBaggage

	shutdownOnce sync.Once
	shutdownErr  error
}

// New sets up tracing for app: it installs the server-span middleware with
// app.Use (inside New's default layer, so the request ID is known and a
// recovered panic is seen), wraps app.Logger's handler (slog.Default()'s
// when app.Logger is nil) with LogHandler, and, when it made the provider
// itself, registers an OnStop hook that exports the spans still
// buffered and shuts the provider down, during the drain, within the grace
// period. Call it before the App serves, like Use.
//
// The error reports a bad OTEL_* variable (an exporter other than otlp, a
// protocol other than http/protobuf), or a bad PLINTH_TRACING_TRUST_REMOTE
// or PLINTH_TRACING_FORWARD_BAGGAGE.
func New(app *plinth.App, cfg Config) (*Tracing, error) {
	t := &Tracing{tp: cfg.TracerProvider, prop: cfg.Propagator, exclude: cfg.Exclude}
	trust, fwd, err := remoteFromEnv(os.LookupEnv, cfg.TrustRemote, cfg.ForwardBaggage)
	if err != nil {
		return nil, err
	}
	t.trust, t.baggage = trust, fwd
	app.DeclareEnv(EnvTrustRemote, EnvForwardBaggage) // not misspellings: see App.DeclareEnv
	if t.tp == nil {
		sdk, err := providerFromEnv(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		if sdk == nil {
			t.tp, t.off = noop.NewTracerProvider(), true
		} else {
			t.tp, t.sdk = sdk, sdk
		}
	}
	if t.prop == nil {
		t.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	if t.exclude == nil {
		t.exclude = excludeMetrics
	}
	t.tracer = t.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))

	app.Use(t.middleware)
	l := app.Logger
	if l == nil {
		l = slog.Default()
	}
	if _, ok := l.Handler().(*logHandler); !ok {
		app.Logger = slog.New(LogHandler(l.Handler()))
	}
	if t.sdk != nil {
		app.OnStop(t.Shutdown)
	}
	return t, nil
}

func excludeMetrics(r *http.Request) bool { return r.URL.Path == DefaultExcludePath }

// TracerProvider returns the provider in use: Config.TracerProvider, the
// one made from the environment, or a no-op provider when tracing is off.
// Use it for spans of your own (t.TracerProvider().Tracer("myapp")); they
// join the request's trace through the handler's context.
func (t *Tracing) TracerProvider() trace.TracerProvider { return t.tp }

// Shutdown exports the spans still buffered and shuts down the provider
// New made from the environment; it does nothing for a provider given in
// Config, whose owner shuts it down. New registers it as an OnStop
// hook, so Run and Serve call it during the drain. Later calls return the
// first call's result.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t.sdk == nil {
		return nil
	}
	t.shutdownOnce.Do(func() { t.shutdownErr = t.sdk.Shutdown(ctx) })
	return t.shutdownErr
}
