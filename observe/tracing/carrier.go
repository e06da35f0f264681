package tracing

import (
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// headerCarrier is propagation.HeaderCarrier without its allocations:
// propagators ask for the lower-case names of the W3C headers, which
// http.Header.Get canonicalises into a new string on every call; the three
// W3C names are looked up in their canonical form directly.
type headerCarrier http.Header

var (
	_ propagation.TextMapCarrier = headerCarrier(nil)
	_ propagation.ValuesGetter   = headerCarrier(nil)
)

func canonical(key string) string {
	switch key {
	case "traceparent":
		return "Traceparent"
	case "tracestate":
		return "Tracestate"
	case "baggage":
		return "Baggage"
	}
	return http.CanonicalHeaderKey(key)
}

// Get returns the first value of key.
func (h headerCarrier) Get(key string) string {
	if v := h[canonical(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns every value of key.
func (h headerCarrier) Values(key string) []string { return h[canonical(key)] }

// Set replaces the values of key.
func (h headerCarrier) Set(key, value string) { h[canonical(key)] = []string{value} }

// Keys lists the header names.
func (h headerCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
