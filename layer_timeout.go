package plinth

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth/internal/cancelctx"
)

// DefaultHandlerTimeout is the default layer's handler timeout.
const DefaultHandlerTimeout = 30 * time.Second

// The handler timeout of New's default layer. At the deadline the handler's
// context is cancelled and its further writes fail with
// http.ErrHandlerTimeout; when the handler returns, a response that had not
// started becomes a 503 problem, and one that had started is aborted (the
// connection is closed) rather than left looking complete. No goroutine is
// started per request and nothing is buffered: the deadline is a timer that
// each pooled Ctx keeps and re-arms, and the response is only ever written by
// the handler's goroutine, so streaming and Flush work as without it.
//
// Cost: the request's own context, and the request copy that carries it
// (one allocation) only when the handler asks for the request (Ctx.Request,
// a plain http.Handler, standard middleware): Ctx.Context returns the
// deadline context without it. The context is an allocation only when the
// handler (or middleware) took it, through Ctx.Context, Ctx.Request or an
// SSE stream: one nobody saw is reused by the Ctx's next request. Contexts a handler derives from
// it (context.WithTimeout, WithCancel, AfterFunc) cost no goroutine: it
// implements AfterFunc, which the context package uses instead of a
// goroutine waiting on Done (TestTimeoutDerivedContextsStartNoGoroutine). A
// context derived through a wrapper that hides AfterFunc (context.WithValue,
// then WithCancel) still costs the context package's goroutine.

// timeoutState is the per-Ctx part of the timeout: the reusable timer and
// the context of the request in flight, guarded by mu against the timer.
//
// The timer is re-armed lazily: a request leaves it alone when it already
// fires no later than the request's deadline (the previous request's
// deadline, usually), and a firing that comes before the current deadline
// re-arms it for the rest. So a stream of quick requests on one Ctx resets
// the timer about once per timeout, not once per request.
type timeoutState struct {
	mu    sync.Mutex
	timer *time.Timer
	fires when         // when the armed timer fires
	armed bool         // the timer is armed (for fires)
	cur   *deadlineCtx // the request in flight, nil between requests
	// spare is a deadline context no one but the timeout layer saw (not
	// handed out by Ctx.Context or Ctx.Request), kept for the next request:
	// only a context that was handed out needs to stay valid afterwards.
	spare *deadlineCtx
}

// runWithTimeout runs next with a deadline of d.
func (c *Ctx) runWithTimeout(next HandlerFunc, d time.Duration, now time.Time) (err error) {
	r0, dl0, reqDL0, inCtx0 := c.req, c.dl, c.reqDL, c.inCtx
	st := &c.timeout
	parent := c.Context()
	dc := st.spare // the previous request's context, when nobody saw it
	if dc != nil {
		st.spare = nil
		dc.Reset(parent)
		dc.deadline = when{now, d}
	} else {
		dc = &deadlineCtx{deadline: when{now, d}}
		dc.Reset(parent)
	}
	st.mu.Lock()
	prev := st.cur // an enclosing timeout (a Timeout layer inside New's)
	dc.outer = prev
	if prev != nil && !prev.lifted.Load() && dc.deadline.after(prev.deadline) {
		dc.deadline = prev.deadline
	}
	st.cur = dc
	if c.rw.timedOut.Load() {
		// Under st.mu, as onDeadline's Store(true): a load first spares
		// the common request a locked exchange.
		c.rw.timedOut.Store(false)
	}
	switch {
	case st.timer == nil:
		st.timer = time.AfterFunc(d, c.onDeadline)
		st.fires, st.armed = dc.deadline, true
	case !st.armed || st.fires.after(dc.deadline):
		st.timer.Reset(d)
		st.fires, st.armed = dc.deadline, true
	}
	st.mu.Unlock()
	// The request carrying dc is made only if the handler asks for it
	// (Ctx.Request, a plain handler, standard middleware): Ctx.Context
	// returns dc meanwhile.
	c.dl, c.reqDL = dc, false
	defer func() {
		st.mu.Lock()
		st.cur = prev // the timer stays armed; a firing then finds the enclosing request or none
		st.mu.Unlock()
		if dc.seen.Load() {
			dc.cancel(context.Canceled) // as a WithTimeout's cancel would
		} else {
			// Nothing outside this function ever had dc, and the timer no
			// longer finds it: the next request reuses it.
			dc.Reset(context.Background()) // drops the request's context
			dc.outer = nil
			dc.lifted.Store(false)
			st.spare = dc
		}
		c.req, c.dl, c.reqDL, c.inCtx = r0, dl0, reqDL0, inCtx0
		if !c.rw.timedOut.Load() {
			return
		}
		c.logger().LogAttrs(c.req.Context(), slog.LevelWarn, "plinth: handler timed out",
			slog.String("method", c.req.Method), slog.String("pattern", c.Pattern()),
			slog.String("path", c.req.URL.Path), slog.String("request_id", c.requestID),
			slog.Duration("timeout", d), slog.Bool("response_started", c.rw.status != 0))
		if c.rw.status != 0 {
			// The response started before the deadline: end the connection
			// instead of letting a truncated response look complete. The
			// recovery layer passes this panic through; net/http closes.
			panic(http.ErrAbortHandler)
		}
		c.rw.timedOut.Store(false) // the 503 itself must go through
		closeHTTP1(c.Header(), c.req)
		c.writeProblem(&Problem{Status: http.StatusServiceUnavailable,
			Detail: "the handler did not finish within " + d.String()})
		err = nil
	}()
	return next(c)
}

