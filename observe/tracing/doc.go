// Package tracing adds OpenTelemetry traces to a Plinth App: a server span
// per request, client spans for outgoing HTTP requests (Client) and for
// PostgreSQL queries made with pgx (QueryTracer), the W3C trace context
// carried in and out, and trace and span IDs on the App's log records
// (LogHandler).
//
//	t, err := tracing.New(app, tracing.Config{})
//	if err != nil {
//		return err
//	}
//	client := t.Client(nil) // outgoing requests carry the request's trace
//
// With the zero Config the TracerProvider is made from the standard OTEL_*
// environment variables: OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the sampler from OTEL_TRACES_SAMPLER,
// the service name from OTEL_SERVICE_NAME. With no endpoint set, tracing is
// off and the middleware is not even called.
//
// The server is a public endpoint by default: an incoming traceparent is
// continued only from the App's trusted proxies (Config.TrustRemote), and
// incoming baggage is dropped (Config.ForwardBaggage). See
// docs/observability.md.
//
// It is in the observe module, with metrics, so that an App that uses
// neither keeps OpenTelemetry out of its go.mod.
package tracing
