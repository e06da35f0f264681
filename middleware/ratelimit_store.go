package middleware

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"net/netip"
	"sync"
	"time"
)

// Limit is a token-bucket policy: a bucket of Burst tokens, refilled at Rate
// tokens per Per; each request takes one token and a request finding the
// bucket empty is refused. A client idle long enough can send Burst requests
// at once, and Rate per Per in the long run.
type Limit struct {
	// Name identifies the policy in the RateLimit and RateLimit-Policy
	// headers and keeps the buckets of limiters sharing a store apart.
	// "" means "default". It must be a valid header string: printable
	// ASCII without '"' or '\\'.
	Name string

	// Rate is the number of tokens added per Per. It must be at least 1.
	Rate int

	// Per is the refill period; 0 means one second.
	Per time.Duration

	// Burst is the bucket's capacity; 0 means Rate.
	Burst int
}

// Interval returns the time between two tokens, Per/Rate (at least 1ns).
// Stores use it with Burst; the RateLimiter passes them a normalized Limit
// (Name, Per and Burst filled in).
func (l Limit) Interval() time.Duration {
	per := l.Per
	if per <= 0 {
		per = time.Second
	}
	if l.Rate <= 0 {
		return per
	}
	return max(per/time.Duration(l.Rate), 1)
}

// normalize fills in the defaults and checks l.
func (l Limit) normalize() (Limit, error) {
	if l.Name == "" {
		l.Name = "default"
	}
	for i := 0; i < len(l.Name); i++ {
		if b := l.Name[i]; b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			return l, fmt.Errorf("middleware: Limit.Name %q must be printable ASCII without '\"' or '\\\\'", l.Name)
		}
	}
	if l.Rate < 1 {
		return l, fmt.Errorf("middleware: Limit.Rate must be at least 1, got %d", l.Rate)
	}
	if l.Per < 0 {
		return l, fmt.Errorf("middleware: Limit.Per must not be negative, got %v", l.Per)
	}
	if l.Per == 0 {
		l.Per = time.Second
	}
	if l.Burst < 0 {
		return l, fmt.Errorf("middleware: Limit.Burst must not be negative, got %d", l.Burst)
	}
	if l.Burst == 0 {
		l.Burst = l.Rate
	}
	if l.Interval() > time.Duration(math.MaxInt64/int64(l.Burst)) {
		return l, fmt.Errorf("middleware: Limit.Burst %d times an interval of %v overflows", l.Burst, l.Interval())
	}
	return l, nil
}

// Result is what a RateLimitStore says about one request.
type Result struct {
	// Allowed reports whether the request may proceed (it took a token).
	Allowed bool
	// Remaining is the number of requests the key may still make at once,
	// after this one; 0 when refused.
	Remaining int
	// RetryAfter is how long until the next token, when refused; 0 when
	// allowed.
	RetryAfter time.Duration
	// Reset is how long until the bucket is full again (the key's whole
	// quota is back): 0 for a full bucket.
	Reset time.Duration
}

// RateLimitStore keeps the token buckets. Take takes one token from key's bucket under
// limit at time now (the limiter's clock, so that stores need none and tests
// can move time), and reports the outcome. An error means the store could
// not decide; the RateLimiter then fails open or closed as configured.
// Implementations must be safe for concurrent use, and must make Take atomic
// per key: of M simultaneous calls for a key with n tokens, exactly n are
// allowed.
//
// The token bucket can be kept as a single time per key, the generic cell
// rate algorithm (GCRA): the "theoretical arrival time" tat at which the
// bucket would be full again. A request at now is allowed when
// max(tat, now) + interval - burst*interval <= now, and then stores
// max(tat, now) + interval. MemoryRateLimitStore does this; a Redis store can do the
// same in a short Lua script, with the key expiring at tat.
type RateLimitStore interface {
	Take(ctx context.Context, key string, now time.Time, limit Limit) (Result, error)
}

// Refunder is a RateLimitStore that can give a token back: Refund undoes one allowed
// Take of key under limit, so that an attempt counted before its outcome was
// known (web's sign-in Throttle takes a token before the password is checked,
// so that attempts in flight are counted too) costs nothing when it turns out
// well. A bucket never holds more than Burst tokens: refunding a full bucket
// changes nothing. Refund must be atomic per key, as Take. MemoryRateLimitStore and
// redisstore.RateLimitStore implement it.
type Refunder interface {
	Refund(ctx context.Context, key string, now time.Time, limit Limit) error
}

// gcraRefund gives a token back to the bucket whose theoretical arrival time
// is tat, returning the new tat: one interval earlier, and 0 (a full bucket,
// the key can go) when that is not after now.
func gcraRefund(tat, now int64, lim Limit) int64 {
	tat -= int64(lim.Interval())
	if tat <= now {
		return 0
	}
	return tat
}

// gcra takes a token from the bucket whose theoretical arrival time is tat
// (Unix nanoseconds; 0 for a new key), returning the new tat and the result.
func gcra(tat, now int64, lim Limit) (int64, Result) {
	interval := int64(lim.Interval())
	burst := int64(lim.Burst)
	tat = max(tat, now)
	next := tat + interval
	allowAt := next - burst*interval
	if now < allowAt {
		return tat, Result{RetryAfter: time.Duration(allowAt - now), Reset: time.Duration(tat - now)}
	}
	// Tokens left: how many more intervals fit before next reaches
	// now + burst*interval.
	remaining := (now - allowAt) / interval
	return next, Result{Allowed: true, Remaining: int(remaining), Reset: time.Duration(next - now)}
}

