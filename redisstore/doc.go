// Package redisstore keeps Plinth's shared state in Redis, so that the
// instances of a service behind a load balancer share it: web's sessions
// (SessionStore), the rate limiter's token buckets (RateLimitStore), and
// package cache's entries, tag generations and locks (CacheStore).
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	sessions := redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: rdb})
//	limits := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb})
//	entries := redisstore.NewCacheStore(redisstore.CacheStoreConfig{Client: rdb})
//
// The three may share one client (one connection pool) and one database:
// their default key prefixes differ (DefaultSessionPrefix,
// DefaultRateLimitPrefix, DefaultCachePrefix). OpenSessionStore and
// OpenCacheStore make a store of their own from a URL instead, for
// web.SessionsConfig.Openers and cache.OpenConfig.Openers.
//
// It is the module github.com/plinth-go/plinth/redisstore, so that the
// core keeps to the standard library and golang.org/x; it depends on
// github.com/redis/go-redis/v9. It uses go-redis rather than rueidis so
// that the three stores link one client library and may share one client;
// rueidis's client-side caching and auto-pipelining would buy little here
// (a session is read once per request and changed by other instances). The
// package is not named redis, so that it does not shadow go-redis's package
// in a file that imports both.
package redisstore
