package tracing

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

var clientKind = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// Client returns a copy of base (nil: http.DefaultClient) whose requests
// carry the trace context of their own context (traceparent, tracestate,
// baggage, through Config.Propagator) and get a client span, child of the
// span in that context: in a handler, make the request with c.Context()
// (http.NewRequestWithContext) and it joins the request's trace. The span is
// named after the method, carries http.request.method, server.address,
// server.port, url.full (without user info; the values of the signature
// parameters the conventions name are redacted) and
// http.response.status_code, is an error for a transport failure or a 4xx
// or 5xx answer, and ends when the response headers arrive. The request is
// cloned before its headers change, as a RoundTripper must. With tracing
// off, requests go out untouched.
func (t *Tracing) Client(base *http.Client) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	if t.off {
		return &c
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &transport{t: t, next: next}
	return &c
}

type transport struct {
	t    *Tracing
	next http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	method, known := knownMethod(req.Method)
	name := method
	if !known {
		name = "HTTP"
	}
	ctx, span := tr.t.tracer.Start(req.Context(), name, clientKind...)
	defer span.End()
	if span.IsRecording() {
		attrs := []attribute.KeyValue{
			semconv.HTTPRequestMethodKey.String(method),
			semconv.URLFull(redactURL(req.URL)),
		}
		if !known {
			attrs = append(attrs, semconv.HTTPRequestMethodOriginal(req.Method))
		}
		host, port := req.URL.Hostname(), req.URL.Port()
		attrs = append(attrs, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		} else if req.URL.Scheme == "https" {
			attrs = append(attrs, semconv.ServerPort(443))
		} else if req.URL.Scheme == "http" {
			attrs = append(attrs, semconv.ServerPort(80))
		}
		span.SetAttributes(attrs...)
	}
	out := req.Clone(ctx)
	tr.t.prop.Inject(ctx, headerCarrier(out.Header))
	resp, err := tr.next.RoundTrip(out)
	if err != nil {
		if span.IsRecording() {
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		return resp, err
	}
	if span.IsRecording() {
		span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(resp.StatusCode)))
			span.SetStatus(codes.Error, "")
		}
	}
	return resp, nil
}

// errorType is error.type for a transport error: its Go type, under
// *url.Error's wrapping.
func errorType(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	return fmt.Sprintf("%T", err)
}

// redactURL is url.full: without user info, and with the values of the
// query parameters that carry signatures replaced by REDACTED, as the HTTP
// semantic conventions say.
func redactURL(u *url.URL) string {
	if u.User == nil && !hasSensitiveQuery(u.RawQuery) {
		return u.String()
	}
	c := *u
	if c.User != nil {
		c.User = url.UserPassword("REDACTED", "REDACTED")
	}
	if hasSensitiveQuery(c.RawQuery) {
		parts := strings.Split(c.RawQuery, "&")
		for i, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if sensitiveQuery[k] {
				parts[i] = k + "=REDACTED"
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	return c.String()
}

var sensitiveQuery = map[string]bool{"AWSAccessKeyId": true, "Signature": true, "sig": true, "X-Goog-Signature": true}

func hasSensitiveQuery(q string) bool {
	if q == "" {
		return false
	}
	for k := range sensitiveQuery {
		if strings.Contains(q, k+"=") {
			return true
		}
	}
	return false
}
