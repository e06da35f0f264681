package redisstore

// RateLimitStore keeps the rate limiter's token buckets in Redis, so that
// the instances of a service behind a load balancer share one limit per key
// instead of each counting on its own:
//
//	rl := middleware.NewRateLimiter(middleware.RateLimiterConfig{
//		Limit: middleware.Limit{Rate: 10, Burst: 20},
//		Store: redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb}),
//	})
//
// The bucket is kept as GCRA's single timestamp per key, updated by one Lua
// script: one round trip per request, atomic per key across every instance
// sharing the Redis. docs/middleware.md, "Redis store", is the guide.

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/middleware"
)

// DefaultRateLimitPrefix is the prefix of the RateLimitStore's keys when RateLimitStoreConfig.Prefix is "".
const DefaultRateLimitPrefix = "plinth:rl:"

// DefaultRateLimitTimeout bounds a Take when RateLimitStoreConfig.Timeout is 0.
const DefaultRateLimitTimeout = 100 * time.Millisecond

// RateLimitStoreConfig configures NewRateLimitStore. Only Client is required; every other field's zero
// value is the default.
type RateLimitStoreConfig struct {
	// Client is the Redis client: a *redis.Client, *redis.ClusterClient,
	// *redis.Ring or any other redis.UniversalClient. Required. The RateLimitStore
	// neither configures nor closes it.
	Client redis.UniversalClient

	// Prefix starts every key the RateLimitStore writes; "" means DefaultRateLimitPrefix,
	// "plinth:rl:". A bucket's key is Prefix, the Limit's Name in double
	// quotes (a Name cannot contain one, so keys of different policies never
	// collide), a colon and the limiter's key: plinth:rl:"default":192.0.2.1.
	// Each key is one string (the bucket's full-again time) expiring when its
	// bucket is full again, so idle clients cost nothing; the key space is
	// bounded by the clients active within one refill window.
	Prefix string

	// Timeout bounds each Take, as a deadline on its context: 0 means
	// DefaultRateLimitTimeout (100 ms), a negative value none of the RateLimitStore's own (the
	// request's context and the client's settings still apply). A Take that
	// runs out of time returns an error, and the limiter fails open or closed
	// as configured: a slow Redis must not make every request slow.
	//
	// go-redis applies a context deadline to the socket reads and writes only
	// when the client's Options.ContextTimeoutEnabled is true; otherwise the
	// deadline bounds waiting for a pooled connection, dialling and retries,
	// but a connection that hangs mid-command is bounded by the client's
	// ReadTimeout (go-redis's default: seconds). Set ContextTimeoutEnabled:
	// true on the client for Timeout to bound every call.
	//
	// With go-redis's other defaults, a Redis that is down costs each request
	// the whole Timeout: the client retries the refused dial (DialerRetries,
	// 5, 100 ms apart) and the command (MaxRetries, 3) until the deadline.
	// DialerRetries: 1 and MaxRetries: -1 make it fail in well under a
	// millisecond instead (measured against a closed port), and spare a
	// retried script, whose first reply was lost, from taking a second token.
	Timeout time.Duration
}

// RateLimitStore is a middleware.RateLimitStore in Redis. Make one with NewRateLimitStore; it is safe for
// concurrent use, and any number of limiters, in any number of processes,
// may share one Redis: Take is one Lua script, so it is atomic per key, and
// so is Refund (middleware.Refunder).
type RateLimitStore struct {
	client  redis.UniversalClient
	prefix  string
	timeout time.Duration
}

var (
	_ middleware.RateLimitStore = (*RateLimitStore)(nil)
	_ middleware.Refunder       = (*RateLimitStore)(nil)
)

