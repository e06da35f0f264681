package plinth

import (
	"context"
	"log/slog"
)

// Logger returns the App's Logger bound to this request: every record
// logged through it carries request_id (when the request has one: New's
// default layer, or the RequestID layer) and route (the matched pattern;
// "unmatched" for a fallback), and is handled with the request's context,
// so that a handler wrapping the App's (the trace package's, say) can add
// what the context holds, such as trace and span IDs. It allocates nothing
// of its own, and a record below the handler's level costs one Enabled
// call.
//
// Like the Ctx, the logger must not be used after the handler returns. To
// log from a goroutine that outlives the request, take
// c.Logger().With(...): the logger With returns holds the request's values
// themselves and is safe to keep.
func (c *Ctx) Logger() *slog.Logger {
	if c.log.h == nil {
		c.log.c = c
		c.log.h = &c.log
		c.log.l = slog.New(c.log.h)
	}
	return c.log.l
}

// ctxLog is the per-Ctx part of Logger: a handler that reads the Ctx of
// the request in flight, and the logger made on it once per pooled Ctx.
type ctxLog struct {
	c *Ctx
	h slog.Handler // &c.log once made
	l *slog.Logger
}

func (l *ctxLog) inner() slog.Handler { return l.c.logger().Handler() }

func (l *ctxLog) Enabled(ctx context.Context, level slog.Level) bool {
	return l.inner().Enabled(ctx, level)
}

func (l *ctxLog) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil || ctx == context.Background() {
		ctx = l.c.Context()
	}
	if l.c.requestID != "" {
		r.AddAttrs(slog.String("request_id", l.c.requestID))
	}
	r.AddAttrs(slog.String("route", l.c.routeLabel()))
	return l.inner().Handle(ctx, r)
}

// WithAttrs and WithGroup return handlers that keep the request's values
// as they are now, so that the logger they make may outlive the request.
func (l *ctxLog) WithAttrs(as []slog.Attr) slog.Handler {
	return l.inner().WithAttrs(append(l.c.requestAttrs(), as...))
}

func (l *ctxLog) WithGroup(name string) slog.Handler {
	return l.inner().WithAttrs(l.c.requestAttrs()).WithGroup(name)
}

// requestAttrs are the attributes Logger adds: request_id when there is
// one, and route.
func (c *Ctx) requestAttrs() []slog.Attr {
	if c.requestID == "" {
		return []slog.Attr{slog.String("route", c.routeLabel())}
	}
	return []slog.Attr{slog.String("request_id", c.requestID), slog.String("route", c.routeLabel())}
}

// routeLabel is the route label of logs: the pattern, or "unmatched".
func (c *Ctx) routeLabel() string {
	if p := c.Pattern(); p != "" {
		return p
	}
	return "unmatched"
}
