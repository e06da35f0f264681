package plinth

import "time"

// Names of the default layers, for PLINTH_SKIP_MIDDLEWARE.
const (
	LayerRecover   = "recover"
	LayerRequestID = "requestid"
	LayerSecurity  = "security"
	LayerTimeout   = "timeout"
)

// parts is the work of the default layer, in one implementation composed
// two ways: New puts all four parts around every route and fallback as one
// function (see defaultStack), and Recover, RequestID, Security and
// Timeout are each one part alone, for a Bare App or a group that chooses
// and orders them itself. A nil or zero field leaves its part out.
type parts struct {
	recover bool
	ids     *idGenerator      // request IDs
	sec     *renderedSecurity // security headers
	timeout time.Duration     // handler timeout
}

// serve runs next inside the parts, in a fixed order: the request ID and
// the security headers are written first, so that every answer carries
// them (a panic's and a timeout's included), then the panic guard, then the
// deadline. The clock is read once, for the ID and the deadline.
func (p *parts) serve(c *Ctx, next HandlerFunc) error {
	var now time.Time
	if p.timeout > 0 || p.ids != nil {
		now = time.Now()
	}
	if p.ids != nil {
		p.ids.assign(c, c.rw.w.Header(), now)
	}
	if p.sec != nil {
		// Written when the response starts, by what it is (see
		// SecurityHeaders); App.ServeHTTP's secureIfSilent covers a chain
		// that writes nothing.
		c.rw.sec = p.sec
	}
	if p.recover {
		defer recoverPanic(c)
	}
	if p.timeout > 0 {
		return c.runWithTimeout(next, p.timeout, now)
	}
	return next(c)
}

// secureIfSilent writes the security headers into the header map of a
// response the chain left unstarted, which net/http then sends as an empty
// 200.
func (c *Ctx) secureIfSilent() {
	if c.rw.status == 0 && c.rw.sec != nil {
		c.writeSecurity(c.rw.sec, c.rw.w.Header())
	}
}

// layer returns p as native middleware.
func (p *parts) layer() Middleware {
	return func(next HandlerFunc) HandlerFunc {
		return func(c *Ctx) error { return p.serve(c, next) }
	}
}

// Recover returns a layer that turns a handler's panic into a 500 problem
// carrying the request ID, logs the panic and its stack through the App's
// Logger, passes http.ErrAbortHandler through, and aborts the connection
// (panicking with http.ErrAbortHandler) when the response had already
// started. It costs a deferred call per request.
func Recover() Middleware { return (&parts{recover: true}).layer() }

// RequestID returns a layer that keeps a well-formed incoming X-Request-ID
// (1 to 64 bytes of letters, digits, '-', '_' and '.', sent once) and
// otherwise generates a 26-character, time-sortable Crockford base32 ID
// without a system call; the ID is echoed on the response and available as
// Ctx.RequestID, in problem bodies and in panic logs. A generated ID costs
// a clock read and a 32nd of an allocation: each pooled Ctx cuts IDs from a
// block of 32 (a kept ID keeps its block, about 1.3 KiB, alive).
func RequestID() Middleware {
	ids := new(idGenerator)
	ids.init()
	return (&parts{ids: ids}).layer()
}

// Security returns a layer that writes h, as given, on every response (a
// set given whole is not split by response type; see SecurityHeaders), from
// values rendered once, here; an empty value is skipped.
// Strict-Transport-Security is sent only when Ctx.Secure (TLS, or a trusted
// proxy reporting HTTPS). No allocation per request.
func Security(h SecurityHeaders) Middleware {
	return (&parts{sec: renderSecurityAsGiven(h)}).layer()
}

// Timeout returns a layer that bounds the rest of the chain by d, as New's
// handler timeout does (see App.HandlerTimeout): at the deadline the
// handler's context is cancelled and its writes fail; an unstarted response
// becomes a 503 problem with Connection: close and a started one is aborted.
// No goroutine per request, no buffering. Inside another timeout (New's, or
// an outer Timeout) the earlier deadline wins. d <= 0 makes the layer a
// no-op. It costs a clock read; the request's context (one allocation) when
// the handler takes it (Ctx.Context, Ctx.Request: one nobody took is reused
// by the next request); and the request copy carrying the context when the
// handler asks for the request (one more allocation).
func Timeout(d time.Duration) Middleware {
	if d <= 0 {
		return func(next HandlerFunc) HandlerFunc { return next }
	}
	return (&parts{timeout: d}).layer()
}
