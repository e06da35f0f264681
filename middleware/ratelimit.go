package middleware

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
)

// RateLimiterConfig configures NewRateLimiter. Only Limit is required (its
// Rate must be at least 1); every other field's zero value is the default.
type RateLimiterConfig struct {
	// Limit is the token-bucket policy applied to each key; see Limit for
	// its fields' defaults and bounds.
	Limit Limit

	// Key returns the bucket key of a request. Nil means the client's
	// address, c.ClientIP() (the peer, or the address a trusted proxy
	// reports: see App.TrustedProxies); with the MemoryRateLimitStore it is used as
	// is, without formatting it. Requests whose client address is unknown
	// (a RemoteAddr that is not an IP address) share one bucket. A Key
	// that returns "" exempts the request; one that returns an error stops
	// it with that error (return a *plinth.Problem to choose the status,
	// say 401 for a missing API key; other errors become a 500).
	Key func(c *plinth.Ctx) (string, error)

	// IPv6PrefixLen is the length of the prefix an IPv6 client address is
	// keyed by when Key is nil. 0 means 64: a subscriber is usually given
	// a whole /64, so keying single addresses would hand one client 2^64
	// buckets. 128 keys single addresses; a value outside 0 to 128 is
	// invalid. IPv4 addresses are keyed whole.
	IPv6PrefixLen int

	// Store holds the buckets. Nil means a MemoryRateLimitStore of its own with
	// DefaultMemoryRateLimitStoreMaxKeys (100 000) keys.
	Store RateLimitStore

	// FailClosed refuses requests (503 problem, Retry-After: 1) when the
	// Store returns an error. The default, false, lets them through: the
	// limiter guards against abuse, and turning an outage of its store
	// (Redis, say) into an outage of the whole service is the worse
	// failure; the errors are counted (StoreErrors) and logged, at most
	// once a second.
	FailClosed bool

	// OmitHeaders stops the RateLimit-Policy and RateLimit headers. By
	// default they are on every response the limiter sees, refused or not.
	OmitHeaders bool

	// Logger receives store errors. Nil means slog.Default().
	Logger *slog.Logger

	// Clock returns the current time. Nil means the wall clock read once at
	// NewRateLimiter plus the monotonic time elapsed since: one clock read per
	// request, and immune to steps of the wall clock. Tests inject a fake.
	Clock func() time.Time
}

// RateLimiter limits the request rate per key with a token bucket. Make one
// with NewRateLimiter; install its Middleware. It is safe for concurrent use; one limiter installed on several routes or groups
// counts their requests together.
type RateLimiter struct {
	limit       Limit
	key         func(*plinth.Ctx) (string, error)
	store       RateLimitStore
	mem         *MemoryRateLimitStore // set when the default key meets a MemoryRateLimitStore
	v6bits      int                   // IPv6 client addresses are keyed by this prefix
	failClosed  bool
	headers     bool
	log         *slog.Logger
	now         func() time.Time
	policy      []string                   // pre-rendered RateLimit-Policy
	window      int64                      // w: seconds to refill the whole bucket
	values      []atomic.Pointer[[]string] // RateLimit values by r*(window+1)+t, when they fit
	refused     []atomic.Pointer[[]string] // RateLimit values with r=0, by window-t (refusals)
	retryAfter  []atomic.Pointer[[]string] // Retry-After values by seconds
	limited     atomic.Uint64
	storeErrors atomic.Uint64
	lastLog     atomic.Int64 // Unix nanoseconds of the last store error logged
}

// maxHeaderCache bounds the table of RateLimit values a limiter renders once
// and keeps ((Burst+1) * (window+1) of them, kept only if they all fit; 8
// KiB of pointers).
const maxHeaderCache = 1024

// maxRefusalCache bounds the tables of the values refusals use, one entry
// per second of the token interval: RateLimit with r=0 (t is then within one
// interval of the window) and Retry-After. 32 KiB of pointers each covers
// intervals up to an hour and more.
const maxRefusalCache = 4096

var storeDownRetryAfter = []string{"1"}

