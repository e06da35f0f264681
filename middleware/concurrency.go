package middleware

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
)

// DefaultConcurrencyLimiterMaxWait is how long a request beyond the limit
// waits for a slot when ConcurrencyLimiterConfig.MaxWait is 0: long enough to ride out a burst that lasts a few fast
// handlers (an API's handlers typically take 1-50 ms), short enough that a
// client of an overloaded server hears 503 quickly instead of piling latency
// onto every queued request, and well below any client or proxy timeout.
const DefaultConcurrencyLimiterMaxWait = 100 * time.Millisecond

// ConcurrencyLimiterConfig configures NewConcurrencyLimiter. Its zero value
// is invalid (Max is required); with Max set, the other fields' zero values
// are the recommended setup.
type ConcurrencyLimiterConfig struct {
	// Max is the number of handlers allowed to run at once. It must be at
	// least 1; NewConcurrencyLimiter panics otherwise.
	Max int

	// MaxWait bounds how long a request that finds every slot taken waits
	// for one. 0 means DefaultConcurrencyLimiterMaxWait (100ms); a negative value
	// means no waiting: such a request is refused at once.
	MaxWait time.Duration

	// MaxWaiters bounds the queue of waiting requests; a request arriving
	// with the queue full is refused at once. 0 means Max: a full queue then
	// holds about one more round of work, so that with handlers of similar
	// length a waiter gets a slot within roughly one handler's duration,
	// and waiting longer than that is what MaxWait cuts. A negative value
	// means no queue (refuse at once).
	MaxWaiters int

	// RetryAfter is sent in the Retry-After header of a refused request,
	// rounded up to whole seconds. 0 means 1s: overload passes quickly, or
	// the client should spread out.
	RetryAfter time.Duration
}

// ConcurrencyLimiter bounds the number of requests in flight (load shedding).
// Make one with NewConcurrencyLimiter; install its Middleware. It is safe for concurrent use; one limiter shared by several routes or
// groups bounds them together.
type ConcurrencyLimiter struct {
	sem        chan struct{} // one token per running handler
	maxWait    time.Duration // <= 0: no waiting
	maxWaiters int64         // <= 0: no queue
	retryAfter []string      // pre-rendered Retry-After value
	waiting    atomic.Int64
	shed       atomic.Uint64
}

// Validate reports the problem of c that makes NewConcurrencyLimiter panic
// (Max below 1), as an error naming the field, or nil.
func (c ConcurrencyLimiterConfig) Validate() error {
	if c.Max < 1 {
		return errors.New("middleware: ConcurrencyLimiterConfig.Max must be at least 1, got " + strconv.Itoa(c.Max))
	}
	return nil
}

// NewConcurrencyLimiter returns a limiter that lets at most cfg.Max
// handlers run at once. A request that finds them all busy queues (at most
// cfg.MaxWaiters, default Max) for at most cfg.MaxWait (default 100ms); if no
// slot frees up in time, or the queue is full, it gets a 503 problem with
// Retry-After (default 1 s). A waiter whose request context ends (the client
// went away, a deadline) stops waiting and gets a 503 too, without having
// taken a slot. Slots are released in a defer, so a panicking handler does
// not leak one; the panic goes on to the recovery layer.
//
// Waiters are served in arrival order (they queue on a channel). Install it
// with app.Use(l.Middleware()) or on a group; its InFlight, Waiting and
// Shed methods feed metrics. It panics if cfg is invalid, with the message
// ConcurrencyLimiterConfig.Validate returns.
//
// Cost: with a free slot, one channel send and receive and a deferred call,
// 0 allocations (TestConcurrencyLimiterAllocs). Waiting allocates a timer; a
// refusal allocates its problem. Measured figures, with the command that
// produces them: docs/middleware.md, "Concurrency limit".
func NewConcurrencyLimiter(cfg ConcurrencyLimiterConfig) *ConcurrencyLimiter {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	l := &ConcurrencyLimiter{sem: make(chan struct{}, cfg.Max)}
	switch {
	case cfg.MaxWait == 0:
		l.maxWait = DefaultConcurrencyLimiterMaxWait
	case cfg.MaxWait > 0:
		l.maxWait = cfg.MaxWait
	}
	switch {
	case cfg.MaxWaiters == 0:
		l.maxWaiters = int64(cfg.Max)
	case cfg.MaxWaiters > 0:
		l.maxWaiters = int64(cfg.MaxWaiters)
	}
	ra := cfg.RetryAfter
	if ra <= 0 {
		ra = time.Second
	}
	l.retryAfter = []string{strconv.FormatInt(ceilSeconds(ra), 10)}
	return l
}

// Middleware returns the native middleware enforcing the limit.
func (l *ConcurrencyLimiter) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			select {
			case l.sem <- struct{}{}:
			default:
				if err := l.wait(c); err != nil {
					return err
				}
			}
			defer l.release()
			return next(c)
		}
	}
}

func (l *ConcurrencyLimiter) release() { <-l.sem }

// wait queues for a slot. It returns nil holding a slot, or the error to
// send.
func (l *ConcurrencyLimiter) wait(c *plinth.Ctx) error {
	if l.maxWait <= 0 || l.maxWaiters <= 0 {
		return l.refuse(c)
	}
	if l.waiting.Add(1) > l.maxWaiters {
		l.waiting.Add(-1)
		return l.refuse(c)
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.maxWait)
	defer t.Stop()
	select {
	case l.sem <- struct{}{}:
		return nil
	case <-t.C:
		return l.refuse(c)
	case <-c.Context().Done():
		// Most likely the client is gone and reads nothing; a deadline set
		// by an outer layer is the other cause, and 503 suits it too.
		c.Header()["Retry-After"] = l.retryAfter
		return plinth.Error(http.StatusServiceUnavailable, "the request ended while waiting for capacity")
	}
}

func (l *ConcurrencyLimiter) refuse(c *plinth.Ctx) error {
	l.shed.Add(1)
	c.Header()["Retry-After"] = l.retryAfter
	return plinth.Error(http.StatusServiceUnavailable, "the server is at capacity; retry later")
}

// InFlight returns the number of requests holding a slot now.
func (l *ConcurrencyLimiter) InFlight() int { return len(l.sem) }

// Waiting returns the number of requests queued for a slot now.
func (l *ConcurrencyLimiter) Waiting() int { return int(l.waiting.Load()) }

// Shed returns how many requests have been refused for lack of capacity
// (queue full or wait expired) since the limiter was made. Waiters whose
// request ended first are not counted.
func (l *ConcurrencyLimiter) Shed() uint64 { return l.shed.Load() }

// ceilSeconds returns d in whole seconds, rounded up, at least 1.
func ceilSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
