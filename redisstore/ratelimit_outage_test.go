package redisstore_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
)

// TestRateLimitOutage stops Redis under two limiters sharing it: the default one
// lets requests through and counts the errors, the FailClosed one answers
// 503; once Redis is back on the same port (empty, and without the script
// cached: EVALSHA fails and Take falls back to EVAL), both limit again. It
// runs with go-redis's default options (each failing Take then runs out its
// Timeout) and with the ones the documentation recommends.
func TestRateLimitOutage(t *testing.T) {
	for name, opt := range map[string]redis.Options{
		"go-redis defaults": {},
		"recommended":       {MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true},
	} {
		t.Run(name, func(t *testing.T) { testRedisOutage(t, &opt) })
	}
}

func testRedisOutage(t *testing.T, opt *redis.Options) {
	srv := startRedis(t, 0)
	opt.Addr = srv.addr()
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	store := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb})
	lim := middleware.Limit{Rate: 1, Per: time.Hour, Burst: 2}
	open := middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: lim, Store: store, Logger: discardLogger()})
	closed := middleware.NewRateLimiter(middleware.RateLimiterConfig{
		Limit: middleware.Limit{Name: "closed", Rate: 1, Per: time.Hour, Burst: 2}, Store: store,
		FailClosed: true, Logger: discardLogger(),
	})
	openApp, closedApp := newApp(open), newApp(closed)
	const client = "192.0.2.1:1234"

	limits := func(phase string) {
		t.Helper()
		for name, app := range map[string]http.Handler{"default": openApp, "FailClosed": closedApp} {
			for i, want := range []int{200, 200, 429} {
				if w := get(app, client); w.Code != want {
					t.Fatalf("%s, %s limiter, request %d: status %d, want %d (%s)", phase, name, i, w.Code, want, w.Body)
				}
			}
		}
	}
	limits("before the outage")
	if open.StoreErrors() != 0 || closed.StoreErrors() != 0 {
		t.Fatalf("store errors before the outage: %d, %d", open.StoreErrors(), closed.StoreErrors())
	}

	srv.stop()
	for i := range 3 {
		if w := get(openApp, client); w.Code != 200 {
			t.Fatalf("Redis down, default limiter, request %d: status %d, want 200 (fail open)", i, w.Code)
		}
		if w := get(closedApp, client); w.Code != 503 || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("Redis down, FailClosed limiter, request %d: status %d, Retry-After %q; want 503, 1",
				i, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if open.StoreErrors() != 3 || closed.StoreErrors() != 3 {
		t.Errorf("StoreErrors %d and %d, want 3 each", open.StoreErrors(), closed.StoreErrors())
	}
	_, err := store.Take(context.Background(), "k", time.Now(), open.Limit())
	if err == nil {
		t.Fatal("Take with Redis down: no error")
	}
	t.Logf("Take with Redis down: %v", err)

	startRedis(t, srv.port)
	limits("after the restart")
	if open.StoreErrors() != 3 || closed.StoreErrors() != 3 {
		t.Errorf("StoreErrors %d and %d after the restart, want 3 each", open.StoreErrors(), closed.StoreErrors())
	}
}

// TestRateLimitTimeout stops (SIGSTOP) a Redis so that it accepts no more replies:
// with ContextTimeoutEnabled on the client, Take gives up after Timeout, not
// after the client's ReadTimeout (a minute here). The bound checked is loose,
// 10 s for a 50 ms timeout: it tells the two apart without timing anything.
func TestRateLimitTimeout(t *testing.T) {
	srv := startRedis(t, 0)
	rdb := redis.NewClient(&redis.Options{
		Addr: srv.addr(), ReadTimeout: time.Minute, WriteTimeout: time.Minute, ContextTimeoutEnabled: true,
	})
	defer rdb.Close()
	store := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Timeout: 50 * time.Millisecond})
	lim := middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: middleware.Limit{Rate: 1}}).Limit()
	ctx := context.Background()
	if _, err := store.Take(ctx, "k", time.Now(), lim); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer srv.cmd.Process.Signal(syscall.SIGCONT)
	start := time.Now()
	_, err := store.Take(ctx, "k", time.Now(), lim)
	if elapsed := time.Since(start); err == nil || elapsed > 10*time.Second {
		t.Fatalf("Take against a stopped Redis: %v after %v; want an error after the 50ms Timeout", err, elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("error %v, want a deadline error", err)
	}
}
