package metrics

import (
	"net/http"
	"time"

	"github.com/plinth-go/plinth"
)

// middleware measures one request. It runs inside New's default layer, so
// it renders an error returned by the rest of the chain itself
// (Ctx.WriteError) to see the final status, and returns nil; a panic passes
// through to the recovery layer, counted as a 500.
//
// Cost: a map lookup of the pattern (no key is built), two clock readings,
// atomic loads of the pre-made series, a gauge increment and decrement and
// three histogram observations. It allocates nothing: the method and
// Content-Length are read through Ctx.RawRequest, which makes no copy.
func (m *Metrics) middleware(next plinth.HandlerFunc) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		rt := m.routeOf(m.load(), c.Pattern())
		if rt.skip {
			return next(c)
		}
		r := c.RawRequest()
		mi := methodIndex(r.Method)
		active := m.gauge(rt, mi)
		active.Inc()
		start := time.Now()
		done := false
		defer func() {
			if !done {
				// A panic on its way to the recovery layer, which answers
				// 500 or, if the response had started, aborts it.
				m.observe(rt, mi, http.StatusInternalServerError, r.ContentLength, c.BytesWritten(), start)
				active.Dec()
			}
		}()
		if err := next(c); err != nil {
			c.WriteError(err)
		}
		done = true
		status := c.Status()
		switch {
		case c.TimedOut():
			// The handler timeout fired: the timeout layer, outside, answers
			// 503 or aborts the response once the chain has returned.
			status = http.StatusServiceUnavailable
		case status == 0:
			status = http.StatusOK // what net/http sends for a silent handler
		}
		m.observe(rt, mi, status, r.ContentLength, c.BytesWritten(), start)
		active.Dec()
		return nil
	}
}

// observe records one finished request.
func (m *Metrics) observe(rt *route, mi, status int, reqBytes, respBytes int64, start time.Time) {
	o := m.observers(rt, mi, classIndex(status))
	o.duration.Observe(time.Since(start).Seconds())
	if reqBytes >= 0 {
		o.reqSize.Observe(float64(reqBytes))
	}
	o.respSize.Observe(float64(respBytes))
}
