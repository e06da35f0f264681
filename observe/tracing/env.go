package tracing

import (
	"context"
	"fmt"
	"strings"

	"github.com/plinth-go/plinth/observe/internal/envconf"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTEL_* variables this package reads itself. The exporter and the SDK
// read the others (the endpoint's details, headers, timeouts, the sampler,
// the batch processor's limits, the resource) as they document.
const (
	envSDKDisabled       = "OTEL_SDK_DISABLED"
	envTracesExporter    = "OTEL_TRACES_EXPORTER"
	envEndpoint          = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint    = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol          = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol    = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	protocolHTTPProtobuf = "http/protobuf"
)

// providerFromEnv makes the TracerProvider of a zero Config.TracerProvider,
// from the OTEL_* variables that lookup returns: nil (tracing off) when
// OTEL_SDK_DISABLED is true, OTEL_TRACES_EXPORTER is "none" or no OTLP
// endpoint is set; otherwise an SDK provider exporting over OTLP/HTTP
// through a batch span processor. Every bad value is named in the one error.
func providerFromEnv(lookup func(string) (string, bool)) (*sdktrace.TracerProvider, error) {
	e := envconf.New(lookup) // the reader the core and every module share
	get := func(k string) string { v, _ := e.Lookup(k); return v }
	if strings.EqualFold(get(envSDKDisabled), "true") {
		return nil, nil
	}
	switch exp := strings.ToLower(get(envTracesExporter)); exp {
	case "", "otlp":
	case "none":
		return nil, nil
	default:
		e.Failf("%s=%q: this module exports over OTLP only (\"otlp\", or \"none\" for off)", envTracesExporter, exp)
	}
	for _, k := range []string{envTracesProtocol, envProtocol} {
		if p := get(k); p != "" {
			if p != protocolHTTPProtobuf {
				e.Failf("%s=%q: this module speaks OTLP over HTTP with protobuf (%q) only", k, p, protocolHTTPProtobuf)
			}
			break // the signal-specific variable wins
		}
	}
	if err := e.Err("tracing"); err != nil {
		return nil, err
	}
	if get(envTracesEndpoint) == "" && get(envEndpoint) == "" {
		return nil, nil
	}
	// The exporter reads the endpoint, headers, compression, timeout and
	// TLS settings from the OTEL_EXPORTER_OTLP_* variables itself; it does
	// not connect until the first export.
	exp, err := otlptracehttp.New(context.Background())
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP/HTTP exporter from %s: %w", envEndpoint, err)
	}
	// The resource's service.name and attributes are read now
	// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), over the SDK's default
	// resource, which reads them once per process and keeps them.
	env, err := resource.New(context.Background(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	res, err := resource.Merge(resource.Default(), env)
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	// The SDK reads OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_* itself.
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// The PLINTH_* variables of this package: they override Config.TrustRemote
// and Config.ForwardBaggage.
const (
	EnvTrustRemote    = "PLINTH_TRACING_TRUST_REMOTE"
	EnvForwardBaggage = "PLINTH_TRACING_FORWARD_BAGGAGE"
)

// remoteFromEnv returns the trust in incoming trace context and baggage:
// the configured values, overridden by PLINTH_TRACING_TRUST_REMOTE and
// PLINTH_TRACING_FORWARD_BAGGAGE when set. Every bad value is named in the
// one error.
func remoteFromEnv(lookup func(string) (string, bool), trust TrustRemote, fwd bool) (TrustRemote, bool, error) {
	e := envconf.New(lookup)
	if trust > TrustAll {
		e.Failf("Config.TrustRemote=%d: want TrustProxies, TrustNone or TrustAll", trust)
	}
	if v, ok := e.Lookup(EnvTrustRemote); ok {
		switch strings.ToLower(v) {
		case "proxies":
			trust = TrustProxies
		case "none":
			trust = TrustNone
		case "all":
			trust = TrustAll
		default:
			e.Failf("%s=%q: want proxies (the default: trace context from App.TrustedProxies only), none or all", EnvTrustRemote, v)
		}
	}
	e.Bool(EnvForwardBaggage, &fwd)
	if err := e.Err("tracing"); err != nil {
		return 0, false, err
	}
	return trust, fwd, nil
}
