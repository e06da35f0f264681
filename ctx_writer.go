package plinth

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

// responseWriter wraps the server's ResponseWriter to record the status and
// the bytes written, so that the error path knows whether a response has
// started. It is embedded in the pooled Ctx: wrapping costs no allocation.
// Flush, Hijack and ReadFrom pass through; Unwrap serves
// http.ResponseController.
type responseWriter struct {
	w      http.ResponseWriter
	status int
	size   int64
	drain  *atomic.Bool // the App's draining flag (neverDraining outside an App)

	// timedOut is set when the handler timeout passed: writes then fail
	// with http.ErrHandlerTimeout and flushes do nothing.
	timedOut atomic.Bool

	// sec is the security header set to write when the response starts
	// (nil for none), and ctx the Ctx this writer is part of.
	sec *renderedSecurity
	ctx *Ctx
}

// neverDraining is the draining flag of a Ctx outside an App; it is never set.
var neverDraining atomic.Bool

// begin records that the response starts with code. While the App drains,
// the response also asks the client to close the connection, so that keep-
// alive clients move to another instance before the listener closes.
func (rw *responseWriter) begin(code int) {
	rw.status = code
	if rw.sec != nil || rw.ctx.nonce != "" {
		rw.ctx.writeSecurity(rw.sec, rw.w.Header())
	}
	if rw.drain.Load() {
		rw.askClose()
	}
}

// beginTyped is begin for a response whose kind (document or not, see
// isDocument) the caller knows, having just set its Content-Type: the
// header is not read again.
func (rw *responseWriter) beginTyped(code int, doc bool) {
	rw.status = code
	if rw.sec != nil || rw.ctx.nonce != "" {
		rw.ctx.writeSecurityAs(rw.sec, rw.w.Header(), doc)
	}
	if rw.drain.Load() {
		rw.askClose()
	}
}

// writeHeaderTyped is WriteHeader for a Ctx helper (Text, JSON, HTML) that
// has just set the Content-Type and writes to rw directly, no middleware's
// wrapper between: doc is what isDocument would find in the header.
func (rw *responseWriter) writeHeaderTyped(code int, doc bool) {
	if rw.timedOut.Load() {
		return
	}
	if rw.status == 0 && code >= 200 {
		rw.beginTyped(code, doc)
	}
	rw.w.WriteHeader(code)
}

// askClose is kept out of line so that begin stays small enough to inline.
//
//go:noinline
func (rw *responseWriter) askClose() { rw.w.Header()["Connection"] = connectionClose }

func (rw *responseWriter) Header() http.Header { return rw.w.Header() }

func (rw *responseWriter) WriteHeader(code int) {
	if rw.timedOut.Load() {
		return
	}
	if rw.status == 0 && code >= 200 {
		rw.begin(code)
	}
	rw.w.WriteHeader(code)
}

func (rw *responseWriter) Write(b []byte) (int, error) {
	if rw.timedOut.Load() {
		return 0, http.ErrHandlerTimeout
	}
	if rw.status == 0 {
		rw.begin(http.StatusOK)
	}
	n, err := rw.w.Write(b)
	rw.size += int64(n)
	return n, err
}

func (rw *responseWriter) WriteString(s string) (int, error) {
	if rw.timedOut.Load() {
		return 0, http.ErrHandlerTimeout
	}
	if rw.status == 0 {
		rw.begin(http.StatusOK)
	}
	n, err := io.WriteString(rw.w, s)
	rw.size += int64(n)
	return n, err
}

// ReadFrom lets io.Copy reach the server's sendfile path.
func (rw *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	if rw.timedOut.Load() {
		return 0, http.ErrHandlerTimeout
	}
	if rw.status == 0 {
		rw.begin(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := rw.w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{rw.w}, src)
	}
	rw.size += n
	return n, err
}

// writerOnly hides ReadFrom so io.Copy cannot recurse into it.
type writerOnly struct{ io.Writer }

func (rw *responseWriter) Flush() {
	if rw.timedOut.Load() {
		return
	}
	if rw.status == 0 {
		rw.begin(http.StatusOK)
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(rw.w).Flush()
}

func (rw *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := rw.w.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("plinth: the underlying ResponseWriter does not support Hijack")
	}
	conn, brw, err := h.Hijack()
	if err == nil && rw.status == 0 {
		rw.status = http.StatusSwitchingProtocols // the connection is the handler's now
	}
	return conn, brw, err
}

func (rw *responseWriter) Unwrap() http.ResponseWriter { return rw.w }
