package redisstore

// CacheStore is a cache.Store on Redis (go-redis v9, the client the
// session and rate-limit stores use): entries with PX expiry, tag
// generations as INCR counters, and cross-instance locks (SET NX PX with a
// token, released by a script that checks it), so that every feature of
// package cache works the same on MemoryStore and on Redis.
//
// Keys: an entry lives at Prefix+key, a tag's generation at
// Prefix+"\x1fgen:"+tag, a lock at Prefix+"\x1flock:"+key. Keys never hold
// control characters (cache.CheckKey), so the three never meet. Generations
// must not be evicted (they have no TTL: a volatile-* maxmemory-policy
// leaves them alone; allkeys-* may evict one, which can make entries written
// before the invalidation that preceded the eviction look current again).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/cache"
)

// DefaultCachePrefix is the key prefix of a CacheStore whose CacheStoreConfig leaves it empty.
const DefaultCachePrefix = "cache:"

// CacheStoreConfig configures NewCacheStore. Client is required; the zero value of the other
// fields means their defaults.
type CacheStoreConfig struct {
	// Client is the application's go-redis client (which the CacheStore may
	// share with the session and rate-limit stores). Required: NewCacheStore panics
	// when it is nil. Close does not close it.
	Client redis.UniversalClient

	// Prefix starts every key the CacheStore writes. Default DefaultCachePrefix
	// ("cache:"). Two applications sharing a Redis database use two
	// prefixes; instances of one application share one.
	Prefix string

	// FailFast is how long, after an operation failed to reach Redis (not
	// a Redis error reply), every operation fails at once with
	// ErrUnavailable instead of dialling again: a Redis that is down, or
	// a host that drops packets, then costs requests nothing (Remember
	// computes around it) instead of a dial timeout each. Ping always
	// tries. Default DefaultCacheFailFast (1s); negative switches it off.
	FailFast time.Duration
}

// CacheStore is a cache.Store, cache.Locker and cache.Pinger on a go-redis
// client.
type CacheStore struct {
	rdb    redis.UniversalClient
	prefix string
	owned  bool // Close closes rdb
	pause  time.Duration

	// downUntil is when, in Unix nanoseconds, the CacheStore tries Redis again
	// after a connection failure; until then every operation fails at once
	// with ErrUnavailable.
	downUntil atomic.Int64
}

// ErrUnavailable is the error of an operation refused without a round trip
// because Redis failed less than CacheStoreConfig.FailFast ago.
var ErrUnavailable = errors.New("redisstore: redis unavailable (failed recently; retried after CacheStoreConfig.FailFast)")

// DefaultCacheFailFast is the pause after a connection failure during which
// operations fail at once (CacheStoreConfig.FailFast).
const DefaultCacheFailFast = time.Second

var (
	_ cache.Store  = (*CacheStore)(nil)
	_ cache.Locker = (*CacheStore)(nil)
	_ cache.Pinger = (*CacheStore)(nil)
)

// NewCacheStore returns a CacheStore on cfg.Client, a client of the application's own
// (which it may share with the session and rate-limit stores). Close does
// not close it. It panics when cfg.Client is nil.
func NewCacheStore(cfg CacheStoreConfig) *CacheStore {
	o := cfg
	if o.Client == nil {
		panic("redisstore: NewCacheStore: CacheStoreConfig.Client is nil")
	}
	if o.Prefix == "" {
		o.Prefix = DefaultCachePrefix
	}
	if o.FailFast == 0 {
		o.FailFast = DefaultCacheFailFast
	}
	return &CacheStore{rdb: o.Client, prefix: o.Prefix, pause: o.FailFast}
}

// available reports whether the CacheStore may try Redis now.
func (s *CacheStore) available() error {
	if until := s.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		return ErrUnavailable
	}
	return nil
}

// seen records err: a failure to reach Redis starts the pause.
func (s *CacheStore) seen(err error) error {
	if err == nil || err == redis.Nil || s.pause < 0 {
		return err
	}
	var reply redis.Error
	if errors.As(err, &reply) || errors.Is(err, context.Canceled) {
		return err // Redis answered, or the caller left
	}
	s.downUntil.Store(time.Now().Add(s.pause).UnixNano())
	return err
}

// The client settings OpenCacheStore uses unless the URL sets them (go-redis's own
// defaults are 5s to dial, 3s to read and 3 retries: a cache that fails
// open must fail fast, or every request waits for the retries).
const (
	DefaultCacheDialTimeout  = time.Second
	DefaultCacheReadTimeout  = 500 * time.Millisecond
	DefaultCacheWriteTimeout = 500 * time.Millisecond
)

