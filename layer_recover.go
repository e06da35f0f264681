package plinth

import (
	"log/slog"
	"net/http"
	"runtime/debug"
)

// recoverPanic turns a handler's panic into a 500 problem carrying the
// request ID, with the stack logged; if the response had started, it aborts
// the connection instead of writing a second response. http.ErrAbortHandler
// passes through untouched.
func recoverPanic(c *Ctx) {
	p := recover()
	if p == nil {
		return
	}
	if c.sse != nil {
		c.endSSE() // no heartbeat may write while net/http closes the connection
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	c.logger().LogAttrs(c.req.Context(), slog.LevelError, "plinth: panic in handler",
		slog.Any("panic", p), slog.String("request_id", c.requestID), slog.String("method", c.req.Method),
		slog.String("path", c.req.URL.Path), slog.String("pattern", c.Pattern()), slog.String("stack", string(debug.Stack())))
	if c.Written() {
		panic(http.ErrAbortHandler) // net/http closes the connection, logging nothing
	}
	c.writeProblem(&Problem{Status: http.StatusInternalServerError})
}
