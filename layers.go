package plinth

import "time"

// The default layer's parts as separate native middleware, for a Bare App
// (or a group) that wants to choose and order them itself. New does not use
// them: its one fused layer does the same work in a single function, and the
// benchmarks in bench/ (scenarios middleware and middleware-fused) compare
// the two. Installed with UseNative they run on the scope's fallbacks too.

// Recover returns a layer that turns a handler's panic into a 500 problem
// carrying the request ID, logs the panic and its stack through the App's
// Logger, passes http.ErrAbortHandler through, and aborts the connection
// (panicking with http.ErrAbortHandler) when the response had already
// started. It costs a deferred call per request.
func Recover() Middleware {
	return func(next HandlerFunc) HandlerFunc {
		return func(c *Ctx) error {
			defer recoverPanic(c)
			return next(c)
		}
	}
}

// RequestID returns a layer that keeps a well-formed incoming X-Request-ID
// (1 to 64 bytes of letters, digits, '-', '_' and '.', sent once) and
// otherwise generates a 26-character, time-sortable Crockford base32 ID
// without a system call; the ID is echoed on the response and available as
// Ctx.RequestID, in problem bodies and in panic logs. A generated ID costs
// one allocation and a clock read.
func RequestID() Middleware {
	ids := new(idGenerator)
	ids.init()
	return func(next HandlerFunc) HandlerFunc {
		return func(c *Ctx) error {
			ids.assign(c, c.rw.w.Header(), time.Now())
			return next(c)
		}
	}
}

// SecureHeaders returns a layer that writes h on every response from values
// rendered once, here; an empty value is skipped. Strict-Transport-Security
// is sent only when Ctx.Secure (TLS, or a trusted proxy reporting HTTPS).
// Pass HelmetHeaders() for New's set. No allocation per request.
func SecureHeaders(h SecurityHeaders) Middleware {
	rs := renderSecurity(h)
	return func(next HandlerFunc) HandlerFunc {
		return func(c *Ctx) error {
			rs.write(c, c.rw.w.Header())
			return next(c)
		}
	}
}

// Timeout returns a layer that bounds the rest of the chain by d, as New's
// handler timeout does (see App.HandlerTimeout): at the deadline the
// handler's context is cancelled and its writes fail; an unstarted response
// becomes a 503 problem with Connection: close and a started one is aborted.
// No goroutine per request, no buffering. Inside another timeout (New's, or
// an outer Timeout) the earlier deadline wins. d <= 0 makes the layer a
// no-op. It costs the request's context (one allocation), a clock read, and
// the request copy carrying the context when the handler asks for the request
// (one more allocation).
func Timeout(d time.Duration) Middleware {
	return func(next HandlerFunc) HandlerFunc {
		if d <= 0 {
			return next
		}
		return func(c *Ctx) error {
			return c.runWithTimeout(next, d, time.Now())
		}
	}
}
