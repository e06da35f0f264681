package redisstore

// SessionStore keeps web's sessions in Redis, so that the instances of
// an application behind a load balancer share them and a restart of one
// signs nobody out:
//
//	store := redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: rdb})
//	sessions, err := web.NewSessions(web.SessionsConfig{Store: store})
//
// or, chosen by URL (PLINTH_SESSION_STORE=redis://127.0.0.1:6379/0), with
// OpenSessionStore in web.SessionsConfig.Openers under "redis" and "rediss".
//
// Each session is one Redis string under Prefix+ID, with the session's
// expiry as the key's TTL: Load is one GET, Create one SET with PX and NX,
// Update one SET with PX and XX (so that a session deleted by a sign-out,
// or expired, is never written again), or a DEL when the expiry has
// passed, Delete one DEL: one round trip each, and Redis forgets expired
// sessions by itself, so nothing needs cleaning. BenchmarkLoad and
// BenchmarkSave (an Update) measure them against the Redis at
// PLINTH_TEST_REDIS: 8 and 12 allocations, and about 90 µs each against a
// Redis on the same 2-core machine at a load average of 10 (docs/web.md,
// "Costs and outages"); a network adds its round-trip time.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/redisstore/internal/redact"
	"github.com/plinth-go/plinth/web"
)

// DefaultSessionPrefix starts the SessionStore's keys when SessionStoreConfig.Prefix is "". It differs
// from the rate limiter's ("plinth:rl:"), so both may share one database.
const DefaultSessionPrefix = "plinth:session:"

// SessionStoreConfig configures NewSessionStore. Only Client is required; every other field's zero
// value is the default.
type SessionStoreConfig struct {
	// Client is the Redis client: a *redis.Client, *redis.ClusterClient,
	// *redis.Ring, a failover client or any other redis.UniversalClient.
	// Required. The SessionStore neither configures nor closes it (see NewSessionStore).
	Client redis.UniversalClient

	// Prefix starts every key the SessionStore writes, followed by the session
	// ID: plinth:session:<43 characters of base64url>. "" means
	// DefaultSessionPrefix. Give each application sharing a Redis database its
	// own prefix, or its own database, so that their sessions stay apart.
	Prefix string
}

// SessionStore is a web.Store in Redis. Make one with NewSessionStore or OpenSessionStore. It is safe for
// concurrent use, and any number of instances of an application may share
// one Redis: each Update replaces a whole session, so the last write wins,
// as with every store, but only while the session exists.
type SessionStore struct {
	client redis.UniversalClient
	prefix string
	addr   string // for error messages: where the client connects

	owned     bool // OpenSessionStore made the client: Close closes it
	closeOnce sync.Once
	closeErr  error
}

var (
	_ web.Store = (*SessionStore)(nil)
	_ io.Closer = (*SessionStore)(nil)
)

// NewSessionStore returns a SessionStore using cfg.Client. It panics if cfg.Client is nil (a
// program's mistake, as in NewRateLimitStore). It does not
// contact Redis; Ping (the sessions' readiness check) does. The SessionStore does
// not configure the client, and its Close does not close it: the
// application that made the client closes it.
//
// The SessionStore's methods receive the request's context. go-redis applies a
// context's deadline to socket reads and writes only when the client's
// Options.ContextTimeoutEnabled is true; otherwise a connection that hangs
// mid-command is bounded by the client's ReadTimeout (3 s by default), not
// by the request. Set ContextTimeoutEnabled: true, as OpenSessionStore does.
func NewSessionStore(cfg SessionStoreConfig) *SessionStore {
	if cfg.Client == nil {
		panic("redisstore: SessionStoreConfig.Client is required")
	}
	s := &SessionStore{client: cfg.Client, prefix: cfg.Prefix, addr: addrOf(cfg.Client)}
	if s.prefix == "" {
		s.prefix = DefaultSessionPrefix
	}
	return s
}

// addrOf describes where client connects, for error messages.
func addrOf(client redis.UniversalClient) string {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().Addr
	case *redis.ClusterClient:
		return strings.Join(c.Options().Addrs, ",")
	}
	return ""
}

// OpenSessionStore is a web.OpenStore for redis:// and rediss:// (TLS) URLs, and
// unix:// for a Unix socket, in the syntax of redis.ParseURL:
// redis://[user:password@]host[:port][/db][?option=value...], where the
// options are go-redis's (dial_timeout, read_timeout, pool_size,
// max_retries...). Register it in web.SessionsConfig.Openers under the
// schemes it should serve:
//
//	Openers: map[string]web.OpenStore{"redis": redisstore.OpenSessionStore, "rediss": redisstore.OpenSessionStore}
//
// OpenSessionStore makes a client of its own, with the SessionStore's defaults (SessionStoreConfig{}), and
// returns an error only for a URL it cannot parse: it does not contact Redis,
// so that an application starting while Redis is briefly down (a deploy
// restarting both) starts, and its readiness check, the SessionStore's Ping, holds
// traffic off it until Redis answers, rather than crash-looping. ctx is not
// used.
//
// The client differs from go-redis's defaults in two ways, both for a
// request that must not wait long on a Redis that is down:
// ContextTimeoutEnabled is on, so that the request's deadline bounds each
// call, and a refused connection is not dialled again (DialerRetries 1
// instead of 5 tries 100 ms apart) before the command's own retries
// (max_retries, 3 by default, which also cover a connection broken by a Redis
// restart): a Load against a closed port fails in 70-160 ms (measured),
// against 1.75 s with go-redis's defaults. Close closes the client.
//
// For Redis Cluster, Sentinel or a client shared with other code, make the
// client yourself and use NewSessionStore.
func OpenSessionStore(ctx context.Context, url string) (web.Store, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", redact.Error(err, url)) // url.Parse quotes the URL
	}
	opts.ContextTimeoutEnabled = true
	opts.DialerRetries = 1
	s := NewSessionStore(SessionStoreConfig{Client: redis.NewClient(opts)})
	s.owned = true
	return s, nil
}