// NewRateLimitStore returns a RateLimitStore using cfg.Client. It panics if cfg.Client is nil.
// It does not contact Redis: the script is loaded by the first Take (EVALSHA,
// falling back to EVAL when the server does not have it cached, as after a
// restart).
func NewRateLimitStore(cfg RateLimitStoreConfig) *RateLimitStore {
	if cfg.Client == nil {
		panic("redisstore: RateLimitStoreConfig.Client is required")
	}
	s := &RateLimitStore{client: cfg.Client, prefix: cfg.Prefix, timeout: cfg.Timeout}
	if s.prefix == "" {
		s.prefix = DefaultRateLimitPrefix
	}
	if s.timeout == 0 {
		s.timeout = DefaultRateLimitTimeout
	}
	return s
}

// Take implements middleware.Store: it takes a token from key's bucket under
// limit at now, with the same results as middleware.MemoryRateLimitStore given the
// same sequence of calls (TestSameResultsAsMemoryRateLimitStore).
//
// Cost: one round trip to Redis (EVALSHA of a script that does one GET and,
// when the request is allowed, one SET with PX), plus the key's string and
// go-redis's allocations for the command; BenchmarkTake measures it against a
// local Redis. A refused request writes nothing.
//
// now is the limiter's clock, not Redis's (the script does not call TIME):
// the RateLimitStore interface passes it so that stores need no clock and tests can
// move time, and the bucket is then the same whichever Redis node or replica
// serves it. Instances sharing a Redis should have their clocks synchronized
// (NTP): a skew of d between two instances shifts the buckets they share by
// d, at worst d's worth of tokens early or late. The key's expiry is relative
// (PX, the time until the bucket is full), so Redis's own clock only has to
// run at the right speed.
//
// The time is nanoseconds since 1970, as MemoryRateLimitStore keeps it; Redis's Lua
// numbers are doubles, exact only to 2^53, and 1970's nanoseconds today are
// about 2^61. So now is passed as seconds and nanoseconds, the stored time is
// split the same way, and the script computes with differences from now,
// which are exact to the nanosecond while they stay under 2^53 ns (104 days).
// tat - now is at most the time to refill the whole bucket, Burst times the
// interval (plus however far a clock steps back), so every Limit whose refill
// window is below 104 days gets the same Results as MemoryRateLimitStore; a longer one
// is rounded, by a few microseconds at most. A now before 1970 is an error.
func (s *RateLimitStore) Take(ctx context.Context, key string, now time.Time, limit middleware.Limit) (middleware.Result, error) {
	sec, nsec := now.Unix(), now.Nanosecond()
	if sec < 0 {
		return middleware.Result{}, fmt.Errorf("redisstore: time %v is before 1970", now)
	}
	interval := int64(limit.Interval())
	window := int64(limit.Burst) * interval
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	v, err := gcraScript.Run(ctx, s.client, []string{s.key(limit.Name, key)}, sec, nsec, interval, window).Int64Slice()
	if err != nil {
		return middleware.Result{}, fmt.Errorf("redisstore: %w", err)
	}
	if len(v) != 4 {
		return middleware.Result{}, fmt.Errorf("redisstore: the script returned %d values, want 4", len(v))
	}
	return middleware.Result{
		Allowed:    v[0] == 1,
		Remaining:  int(v[1]),
		RetryAfter: time.Duration(v[2]),
		Reset:      time.Duration(v[3]),
	}, nil
}

// Refund implements middleware.Refunder: it gives back a token Take took
// from key's bucket under limit, in one script as atomic as Take's (one
// round trip, bounded by Timeout): the bucket's time moves one interval
// earlier, and the key is deleted when that makes the bucket full. web's
// sign-in Throttle calls it for successful sign-ins, which it counted before
// their password was checked.
func (s *RateLimitStore) Refund(ctx context.Context, key string, now time.Time, limit middleware.Limit) error {
	sec, nsec := now.Unix(), now.Nanosecond()
	if sec < 0 {
		return fmt.Errorf("redisstore: time %v is before 1970", now)
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	if err := refundScript.Run(ctx, s.client, []string{s.key(limit.Name, key)}, sec, nsec, int64(limit.Interval())).Err(); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return nil
}

// key returns the Redis key of the bucket of key under the policy name.
func (s *RateLimitStore) key(name, key string) string {
	return s.prefix + `"` + name + `":` + key
}
