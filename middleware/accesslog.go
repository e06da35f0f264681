package middleware

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/plinth-go/plinth"
)

// AccessLogConfig configures AccessLog. Its zero value is the default: a
// record at Info for every answer below 500 and at Error for 5xx, through
// slog.Default(), with message "request" and no user agent or referer.
type AccessLogConfig struct {
	// Logger receives the records. Nil means slog.Default(), looked up
	// when AccessLog is called.
	Logger *slog.Logger

	// Level is the level of the record of a request answered below 400.
	// Nil means slog.LevelInfo. Like ClientErrorLevel and
	// ServerErrorLevel, it is read once, by AccessLog: a *slog.LevelVar
	// changed later is not seen (the logger's own handler level is, on
	// every request).
	Level slog.Leveler

	// ClientErrorLevel is the level of the record of a 4xx answer. Nil
	// means Level (Info by default): client errors are the client's
	// problem, and an attacker could otherwise flood the error log.
	ClientErrorLevel slog.Leveler

	// ServerErrorLevel is the level of the record of a 5xx answer. Nil
	// means slog.LevelError.
	ServerErrorLevel slog.Leveler

	// Message is the record's message. "" means "request".
	Message string

	// UserAgent adds the request's User-Agent as "user_agent". Default
	// off.
	UserAgent bool

	// Referer adds the request's Referer as "referer". Default off.
	Referer bool
}

type accessLog struct {
	logger                      *slog.Logger
	level, clientErr, serverErr slog.Level
	top                         slog.Level // the highest of the three
	msg                         string
	userAgent, referer          bool
	now                         func() time.Time
}

// AccessLog returns middleware that logs one record per request through
// cfg.Logger (nil: slog.Default()), after the response: message "request"
// (cfg.Message) with the attributes method, pattern (the route pattern, ""
// for a fallback answer such as a 404), path (without the query, which
// often carries tokens), status, bytes (body bytes written), duration,
// request_id (when there is one), client_ip (c.ClientIP(): the peer, or the
// forwarded client behind App.TrustedProxies) and, when enabled
// (cfg.UserAgent, cfg.Referer), user_agent and referer. Levels: Info below
// 400, Info for 4xx, Error for 5xx by default; see AccessLogConfig. No
// configuration is invalid.
//
// To log the final status, AccessLog renders an error returned by the rest
// of the chain itself (c.WriteError: a returned 404 problem is logged as
// 404) and returns nil. A handler that writes nothing is logged as 200, the
// status net/http sends, or as 503 if the handler timeout of New's default
// layer cut it (that layer writes its 503 after AccessLog returns). A panic passes through unlogged: recovery is the
// job of New's default layer, which is outermost (it wraps every scope
// middleware, AccessLog included) and logs the panic with the request ID.
//
// Install it with Use on the App so that 404, 405 and OPTIONS answers
// are logged too. When the logger is not enabled for the highest of the
// three levels (checked with Logger.Enabled before the request runs; slog
// handlers enable every level above their minimum) it costs nothing: no
// clock reading, no allocation. When it is enabled for that level only (a
// logger at Warn: 5xx are logged, the rest not) the others cost two clock
// readings and no allocation. A record is written with LogAttrs and costs
// two allocations on top of what the slog.Handler does (the client IP's
// text, and slog's spill-over beyond a Record's five inline attributes);
// slog.JSONHandler adds none (TestAccessLogAllocations). Most of an
// enabled record's time is slog's: runtime.Callers for the source position,
// and the handler's formatting. Measured figures, with the command that
// produces them: docs/middleware.md, "Measured cost of CORS, Real IP and
// Access log".
func AccessLog(cfg AccessLogConfig) plinth.Middleware {
	return newAccessLog(cfg, time.Now).middleware
}

// newAccessLog applies cfg's defaults; now replaces time.Now in tests.
func newAccessLog(cfg AccessLogConfig, now func() time.Time) *accessLog {
	a := &accessLog{
		logger:    cfg.Logger,
		level:     levelOr(cfg.Level, slog.LevelInfo),
		serverErr: levelOr(cfg.ServerErrorLevel, slog.LevelError),
		msg:       cfg.Message,
		userAgent: cfg.UserAgent,
		referer:   cfg.Referer,
		now:       now,
	}
	a.clientErr = levelOr(cfg.ClientErrorLevel, a.level)
	if a.logger == nil {
		a.logger = slog.Default()
	}
	if a.msg == "" {
		a.msg = "request"
	}
	a.top = max(a.level, a.clientErr, a.serverErr)
	return a
}

// levelOr returns l's level, or def when l is nil.
func levelOr(l slog.Leveler, def slog.Level) slog.Level {
	if l == nil {
		return def
	}
	return l.Level()
}

func (a *accessLog) middleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		ctx := c.Context()
		if !a.logger.Enabled(ctx, a.top) {
			return next(c)
		}
		start := a.now()
		if err := next(c); err != nil {
			c.WriteError(err)
		}
		a.log(c, start)
		return nil
	}
}

// log writes the record; kept apart so that the disabled path stays small.
func (a *accessLog) log(c *plinth.Ctx, start time.Time) {
	status := c.Status()
	if status == 0 {
		status = http.StatusOK
		if c.TimedOut() {
			// The handler timeout (New's, outside) fired and suppressed
			// the writes: it answers 503 once the chain has returned.
			status = http.StatusServiceUnavailable
		}
	}
	level := a.level
	switch {
	case status >= 500:
		level = a.serverErr
	case status >= 400:
		level = a.clientErr
	}
	r := c.Request()
	ctx := r.Context()
	if !a.logger.Enabled(ctx, level) {
		return
	}
	d := a.now().Sub(start)
	var buf [10]slog.Attr
	attrs := append(buf[:0],
		slog.String("method", r.Method),
		slog.String("pattern", c.Pattern()),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Int64("bytes", c.BytesWritten()),
		slog.Duration("duration", d),
	)
	if id := c.RequestID(); id != "" {
		attrs = append(attrs, slog.String("request_id", id))
	}
	if ip := c.ClientIP(); ip.IsValid() {
		attrs = append(attrs, slog.String("client_ip", ip.String()))
	}
	if a.userAgent {
		attrs = append(attrs, slog.String("user_agent", r.UserAgent()))
	}
	if a.referer {
		attrs = append(attrs, slog.String("referer", r.Referer()))
	}
	a.logger.LogAttrs(ctx, level, a.msg, attrs...)
}
