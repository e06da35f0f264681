package tracing

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDKey is the span attribute carrying Plinth's request ID.
const RequestIDKey = attribute.Key("plinth.request_id")

// serverKind is the option slice of a server span, made once: a variadic
// slice passed through the Tracer interface would escape on every call.
var serverKind = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// middleware is the native middleware New installs. With tracing off it
// returns next itself: the chain is composed without it.
func (t *Tracing) middleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	if t.off {
		return next
	}
	return func(c *plinth.Ctx) error {
		r := c.RawRequest() // no copy: its context is not used
		if t.exclude(r) {
			return next(c)
		}
		method, known := knownMethod(r.Method)
		pattern := c.Pattern()
		name, route, exact := spanName(method, known, pattern)
		parent, opts, link := t.parent(c, r)
		ctx, span := t.tracer.Start(parent, name, opts...)
		c.SetContext(ctx)
		if !span.IsRecording() {
			// Sampled out: the span context travels on (outgoing requests
			// say "not sampled"), nothing is recorded.
			if err := next(c); err != nil {
				c.WriteError(err)
			}
			return nil
		}
		if link.IsValid() {
			span.AddLink(trace.Link{SpanContext: link})
		}
		if !exact {
			span.SetName(method + " " + route)
		}
		t.start(c, r, span, method, known, route)
		return t.serve(c, next, span)
	}
}

// parent returns the context the server span starts from, the span's
// options and the remote span context to link to. The incoming trace
// context is continued when the request is trusted (Config.TrustRemote);
// otherwise the span starts a new trace, its sampling decided here, and a
// recording span links to the remote span (the link is added after the
// start, so a sampled-out request does not pay for it). Incoming baggage
// stays only when trusted and Config.ForwardBaggage is set.
func (t *Tracing) parent(c *plinth.Ctx, r *http.Request) (context.Context, []trace.SpanStartOption, trace.SpanContext) {
	ctx := c.Context()
	remote := t.prop.Extract(ctx, headerCarrier(r.Header))
	if t.trust == TrustAll || (t.trust == TrustProxies && c.FromTrustedProxy()) {
		if !t.baggage && baggage.FromContext(remote).Len() > 0 {
			remote = baggage.ContextWithoutBaggage(remote)
		}
		return remote, serverKind, trace.SpanContext{}
	}
	sc := trace.SpanContextFromContext(remote)
	if !sc.IsValid() || !sc.IsRemote() {
		return ctx, serverKind, trace.SpanContext{}
	}
	// ctx holds no remote span: the span is a root (or the child of a span
	// this process started, when the App is itself inside an instrumented
	// handler), sampled as a request without trace context would be.
	return ctx, serverKind, sc
}

// serve runs next for a recording span and ends the span with the final
// status: errors are rendered here (WriteError), as native middleware that
// must see the final status does; a panic is recorded and passed on to the
// default layer's recovery, which answers 500.
func (t *Tracing) serve(c *plinth.Ctx, next plinth.HandlerFunc, span trace.Span) (err error) {
	done := false
	defer func() {
		if done {
			return
		}
		p := recover()
		status := c.Status()
		if status == 0 {
			status = http.StatusInternalServerError // what the recovery writes
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(status), semconv.ErrorTypeKey.String("panic"))
		span.RecordError(fmt.Errorf("panic: %v", p), trace.WithStackTrace(true))
		span.SetStatus(codes.Error, "panic")
		span.End()
		panic(p)
	}()
	err = next(c)
	if err != nil {
		c.WriteError(err)
	}
	done = true
	status := c.Status()
	if status == 0 {
		status = http.StatusOK // what net/http sends for a silent handler
		if c.TimedOut() {
			status = http.StatusServiceUnavailable // the timeout layer, outside, writes it
		}
	}
	if status >= 500 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status), semconv.ErrorTypeKey.String(strconv.Itoa(status)))
		if err != nil {
			span.RecordError(err)
		}
		span.SetStatus(codes.Error, "")
	} else {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	span.End()
	return nil
}

// start sets the request's attributes on a recording span.
func (t *Tracing) start(c *plinth.Ctx, r *http.Request, span trace.Span, method string, known bool, route string) {
	var buf [12]attribute.KeyValue
	attrs := append(buf[:0],
		semconv.HTTPRequestMethodKey.String(method),
		semconv.URLPath(r.URL.Path),
		semconv.URLScheme(c.Scheme()),
	)
	if !known {
		attrs = append(attrs, semconv.HTTPRequestMethodOriginal(r.Method))
	}
	if route != "" {
		attrs = append(attrs, semconv.HTTPRoute(route))
	}
	if host, port := splitHostPort(r.Host); host != "" {
		attrs = append(attrs, semconv.ServerAddress(host))
		if port > 0 {
			attrs = append(attrs, semconv.ServerPort(port))
		}
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	if v := protocolVersion(r); v != "" {
		attrs = append(attrs, semconv.NetworkProtocolVersion(v))
	}
	if ip := c.ClientIP(); ip.IsValid() {
		attrs = append(attrs, semconv.ClientAddress(ip.String()))
	}
	if id := c.RequestID(); id != "" {
		attrs = append(attrs, RequestIDKey.String(id))
	}
	span.SetAttributes(attrs...)
}

// knownMethod returns the http.request.method of m: m itself for the
// methods of RFC 9110 and PATCH, "_OTHER" for the rest, as the HTTP
// semantic conventions say (a client must not create a series per method
// name it invents).
func knownMethod(m string) (string, bool) {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace, http.MethodPatch:
		return m, true
	}
	return "_OTHER", false
}

// spanName returns the span's name, "METHOD route" ("HTTP" for an unknown
// method, "METHOD" alone for an unmatched request), the route (the
// pattern's path, without its method and host), and whether the name is
// already exact. When it is not, the returned name is a stand-in and the
// exact one is method+" "+route, built only for a recording span: a
// pattern registered without a method ("/users") or for another one (a
// HEAD request on a GET route).
func spanName(method string, known bool, pattern string) (name, route string, exact bool) {
	if pattern == "" {
		if !known {
			return "HTTP", "", true
		}
		return method, "", true
	}
	route, patMethod, hasHost := pattern, "", false
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		patMethod, route = pattern[:i], strings.TrimLeft(pattern[i+1:], " \t")
	}
	if j := strings.IndexByte(route, '/'); j > 0 {
		route, hasHost = route[j:], true
	}
	if !known {
		return "HTTP", route, true
	}
	if patMethod == method && !hasHost && len(pattern)-len(route) == len(method)+1 {
		return pattern, route, true // "GET /users/{id}": the pattern is the name
	}
	return method, route, false
}

// splitHostPort splits a Host header into host and port (0 when absent or
// bad) without allocating.
func splitHostPort(hostport string) (string, int) {
	if hostport == "" {
		return "", 0
	}
	if hostport[0] == '[' { // [v6]:port
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return hostport, 0
		}
		host, rest := hostport[1:end], hostport[end+1:]
		if len(rest) > 1 && rest[0] == ':' {
			p, _ := strconv.Atoi(rest[1:])
			return host, p
		}
		return host, 0
	}
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 || strings.IndexByte(hostport[:i], ':') >= 0 {
		return hostport, 0
	}
	p, err := strconv.Atoi(hostport[i+1:])
	if err != nil {
		p = 0
	}
	return hostport[:i], p
}

// protocolVersion is network.protocol.version: "1.1", "2", "3".
func protocolVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 3:
		return "3"
	}
	return ""
}