// LiftDeadline lifts the handler timeout for the rest of the current
// request, for a handler that lives as long as its client: a server-sent
// event stream (Ctx.SSE calls it), a hijacked WebSocket. The context
// Ctx.Context returns then has no deadline (Deadline reports the one of the
// server's context, usually none) but still ends when the client goes away
// or the request ends; writes are no longer refused at the deadline, and
// the timeout layer neither answers 503 nor aborts the connection. Every
// enclosing timeout is lifted (New's and a Timeout layer's alike); a
// Timeout layer entered afterwards bounds what it wraps as usual.
//
// It also stops the pacing of the request body (Config.BodyReadTimeout): the
// connection's read deadline that the pacing set is cleared, so that the
// connection is not cut by it later (a hijacked connection keeps the read
// deadline it had). Call it before Hijack: after, the connection is the
// handler's, deadlines included. The body limit stays in force.
//
// It is idempotent, costs no allocation, and is safe without any timeout
// layer (it then only clears the body pacing). It cannot revive a request
// whose deadline already passed (TimedOut reports true): its context stays
// cancelled and the timeout layer answers as usual.
func (c *Ctx) LiftDeadline() {
	st := &c.timeout
	st.mu.Lock()
	if st.cur != nil && !c.rw.timedOut.Load() {
		for d := st.cur; d != nil; d = d.outer {
			d.lifted.Store(true)
		}
		if st.timer != nil && st.armed {
			st.timer.Stop()
			st.armed = false
		}
	}
	st.mu.Unlock()
	if b := c.body; b != nil && b.paced {
		b.paced = false
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}

// onDeadline is the timer's callback. Between requests it finds none and
// disarms; before the current request's deadline (it was armed for an
// earlier one) it re-arms for the rest.
func (c *Ctx) onDeadline() {
	st := &c.timeout
	st.mu.Lock()
	defer st.mu.Unlock()
	st.armed = false
	if st.cur == nil || st.cur.lifted.Load() {
		return
	}
	if left := time.Until(st.cur.deadline.at()); left > 0 {
		st.timer.Reset(left)
		st.fires, st.armed = st.cur.deadline, true
		return
	}
	c.rw.timedOut.Store(true)
	st.cur.cancel(context.DeadlineExceeded)
}

// deadlineCtx is a request's context under the timeout: its parent's values
// and cancellation, plus the deadline. The cancellation is a
// cancelctx.Ctx: its done channel (and the hook that forwards the parent's
// cancellation) is made on the first call to Done or AfterFunc, so handlers
// that never wait on it pay for neither, and a context a handler derives
// from it (context.WithTimeout, WithCancel, AfterFunc) registers a callback
// instead of starting a goroutine that waits on Done. It is a heap object of
// its own, safe to keep after the request.
type deadlineCtx struct {
	cancelctx.Ctx
	deadline when
	outer    *deadlineCtx // the enclosing timeout's context, nil for none
	lifted   atomic.Bool  // LiftDeadline: no deadline of its own any more
	// seen: the context was handed out (Ctx.Context, the request copy that
	// carries it, an SSE stream, an inner timeout's parent), so it is
	// cancelled when the request ends and never reused. Set by the request's
	// goroutine, atomic for a goroutine that calls Ctx.Context meanwhile.
	seen atomic.Bool
}

func (d *deadlineCtx) Deadline() (time.Time, bool) {
	if d.lifted.Load() {
		return d.Parent().Deadline()
	}
	at := d.deadline.at()
	if pd, ok := d.Parent().Deadline(); ok && pd.Before(at) {
		return pd, true
	}
	return at, true
}

// when is a deadline as the start and the duration it was set with, added
// up only when the time itself is asked for: the timeout layer compares
// deadlines of the same duration on every request, and comparing their
// starts costs a fraction of time.Time.Add.
type when struct {
	start time.Time
	d     time.Duration
}

func (w when) at() time.Time { return w.start.Add(w.d) }

// after reports whether w is later than o.
func (w when) after(o when) bool {
	if w.d == o.d {
		return w.start.After(o.start)
	}
	return w.at().After(o.at())
}

// cancel ends the context with err, once (see cancelctx.Ctx.Cancel).
func (d *deadlineCtx) cancel(err error) { d.Cancel(err) }

// handOut records that d left the timeout layer's hands (see seen).
func (d *deadlineCtx) handOut() {
	if !d.seen.Load() {
		d.seen.Store(true)
	}
}
