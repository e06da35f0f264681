package plinth

import (
	"io"
	"net/http"
	"time"
)

// BodyError is a failure to read the request body, as Plinth's body reader
// returns it to handlers: a body over its limit (*http.MaxBytesError inside),
// a body that arrived too slowly (os.ErrDeadlineExceeded inside: the body read
// timeout cut it), bad chunked encoding, or a client gone mid-body. The
// built-in renderer answers 413, 408 and 400 respectively, whatever wraps it,
// so a handler may return a body read error as it got it.
type BodyError struct{ Err error }

// Error describes the failure for logs.
func (e *BodyError) Error() string { return "reading the request body: " + e.Err.Error() }

// Unwrap returns the read error.
func (e *BodyError) Unwrap() error { return e.Err }

// guardBody gives a request that has a body its limit and the server's body
// read pacing before anything of the chain runs: the body is wrapped in a
// bodyReader, carried by a shallow copy of the request (net/http decides, from
// the body of its own request, whether an unread body is drained or the
// connection closed, and must keep seeing its own). A declared length over
// the limit is not read at all: the route's chain answers 413 from the
// position of its handler (see refuseOversize), so the response gets the
// request ID, security headers, middleware and ErrorHandler like any other
// error. limit 0 means the App's default, < 0 none.
//
// Cost, for requests with a body only: the request copy and the reader (two
// allocations), and a read deadline update per Read while pacing. With
// neither a limit nor a body read timeout (an App used as a handler without
// Run or Serve, with no limit set) the body is left as it is, at no cost; its
// read errors then reach the renderer unmarked.
func (t *table) guardBody(c *Ctx, limit int64) {
	r := c.req
	if limit == 0 {
		limit = t.app.defaultMaxBody.Load()
	}
	limit = max(limit, 0)
	timeout := time.Duration(t.app.bodyReadTimeout.Load())
	if limit == 0 && timeout <= 0 {
		return // nothing to enforce (an App served without Run or Serve, no limit set): no copy
	}
	c.bodyLimit = limit
	br := &bodyReader{src: r.Body, w: c.rw.w, limit: limit, remain: limit, http1: r.ProtoMajor == 1}
	if limit > 0 && r.ContentLength > limit {
		// Never read: refuseOversize answers 413 and the connection closes;
		// middleware that reads the body before it gets the same error.
		c.bodyOversize = true
		br.fail()
	} else if timeout > 0 {
		br.pace(timeout, t.app.minBodyRate.Load())
	}
	c.body = br
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = br
	c.req = r2
	c.handOut(r2)
}

// refuseOversize wraps a route's handler: a request whose declared body
// length is over the route's limit gets a 413 problem from here, inside the
// route's middleware and the default layer, instead of reaching the handler.
func refuseOversize(next HandlerFunc) HandlerFunc {
	return func(c *Ctx) error {
		if c.bodyOversize {
			return &BodyError{Err: &http.MaxBytesError{Limit: c.bodyLimit}}
		}
		err := next(c)
		if c.sse != nil {
			// The stream ends before the middleware that wraps its writer
			// (compress, ETag) finishes and recycles it.
			c.endSSE()
		}
		return err
	}
}

// bodyReader is the request body as handlers read it. It enforces the limit
// (past it, Read fails with *http.MaxBytesError, as http.MaxBytesReader's,
// and the response asks the client to close), returns read errors as
// *BodyError, and, paced, gives the connection a read deadline that starts
// at the body read timeout and grows by a second for every rate bytes read,
// so that a steady upload of any length passes and a trickle (a slow-body
// attack) is cut off. At the end of the body the deadline is lifted, so that
// the handler may take its time afterwards; after any other error it stays,
// so that net/http's draining of an unread body fails as fast and the
// connection closes.
type bodyReader struct {
	src    io.ReadCloser
	w      http.ResponseWriter // the server's writer
	limit  int64               // 0: none
	remain int64               // bytes left under the limit
	err    error               // sticky: the limit was passed
	eof    bool
	http1  bool // HTTP/1.x: ask the client to close past the limit (see closeHTTP1)

	paced   bool
	rc      http.ResponseController
	start   time.Time
	timeout time.Duration
	rate    int64
	read    int64
}

// pace arms the deadline; a writer that cannot set deadlines (a test
// recorder) leaves the body unpaced.
func (b *bodyReader) pace(timeout time.Duration, rate int64) {
	b.rc = *http.NewResponseController(b.w)
	b.start = time.Now()
	if b.rc.SetReadDeadline(b.start.Add(timeout)) != nil {
		return
	}
	b.paced, b.timeout, b.rate = true, timeout, max(rate, 1)
}

// fail makes every further Read fail with the limit's error, and asks the
// client to close the connection, as net/http does for http.MaxBytesReader.
func (b *bodyReader) fail() {
	b.err = &BodyError{Err: &http.MaxBytesError{Limit: b.limit}}
	if b.http1 {
		b.w.Header()["Connection"] = connectionClose
	}
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.limit > 0 && int64(len(p)) > b.remain {
		p = p[:b.remain+1] // one byte more tells a body at the limit from one past it
	}
	n, err := b.src.Read(p)
	if b.limit > 0 {
		if int64(n) > b.remain {
			n = int(b.remain)
			b.remain = 0
			b.fail()
			return n, b.err
		}
		b.remain -= int64(n)
	}
	switch {
	case err == io.EOF:
		b.eof = true
		if b.paced {
			// The body is in: lift the deadline, so that net/http's
			// background read (which watches for the client going away)
			// cannot time out and cancel the request's context while the
			// handler works.
			_ = b.rc.SetReadDeadline(time.Time{})
		}
		return n, err
	case err != nil:
		// Keep the deadline: see the type's comment.
		return n, &BodyError{Err: err}
	case n > 0 && b.paced:
		b.read += int64(n)
		_ = b.rc.SetReadDeadline(b.deadline())
	}
	return n, err
}

// Close closes the underlying body.
func (b *bodyReader) Close() error { return b.src.Close() }

// hasBody reports whether the request declares a body (a length, or chunked).
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}

// unreadBodyGrace is how long a client has, after the answer, to finish
// sending a body that nobody will read.
const unreadBodyGrace = time.Second

// cutUnreadBody bounds the reading of a body that nobody will read: after a
// fallback answer (404, 405, OPTIONS, redirect, probe) or a 413, net/http
// would otherwise discard up to 256 KiB of it, at whatever pace the client
// sends, before it closes the connection. The response carries "Connection:
// close" (set before it was written); the discard may take unreadBodyGrace
// more, so that an honest client that is still sending finishes and reads
// the answer instead of meeting a reset, and a trickle is cut a second after
// its answer.
func cutUnreadBody(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(unreadBodyGrace))
}

// cut gives the rest of a paced body at most unreadBodyGrace more, or what
// its pacing still allows if that is less.
func (b *bodyReader) cut() {
	dl := time.Now().Add(unreadBodyGrace)
	if paced := b.deadline(); paced.Before(dl) {
		dl = paced
	}
	_ = b.rc.SetReadDeadline(dl)
}

// deadline is the read deadline the pacing has earned so far.
func (b *bodyReader) deadline() time.Time {
	earned := time.Duration(b.read/b.rate)*time.Second + time.Duration(b.read%b.rate)*time.Second/time.Duration(b.rate)
	return b.start.Add(b.timeout + earned)
}