// String describes the store for the sessions' start-up log line: the
// engine, where the client connects (never its password) and the prefix,
// as "redis addr=127.0.0.1:6379 db=0 prefix=plinth:session:".
func (s *SessionStore) String() string {
	out := "redis"
	if s.addr != "" {
		out += " addr=" + s.addr
	}
	if c, ok := s.client.(*redis.Client); ok {
		out += " db=" + strconv.Itoa(c.Options().DB)
	}
	return out + " prefix=" + s.prefix
}

// key returns the Redis key of a session ID.
func (s *SessionStore) key(id string) string { return s.prefix + id }

// Load implements web.Store: one GET. A key that does not exist (never
// saved, deleted or expired: Redis removes expired keys itself) is nil
// data and a nil error.
func (s *SessionStore) Load(ctx context.Context, id string) ([]byte, error) {
	data, err := s.client.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("load", err)
	}
	return data, nil
}

// ttl returns the time left until expiry, rounded up to the millisecond
// (go-redis sends whole seconds as EX and anything else as PX in
// milliseconds, and logs a warning below 1 ms), and false when it has
// passed.
//
// The TTL is relative: Redis counts it down on its own clock, so only the
// application's clock decides the expiry, as it does for the memory store,
// and a Redis whose clock is off does not shorten or lengthen sessions.
func ttl(expiry time.Time) (time.Duration, bool) {
	d := time.Until(expiry)
	if d <= 0 {
		return 0, false
	}
	return (d + time.Millisecond - 1).Truncate(time.Millisecond), true
}

// Create implements web.Store: one SET with NX and the time left until
// expiry as the key's TTL (PX), which fails with an error wrapping
// web.ErrSessionExists when the key exists. An expiry already past writes
// nothing.
func (s *SessionStore) Create(ctx context.Context, id string, data []byte, expiry time.Time) error {
	d, ok := ttl(expiry)
	if !ok {
		return nil
	}
	err := s.client.SetArgs(ctx, s.key(id), data, redis.SetArgs{Mode: "NX", TTL: d}).Err()
	if errors.Is(err, redis.Nil) {
		return s.fail("create", web.ErrSessionExists)
	}
	if err != nil {
		return s.fail("create", err)
	}
	return nil
}

// Update implements web.Store: one SET with XX and the time left until
// expiry as the key's TTL (PX), which writes only over a key that exists:
// a session deleted meanwhile (a sign-out) or expired is not written back.
// An expiry already past is one DEL.
func (s *SessionStore) Update(ctx context.Context, id string, data []byte, expiry time.Time) (bool, error) {
	d, ok := ttl(expiry)
	if !ok {
		n, err := s.client.Del(ctx, s.key(id)).Result()
		if err != nil {
			return false, s.fail("update", err)
		}
		return n > 0, nil
	}
	err := s.client.SetArgs(ctx, s.key(id), data, redis.SetArgs{Mode: "XX", TTL: d}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("update", err)
	}
	return true, nil
}

// Delete implements web.Store: one DEL, which is not an error for a key
// that does not exist.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.client.Del(ctx, s.key(id)).Err(); err != nil {
		return s.fail("delete", err)
	}
	return nil
}

// Ping implements web.Store: one PING. web.Sessions.Attach makes it the
// degraded check "sessions", so /readyz names the store degraded, with
// this error, while Redis cannot be reached.
func (s *SessionStore) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return s.fail("ping", err)
	}
	return nil
}

// Close closes the client if OpenSessionStore made it, and does nothing for a SessionStore
// made by NewSessionStore (the client is the caller's). It implements io.Closer: the
// sessions call it at shutdown, after the drain, for a store they opened
// from a URL. A second Close returns the first one's result.
func (s *SessionStore) Close() error {
	s.closeOnce.Do(func() {
		if s.owned {
			s.closeErr = s.client.Close()
		}
	})
	return s.closeErr
}

// fail wraps err with the operation and where Redis is. A context's error
// stays reachable with errors.Is, so that a caller can tell a request that
// went away from a Redis that is down.
func (s *SessionStore) fail(op string, err error) error {
	if s.addr == "" {
		return fmt.Errorf("redisstore: %s: %w", op, err)
	}
	return fmt.Errorf("redisstore: %s: redis at %s: %w", op, s.addr, err)
}