// OpenCacheStore is the cache.Opener for "redis://" and "rediss://" URLs (go-redis's
// ParseURL syntax: redis://[:password@]host:port/db?dial_timeout=1s...),
// plus a prefix parameter for CacheStoreConfig.Prefix. Unless the URL sets them,
// dial_timeout is 1s, read_timeout and write_timeout 500ms, and
// max_retries is 0 (no retry), with one dial per attempt. Close closes
// the client.
//
//	store, err := cache.Open(cache.OpenConfig{Openers: redisstore.CacheOpeners()})
func OpenCacheStore(rawURL string) (cache.Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("redisstore: not a URL")
	}
	q := u.Query()
	prefix := q.Get("prefix")
	q.Del("prefix")
	set := func(name, v string) {
		if !q.Has(name) {
			q.Set(name, v)
		}
	}
	set("dial_timeout", DefaultCacheDialTimeout.String())
	set("read_timeout", DefaultCacheReadTimeout.String())
	set("write_timeout", DefaultCacheWriteTimeout.String())
	set("max_retries", "-1")
	u.RawQuery = q.Encode()
	opt, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, errors.New("redisstore: " + cache.EnvURL + ": " + err.Error())
	}
	opt.DialerRetries = 1 // go-redis's default, 5 dials 100ms apart, makes a down Redis cost each request 0.5s
	s := NewCacheStore(CacheStoreConfig{Client: redis.NewClient(opt), Prefix: prefix})
	s.owned = true
	return s, nil
}

// CacheOpeners returns OpenCacheStore as the opener of the "redis" and "rediss" schemes,
// for cache.OpenConfig.Openers.
func CacheOpeners() map[string]cache.Opener {
	return map[string]cache.Opener{"redis": OpenCacheStore, "rediss": OpenCacheStore}
}

// Client returns the go-redis client.
func (s *CacheStore) Client() redis.UniversalClient { return s.rdb }

// Get implements cache.Store. The slice shares go-redis's reply string (no
// copy): it must not be modified.
func (s *CacheStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := cache.CheckKey(key); err != nil {
		return nil, false, err
	}
	if err := s.available(); err != nil {
		return nil, false, err
	}
	v, err := s.rdb.Get(ctx, s.prefix+key).Result()
	if err == redis.Nil {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.seen(err)
	}
	s.downUntil.Store(0)
	return unsafe.Slice(unsafe.StringData(v), len(v)), true, nil
}

// Set implements cache.Store: SET with PX (none when ttl <= 0).
func (s *CacheStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := cache.CheckKey(key); err != nil {
		return err
	}
	if ttl < 0 {
		ttl = 0
	}
	if err := s.available(); err != nil {
		return err
	}
	return s.seen(s.rdb.Set(ctx, s.prefix+key, value, ttl).Err())
}

// Delete implements cache.Store.
func (s *CacheStore) Delete(ctx context.Context, key string) error {
	if err := cache.CheckKey(key); err != nil {
		return err
	}
	if err := s.available(); err != nil {
		return err
	}
	return s.seen(s.rdb.Del(ctx, s.prefix+key).Err())
}

func (s *CacheStore) counterKey(name string) string { return s.prefix + "\x1fgen:" + name }

// Incr implements cache.Store with INCR.
func (s *CacheStore) Incr(ctx context.Context, name string) (int64, error) {
	if err := cache.CheckKey(name); err != nil {
		return 0, err
	}
	if err := s.available(); err != nil {
		return 0, err
	}
	n, err := s.rdb.Incr(ctx, s.counterKey(name)).Result()
	return n, s.seen(err)
}

// Counters implements cache.Store with MGET.
func (s *CacheStore) Counters(ctx context.Context, names []string, dst []int64) error {
	keys := make([]string, len(names))
	for i, name := range names {
		if err := cache.CheckKey(name); err != nil {
			return err
		}
		keys[i] = s.counterKey(name)
	}
	if err := s.available(); err != nil {
		return err
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return s.seen(err)
	}
	for i, v := range vals {
		dst[i] = 0
		if str, ok := v.(string); ok {
			n, err := strconv.ParseInt(str, 10, 64)
			if err != nil {
				return errors.New("redisstore: generation " + strconv.Quote(names[i]) + " is not a number: " + strconv.Quote(str))
			}
			dst[i] = n
		}
	}
	return nil
}

// release deletes a lock only while it holds the caller's token.
var release = redis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`)

// CacheLockReleaseTimeout bounds the release of a lock (detached from the caller's
// context, which may have ended).
const CacheLockReleaseTimeout = time.Second

// TryLock implements cache.Locker: SET NX PX with a random token; the
// release deletes the key only if it still holds the token.
func (s *CacheStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	if err := cache.CheckKey(key); err != nil {
		return nil, false, err
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	token := hex.EncodeToString(raw[:])
	k := s.prefix + "\x1flock:" + key
	if err := s.available(); err != nil {
		return nil, false, err
	}
	ok, err := s.rdb.SetNX(ctx, k, token, ttl).Result()
	if err != nil || !ok {
		return nil, false, s.seen(err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CacheLockReleaseTimeout)
		defer cancel()
		_ = release.Run(ctx, s.rdb, []string{k}, token).Err()
	}, true, nil
}

// Ping implements cache.Pinger.
// It always tries Redis, and a success ends the FailFast pause.
func (s *CacheStore) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return s.seen(err)
	}
	s.downUntil.Store(0)
	return nil
}

// Close closes the client when OpenCacheStore made it.
func (s *CacheStore) Close() error {
	if s.owned {
		return s.rdb.Close()
	}
	return nil
}
