package plinth

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// guardBody applies the route's body limit and the server's body read pacing
// before the handler runs. It reports false when it has answered the request
// itself: a 413 problem for a declared length over the limit, sent with
// "Connection: close" so that the body is never read.
//
// The handler gets a shallow copy of the request carrying the wrapped body:
// net/http decides, from the body of its own request, whether an unread
// body is drained or the connection closed, and must keep seeing its own.
// Cost, for requests with a body only: the copy, the wrappers (up to 3
// allocations) and a read deadline update per Read while pacing.
func (t *table) guardBody(c *Ctx, rt *route) bool {
	r := c.req
	limit := rt.maxBody
	if limit == 0 {
		limit = t.app.defaultMaxBody.Load()
	}
	timeout := time.Duration(t.app.bodyReadTimeout.Load())
	if limit <= 0 && timeout <= 0 {
		return true
	}
	if limit > 0 && r.ContentLength > limit {
		c.Header()["Connection"] = connectionClose
		c.writeProblem(&Problem{Status: http.StatusRequestEntityTooLarge,
			Detail: "request body larger than the limit of " + strconv.FormatInt(limit, 10) + " bytes"})
		return false
	}
	body := r.Body
	if timeout > 0 {
		body = newPacedBody(c.rw.w, body, timeout, t.app.minBodyRate.Load())
	}
	if limit > 0 {
		// The server's own writer, so that it learns to close the connection.
		body = http.MaxBytesReader(c.rw.w, body, limit)
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = body
	c.req = r2
	return true
}

// pacedBody gives a request body a read deadline that starts at timeout and
// grows by a second for every rate bytes read, so that a steady upload of
// any length passes and a trickle (a slow-body attack) is cut off. At the end
// of the body the deadline is lifted, so that the handler may take its time
// afterwards; after any other error it stays, so that net/http's draining of
// an unread body fails as fast and the connection closes.
type pacedBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	start   time.Time
	timeout time.Duration
	rate    int64
	read    int64
}

func newPacedBody(w http.ResponseWriter, body io.ReadCloser, timeout time.Duration, rate int64) io.ReadCloser {
	rc := http.NewResponseController(w)
	start := time.Now()
	if rc.SetReadDeadline(start.Add(timeout)) != nil {
		return body // this writer cannot set deadlines (a test recorder, say)
	}
	return &pacedBody{ReadCloser: body, rc: rc, start: start, timeout: timeout, rate: max(rate, 1)}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		// The body is in: lift the deadline, so that net/http's background
		// read (which watches for the client going away) cannot time out
		// and cancel the request's context while the handler works.
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		// Keep the deadline: see the type's comment.
	case n > 0:
		b.read += int64(n)
		earned := time.Duration(b.read/b.rate)*time.Second + time.Duration(b.read%b.rate)*time.Second/time.Duration(b.rate)
		_ = b.rc.SetReadDeadline(b.start.Add(b.timeout + earned))
	}
	return n, err
}
