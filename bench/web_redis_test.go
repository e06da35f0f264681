package bench

import (
	"context"
	"testing"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/boj/redistore"
	"github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/redisstore"
)

// redisBenchPrefix starts the keys the benchmarks' Redis stores write,
// removed when a setup ends.
const redisBenchPrefix = "plinth-bench:"

// redisTestURL returns PLINTH_TEST_REDIS, skipping tb when it is unset.
func redisTestURL(tb testing.TB) string {
	tb.Helper()
	u := plinthtest.RedisURL(tb)
	return u
}

// goRedisClient returns a go-redis client of PLINTH_TEST_REDIS, closed (and
// the benchmark's keys deleted) when tb ends.
func goRedisClient(tb testing.TB) *goredis.Client {
	tb.Helper()
	opt, err := goredis.ParseURL(redisTestURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	c := goredis.NewClient(opt)
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("PLINTH_TEST_REDIS: %v", err)
	}
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, redisBenchPrefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		_ = c.Close()
	})
	return c
}

// scsRedisStore is scs's goredisstore on a go-redis client.
func scsRedisStore(tb testing.TB) *goredisstore.RedisStore {
	return goredisstore.NewWithPrefix(goRedisClient(tb), redisBenchPrefix+"scs:")
}

// gorillaRedisStore is boj/redistore, the Redis store gorilla/sessions
// lists, signing the session ID in the cookie with a hash key. Its pool
// does not ping on every borrow, as redistore's own constructors do: one
// round trip per load or save, as the others make.
func gorillaRedisStore(tb testing.TB) *redistore.RediStore {
	tb.Helper()
	u := redisTestURL(tb)
	_ = goRedisClient(tb) // only to delete the benchmark's keys when tb ends
	pool := &redis.Pool{MaxIdle: 10, Dial: func() (redis.Conn, error) { return redis.DialURL(u) }}
	st, err := redistore.NewRediStoreWithPool(pool, benchKey64)
	if err != nil {
		tb.Fatalf("PLINTH_TEST_REDIS: %v", err)
	}
	st.SetKeyPrefix(redisBenchPrefix + "gorilla:")
	st.SetMaxAge(86400)
	st.Options.HttpOnly = true
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

// plinthRedisStore is Plinth's redisstore.SessionStore on a go-redis client.
func plinthRedisStore(tb testing.TB) *redisstore.SessionStore {
	return redisstore.NewSessionStore(redisstore.SessionStoreConfig{Client: goRedisClient(tb), Prefix: redisBenchPrefix + "plinth:"})
}
