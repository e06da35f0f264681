package tracing

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler returns a slog.Handler that adds trace_id and span_id (lower-
// case hex, as W3C Trace Context writes them) to every record whose context
// holds a valid span context, and passes the record to next. A record
// without one (logged with context.Background(), or outside a traced
// request) passes through untouched; it costs a context lookup. With one,
// the two IDs' text costs two allocations.
//
// New wraps the App's Logger with it, so c.Logger(), the core's error and
// panic logs and middleware.AccessLog (all of which log with the request's
// context) carry the IDs of the request's server span. Under a logger's
// WithGroup the two keys are inside the group, as every attribute added by
// a handler is.
func LogHandler(next slog.Handler) slog.Handler {
	if h, ok := next.(*logHandler); ok {
		return h
	}
	return &logHandler{next: next}
}

type logHandler struct{ next slog.Handler }

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return h.next.Handle(ctx, r)
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &logHandler{next: h.next.WithAttrs(as)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{next: h.next.WithGroup(name)}
}