// DefaultMemoryRateLimitStoreMaxKeys is MemoryRateLimitStore's bound on the number of keys
// when MemoryRateLimitStoreConfig.MaxKeys is 0. An entry costs about 100 bytes for a
// client-address key, plus the key's bytes for a string key, so the default
// holds a store near 10 MB at most (the measured figure, with its command:
// docs/middleware.md, "Rate limit"), and 100 000 clients active within one
// refill window is more than a single instance usually sees; past it,
// eviction keeps memory flat at the price of forgetting the most nearly
// refilled buckets.
const DefaultMemoryRateLimitStoreMaxKeys = 100_000

// memShards is the number of independently locked shards of a MemoryRateLimitStore.
const memShards = 64

// evictSample is how many entries an insertion into a full shard looks at.
const evictSample = 8

// MemoryRateLimitStoreConfig configures NewMemoryRateLimitStore.
type MemoryRateLimitStoreConfig struct {
	// MaxKeys bounds the number of keys held. 0 or less means
	// DefaultMemoryRateLimitStoreMaxKeys (100 000). The bound is split evenly over
	// 64 shards, so it is rounded up to a multiple of 64.
	MaxKeys int
}

// MemoryRateLimitStore is an in-process RateLimitStore: 64 shards, each a map under its own
// mutex, holding one int64 per key (GCRA's theoretical arrival time),
// updated in place, so that a request for a known key hashes it once.
// Memory is bounded: when a new key arrives at a full shard, eight entries
// are sampled; those whose bucket is already full again are dropped (they
// carry no information: a new bucket is full too), and if there is none,
// the sampled entry nearest to full is dropped, which lets that key start
// over with a full bucket. So eviction never loses more than one bucket's
// worth of refusals per new key, and only when the store is full of keys
// active within their refill window.
//
// Take for an existing key allocates nothing; a new key allocates its map
// entry (and the string key, for string keys). A MemoryRateLimitStore serves one
// process: behind a load balancer each instance limits on its own.
type MemoryRateLimitStore struct {
	perShard int
	seed     maphash.Seed
	shards   [memShards]memShard
}

type memShard struct {
	mu sync.Mutex
	m  map[memKey]*int64 // tat, Unix nanoseconds; updated in place
	_  [48]byte          // keep shards on separate cache lines
}

// memKey is a bucket's key: the policy's name, and either a client address
// (the default key, kept without formatting it) or a string.
type memKey struct {
	name string
	addr netip.Addr
	s    string
}

// NewMemoryRateLimitStore returns an empty MemoryRateLimitStore.
func NewMemoryRateLimitStore(cfg MemoryRateLimitStoreConfig) *MemoryRateLimitStore {
	n := cfg.MaxKeys
	if n <= 0 {
		n = DefaultMemoryRateLimitStoreMaxKeys
	}
	s := &MemoryRateLimitStore{perShard: (n + memShards - 1) / memShards, seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].m = make(map[memKey]*int64)
	}
	return s
}

// Take implements RateLimitStore. It never returns an error.
func (s *MemoryRateLimitStore) Take(_ context.Context, key string, now time.Time, limit Limit) (Result, error) {
	h := maphash.String(s.seed, key)
	return s.take(h, memKey{name: limit.Name, s: key}, now, limit), nil
}

// Refund implements Refunder: it gives back a token Take took from key's
// bucket. It never returns an error, and allocates nothing.
func (s *MemoryRateLimitStore) Refund(_ context.Context, key string, now time.Time, limit Limit) error {
	h := maphash.String(s.seed, key)
	k := memKey{name: limit.Name, s: key}
	sh := &s.shards[h%memShards]
	sh.mu.Lock()
	if p := sh.m[k]; p != nil {
		if tat := gcraRefund(*p, now.UnixNano(), limit); tat == 0 {
			delete(sh.m, k)
		} else {
			*p = tat
		}
	}
	sh.mu.Unlock()
	return nil
}

// takeAddr is Take for a client address key, without formatting it.
func (s *MemoryRateLimitStore) takeAddr(a netip.Addr, now time.Time, limit Limit) Result {
	b := a.As16()
	// Shard choice only: a multiply-xorshift mix of the two halves.
	h := binary.LittleEndian.Uint64(b[:8])*0x9e3779b97f4a7c15 ^ binary.LittleEndian.Uint64(b[8:])*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	h *= 0x94d049bb133111eb
	h ^= h >> 32
	return s.take(h, memKey{name: limit.Name, addr: a}, now, limit)
}

func (s *MemoryRateLimitStore) take(h uint64, k memKey, now time.Time, limit Limit) Result {
	sh := &s.shards[h%memShards]
	t := now.UnixNano()
	sh.mu.Lock()
	p := sh.m[k]
	var tat int64
	if p != nil {
		tat = *p
	}
	tat, res := gcra(tat, t, limit)
	if res.Allowed {
		if p != nil {
			*p = tat
		} else {
			if len(sh.m) >= s.perShard {
				sh.evict(t)
			}
			np := new(int64)
			*np = tat
			sh.m[k] = np
		}
	}
	sh.mu.Unlock()
	return res
}

// evict makes room for one entry; the caller holds the lock.
func (sh *memShard) evict(now int64) {
	var (
		victim memKey
		oldest int64 = math.MaxInt64
		freed  bool
		n      int
	)
	for k, p := range sh.m { // map iteration starts at a random entry
		if tat := *p; tat <= now {
			delete(sh.m, k)
			freed = true
		} else if tat < oldest {
			victim, oldest = k, tat
		}
		if n++; n == evictSample {
			break
		}
	}
	if !freed {
		delete(sh.m, victim)
	}
}

// Len returns the number of keys held.
func (s *MemoryRateLimitStore) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}
