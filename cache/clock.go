package cache

import (
	"sync/atomic"
	"time"
)

// clock is a coarse clock: one goroutine reads the time every resolution
// and readers load it atomically. On a virtualized clock a time.Now costs
// about as much as a whole cache hit, a coarse read an atomic load
// (BenchmarkCacheClock in bench/services, BENCHMARKS.md "Cache"). Its readings are nanoseconds since start
// (monotonic, not wall time).
type clock struct {
	start time.Time
	now   atomic.Int64
	stop  chan struct{}

	closed atomic.Bool
}

func newClock(resolution time.Duration, tick func(now int64)) *clock {
	c := &clock{start: time.Now(), stop: make(chan struct{})}
	go c.run(resolution, tick)
	return c
}

func (c *clock) run(resolution time.Duration, tick func(now int64)) {
	t := time.NewTicker(resolution)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			now := int64(time.Since(c.start))
			c.now.Store(now)
			if tick != nil {
				tick(now)
			}
		}
	}
}

// read returns the time of the last tick, in nanoseconds since start.
func (c *clock) read() int64 { return c.now.Load() }

// expiry returns the reading at which an entry written now with ttl expires;
// 0 means never. It reads the exact time: writes are the rare path.
func (c *clock) expiry(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return int64(time.Since(c.start)) + int64(ttl)
}
