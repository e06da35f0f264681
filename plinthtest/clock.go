package plinthtest

import (
	"sync"
	"time"
)

// Clock is a fake clock for the App's time-based parts, which a test
// advances instead of sleeping. Pass its Now where a part takes a clock:
// web.SessionsConfig.Clock (sessions' idle timeout and lifetime),
// web.MemoryStoreConfig.Clock (the memory store's expiry),
// middleware.RateLimiterConfig.Clock (token buckets),
// web.AuthConfig.Clock (the sign-in throttle). Those are config fields, so
// the fake costs the request path nothing: production passes nil and reads
// the wall clock. The readiness cache (App.ReadinessCheck, answered by the
// server loop, which an in-process client does not go through) and the
// handler timeout read the wall clock and take no fake. It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock at start; a zero start means the current time
// (so that a part left on the wall clock, a session store given none, agrees
// with it until the test advances it: give every part of the flow the
// fake).
func NewClock(start time.Time) *Clock {
	if start.IsZero() {
		start = time.Now()
	}
	return &Clock{now: start}
}

// Now returns the clock's time. Pass the method value, clk.Now, as a
// part's Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (a negative d moves it back) and
// returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}