// Validate reports the first problem of c that makes NewRateLimiter panic,
// as an error naming the field and the reason, or nil: a Limit whose Rate
// is below 1, whose Per or Burst is negative, whose Name is not a valid
// header string or whose Burst times its interval overflows, or an
// IPv6PrefixLen outside 0 to 128.
func (c RateLimiterConfig) Validate() error {
	if _, err := c.Limit.normalize(); err != nil {
		return err
	}
	if c.IPv6PrefixLen < 0 || c.IPv6PrefixLen > 128 {
		return errors.New("middleware: RateLimiterConfig.IPv6PrefixLen must be between 0 and 128, got " + strconv.Itoa(c.IPv6PrefixLen))
	}
	return nil
}

// NewRateLimiter returns a limiter applying cfg.Limit, a token bucket, to each
// key (by default the client's address). A request finding its bucket empty
// gets a 429 problem with Retry-After (whole seconds until the next token,
// at least 1).
//
// Every response it sees carries the quota headers of the IETF draft
// "RateLimit header fields for HTTP", following
// draft-ietf-httpapi-ratelimit-headers-09 (the current drafts keep its
// syntax: a Structured Fields String naming the policy, with parameters):
//
//	RateLimit-Policy: "default";q=<Burst>;w=<seconds to refill a whole bucket>
//	RateLimit: "default";r=<requests left now>;t=<seconds until the bucket is full>
//
// (q is the bucket's capacity and w the time its full refill takes, the
// closest the draft's quota-per-window model comes to a token bucket.)
// OmitHeaders switches them off. It panics if cfg is invalid, with the
// message RateLimiterConfig.Validate returns.
//
// Cost, with the default key and MemoryRateLimitStore, for a key seen before: one
// clock read, one shard lock and map update, and the headers from
// pre-rendered values: 0 allocations (TestRateLimiterAllocs; a key's first
// request allocates its entry). A refusal allocates its problem only.
// Measured figures, with the command that produces them:
// docs/middleware.md, "Rate limit".
func NewRateLimiter(cfg RateLimiterConfig) *RateLimiter {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	lim, _ := cfg.Limit.normalize()
	l := &RateLimiter{
		limit:      lim,
		key:        cfg.Key,
		store:      cfg.Store,
		failClosed: cfg.FailClosed,
		headers:    !cfg.OmitHeaders,
		log:        cfg.Logger,
		now:        cfg.Clock,
		v6bits:     cfg.IPv6PrefixLen,
	}
	if l.v6bits == 0 {
		l.v6bits = 64
	}
	if l.store == nil {
		l.store = NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})
	}
	if m, ok := l.store.(*MemoryRateLimitStore); ok && l.key == nil {
		l.mem = m
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	if l.now == nil {
		// time.Since reads only the monotonic clock, one clock read where
		// time.Now makes two, which showed in profiles on VMs with slow
		// clock reads (bench: BenchmarkLimits/ratelimit).
		start := time.Now()
		l.now = func() time.Time { return start.Add(time.Since(start)) }
	}
	l.window = ceilSeconds(time.Duration(lim.Burst) * lim.Interval())
	l.policy = []string{`"` + lim.Name + `";q=` + strconv.Itoa(lim.Burst) + ";w=" + strconv.FormatInt(l.window, 10)}
	if n := int64(lim.Burst+1) * (l.window + 1); n <= maxHeaderCache {
		l.values = make([]atomic.Pointer[[]string], n)
	}
	n := min(ceilSeconds(lim.Interval())+1, maxRefusalCache)
	l.refused = make([]atomic.Pointer[[]string], n)
	l.retryAfter = make([]atomic.Pointer[[]string], n)
	return l
}

