package engine

import (
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/plinth-go/plinth/internal/cancelctx"
)

// exchange is everything of one request that its handler can reach and
// keep: the *http.Request, its URL, its context, its Body, and the backing
// array of its header values. It is allocated for every request (one
// allocation, with the header map and the head's string beside it) and
// never reused, so that a goroutine that reads the request after its
// handler returned (a logger, an auditor, http.TimeoutHandler's handler)
// sees that request and nothing else, as on net/http. What the handler
// never sees (the read buffer, the response writer's buffers, the parser's
// notes) stays with the connection and is reused.
type exchange struct {
	req  http.Request
	url  url.URL
	ctx  cancelctx.Ctx // cancelled when the handler returns, or when the connection fails
	body reqBody
	vals [16]string // the header's values, one a field, for the first 16 fields
}

// newExchange returns a fresh exchange for the next request of c, its
// context under the connection's, its header map sized for the head's
// header lines.
func newExchange(c *conn, lines int) *exchange {
	x := new(exchange)
	x.ctx.Reset(c.ctx)
	x.req = *(&http.Request{}).WithContext(&x.ctx) // the copy WithContext makes stays on the stack
	x.req.Header = make(http.Header, lines)
	x.req.URL = &x.url
	x.req.RemoteAddr = c.remote
	x.body.b = &c.body
	return x
}

// end is called when the handler has returned: the request's context is
// cancelled, as net/http cancels it, and its Body is cut off from the
// connection, whose next request it would otherwise read.
func (x *exchange) end() {
	x.ctx.Cancel(context.Canceled)
	if x.req.Body == &x.body { // a request without a body has http.NoBody
		x.body.detach()
	}
}

// reqBody is the Body of one request: it reads the connection's body
// (see body) until the handler returns, and fails after that with
// http.ErrBodyReadAfterClose, as a net/http body the server has closed
// does. Its lock, like net/http's body's, makes reads from several
// goroutines safe; the connection takes it to detach the body, so a read
// in flight when the handler returns ends before the connection goes on.
type reqBody struct {
	mu sync.Mutex
	b  *body // nil once the handler returned
}

func (rb *reqBody) Read(p []byte) (int, error) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if rb.b == nil {
		return 0, bodyAfterReturn()
	}
	return rb.b.Read(p)
}

func (rb *reqBody) Close() error {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if rb.b == nil {
		return nil
	}
	return rb.b.Close()
}

// detach cuts the body off from the connection (see reqBody).
func (rb *reqBody) detach() {
	rb.mu.Lock()
	if rb.b != nil {
		rb.b.req = nil // a trailer read from now on is the connection's business
		rb.b = nil
	}
	rb.mu.Unlock()
}