// Middleware returns the native middleware enforcing the limit.
func (l *RateLimiter) Middleware() plinth.Middleware {
	return func(next plinth.HandlerFunc) plinth.HandlerFunc {
		return func(c *plinth.Ctx) error {
			var res Result
			if l.mem != nil {
				res = l.mem.takeAddr(l.clientKey(c), l.now(), l.limit)
			} else {
				var key string
				if l.key == nil {
					key = l.clientKey(c).String()
				} else {
					var err error
					if key, err = l.key(c); err != nil {
						return err
					}
					if key == "" {
						return next(c)
					}
				}
				var err error
				res, err = l.store.Take(c.Context(), key, l.now(), l.limit)
				if err != nil {
					return l.storeFailed(c, next, err)
				}
			}
			h := c.Header()
			if l.headers {
				h["Ratelimit-Policy"] = l.policy // canonical form of RateLimit-Policy
				h["Ratelimit"] = l.value(res)
			}
			if !res.Allowed {
				l.limited.Add(1)
				h["Retry-After"] = l.retryAfterValue(res.RetryAfter)
				return plinth.Error(http.StatusTooManyRequests, "rate limit exceeded; retry after the time in Retry-After")
			}
			return next(c)
		}
	}
}

// clientKey returns the client address, IPv6 ones cut to the prefix.
func (l *RateLimiter) clientKey(c *plinth.Ctx) netip.Addr {
	a := c.ClientIP()
	if a.Is6() && l.v6bits < 128 {
		if p, err := a.WithZone("").Prefix(l.v6bits); err == nil {
			return p.Addr()
		}
	}
	return a
}

// value returns the RateLimit header value for res, pre-rendered when it
// fits the cache.
func (l *RateLimiter) value(res Result) []string {
	r := int64(max(res.Remaining, 0))
	t := int64(0)
	if res.Reset > 0 {
		t = ceilSeconds(res.Reset)
	}
	var p *atomic.Pointer[[]string]
	switch {
	case l.values != nil && r <= int64(l.limit.Burst) && t <= l.window:
		p = &l.values[r*(l.window+1)+t]
	case r == 0 && t <= l.window && l.window-t < int64(len(l.refused)):
		p = &l.refused[l.window-t]
	default:
		return l.render(r, t)
	}
	return cached(p, func() []string { return l.render(r, t) })
}

// cached returns *p, rendering and storing it on first use. Two requests
// may both render it; either result is right.
func cached(p *atomic.Pointer[[]string], render func() []string) []string {
	if v := p.Load(); v != nil {
		return *v
	}
	v := render()
	p.Store(&v)
	return v
}

func (l *RateLimiter) render(r, t int64) []string {
	b := make([]byte, 0, len(l.limit.Name)+32)
	b = append(b, '"')
	b = append(b, l.limit.Name...)
	b = append(b, `";r=`...)
	b = strconv.AppendInt(b, r, 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, t, 10)
	return []string{string(b)}
}

func (l *RateLimiter) retryAfterValue(d time.Duration) []string {
	s := ceilSeconds(d)
	render := func() []string { return []string{strconv.FormatInt(s, 10)} }
	if s < int64(len(l.retryAfter)) {
		return cached(&l.retryAfter[s], render)
	}
	return render()
}

// storeFailed handles a RateLimitStore error: the request goes on (fail open) or is
// refused (fail closed).
func (l *RateLimiter) storeFailed(c *plinth.Ctx, next plinth.HandlerFunc, err error) error {
	l.storeErrors.Add(1)
	now := time.Now().UnixNano()
	if last := l.lastLog.Load(); now-last >= int64(time.Second) && l.lastLog.CompareAndSwap(last, now) {
		l.log.LogAttrs(c.Context(), slog.LevelError, "middleware: rate limit store failed",
			slog.Bool("fail_closed", l.failClosed), slog.Uint64("errors_total", l.storeErrors.Load()),
			slog.Any("error", err))
	}
	if l.failClosed {
		c.Header()["Retry-After"] = storeDownRetryAfter
		return plinth.Error(http.StatusServiceUnavailable, "rate limiting is unavailable; retry later")
	}
	return next(c)
}

// Limited returns how many requests have been refused with 429 since the
// limiter was made.
func (l *RateLimiter) Limited() uint64 { return l.limited.Load() }

// StoreErrors returns how many times the RateLimitStore has failed.
func (l *RateLimiter) StoreErrors() uint64 { return l.storeErrors.Load() }

// Limit returns the limiter's policy, defaults filled in.
func (l *RateLimiter) Limit() Limit { return l.limit }
