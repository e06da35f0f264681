package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/redisstore"
)

var prefixSeq atomic.Int64

// testClient returns a client of the Redis named by PLINTH_TEST_REDIS, or
// skips the test, and a key prefix no other test or run uses; the keys
// under it are deleted when the test ends.
func testClient(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	url := plinthtest.RedisURL(tb)
	opt, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("%s: %v", redisEnv, err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("%s=%s: %v", redisEnv, url, err)
	}
	prefix := fmt.Sprintf("plinth:test:%s:%d.%d:", tb.Name(), time.Now().UnixNano(), prefixSeq.Add(1))
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		rdb.Close()
	})
	return rdb, prefix
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newApp(rl *middleware.RateLimiter) *plinth.App {
	a := plinth.Bare()
	a.Logger = discardLogger()
	a.Use(rl.Middleware())
	a.Get("/", func(c *plinth.Ctx) error { return c.Text(200, "ok") })
	return a
}

func get(app http.Handler, remote string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = remote
	w := httptest.NewRecorder()
	app.ServeHTTP(w, r)
	return w
}

// normalized returns lim with its defaults filled in, as the limiter passes
// it to stores.
func normalized(lim middleware.Limit) middleware.Limit {
	return middleware.NewRateLimiter(middleware.RateLimiterConfig{Limit: lim}).Limit()
}

func TestNewRateLimitStorePanicsWithoutClient(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "RateLimitStoreConfig.Client") {
			t.Errorf("panic %v, want one naming RateLimitStoreConfig.Client", r)
		}
	}()
	redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{})
}

// TestSameResultsAsMemoryRateLimitStore runs the same sequences of Takes against a
// MemoryRateLimitStore and the Redis store and wants identical Results, to the
// nanosecond: fixed steps first, then random ones, including steps back in
// time (another instance's clock a little behind). Every interval is at least
// a second, so no key expires in Redis (on Redis's real clock) while the
// test's fake clock still counts it.
func TestSameResultsAsMemoryRateLimitStore(t *testing.T) {
	rdb, prefix := testClient(t)
	rs := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix})
	ms := middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
	ctx := context.Background()

	limits := []middleware.Limit{
		{Rate: 1, Per: time.Second, Burst: 3},
		{Name: "odd", Rate: 3, Per: 10 * time.Second, Burst: 4},   // interval 3333333333 ns
		{Name: "hourly", Rate: 7, Per: time.Hour, Burst: 5},       // interval 514285714285 ns
		{Name: "long", Rate: 1, Per: 24 * time.Hour, Burst: 100},  // refill window 100 days, under 2^53 ns
		{Name: "api:v1", Rate: 2, Per: 3 * time.Second, Burst: 2}, // a Name with a colon
	}
	starts := []time.Time{
		time.Unix(1_800_000_000, 123_456_789),
		time.Unix(1_700_000_000, 999_999_999), // carries into the seconds at once
		time.Date(2250, 1, 1, 0, 0, 0, 1, time.UTC),
	}
	check := func(step string, key string, now time.Time, lim middleware.Limit) middleware.Result {
		t.Helper()
		want, _ := ms.Take(ctx, key, now, lim)
		got, err := rs.Take(ctx, key, now, lim)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got != want {
			t.Fatalf("%s: key %q at %v, limit %+v:\nredis  %+v\nmemory %+v", step, key, now, lim, got, want)
		}
		return got
	}
	for si, start := range starts {
		for li, l := range limits {
			lim := normalized(l)
			interval := lim.Interval()
			key := fmt.Sprintf("fixed-%d-%d", si, li)
			now := start
			// Drain the bucket, be refused, wait one interval less 1 ns
			// (refused), 1 ns more (allowed), then wait for a full bucket.
			for i := range lim.Burst + 2 {
				check(fmt.Sprintf("start %d limit %d take %d", si, li, i), key, now, lim)
			}
			now = now.Add(interval - 1)
			if r := check("interval-1ns", key, now, lim); r.Allowed || r.RetryAfter != 1 {
				t.Fatalf("one nanosecond early: %+v, want refused with RetryAfter 1ns", r)
			}
			now = now.Add(1)
			if r := check("interval", key, now, lim); !r.Allowed {
				t.Fatalf("one interval later: %+v, want allowed", r)
			}
			now = now.Add(time.Duration(lim.Burst) * interval)
			if r := check("full", key, now, lim); r.Remaining != lim.Burst-1 {
				t.Fatalf("after a whole window: %+v, want Remaining %d", r, lim.Burst-1)
			}

			// Random steps over a few keys (per start: a key left by a
			// later start would hold a time years ahead, beyond the exact
			// range of tat - now).
			rng := rand.New(rand.NewPCG(uint64(si), uint64(li)))
			keys := []string{"a", "b:c", "203.0.113.9", "2001:db8::"}
			for i := range 300 {
				var d time.Duration
				switch rng.IntN(6) {
				case 0: // same instant
				case 1:
					d = time.Duration(rng.Int64N(1000)) // a few ns
				case 2:
					d = time.Duration(rng.Int64N(int64(interval) + 1))
				case 3: // up to a whole window, or an hour
					d = time.Duration(rng.Int64N(min(int64(interval)*int64(lim.Burst), int64(time.Hour)) + 1))
				case 4:
					d = -time.Duration(rng.Int64N(int64(interval)/2 + 1)) // a clock behind
				case 5:
					d = interval
				}
				now = now.Add(d)
				check(fmt.Sprintf("start %d limit %d random step %d", si, li, i), fmt.Sprintf("r%d-%s", si, keys[rng.IntN(len(keys))]), now, lim)
			}
		}
	}
}

// TestStoredTimeAndExpiry checks the key's name, its value (the time the
// bucket is full again, in Unix nanoseconds, exactly as MemoryRateLimitStore computes
// it) and its expiry (then too, on Redis's clock).
func TestStoredTimeAndExpiry(t *testing.T) {
	rdb, prefix := testClient(t)
	rs := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix})
	ctx := context.Background()
	lim := normalized(middleware.Limit{Name: "p", Rate: 1, Per: 10 * time.Second, Burst: 3})
	now := time.Unix(1_800_000_000, 999_999_998)
	for i := range 2 {
		if _, err := rs.Take(ctx, "k", now, lim); err != nil {
			t.Fatal(i, err)
		}
	}
	key := prefix + `"p":k`
	got, err := rdb.Get(ctx, key).Result()
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	if want := strconv.FormatInt(now.Add(20*time.Second).UnixNano(), 10); got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
	ttl, err := rdb.PTTL(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The bucket is full again in 20 s; PX is rounded up to the millisecond
	// and has run down a little since.
	if ttl <= 19*time.Second || ttl > 20*time.Second+time.Millisecond {
		t.Errorf("PTTL %v, want just under 20s", ttl)
	}

	// A refusal writes nothing.
	rs.Take(ctx, "k", now, lim)
	if r, _ := rs.Take(ctx, "k", now, lim); r.Allowed {
		t.Fatalf("fourth take allowed: %+v", r)
	}
	if got2, _ := rdb.Get(ctx, key).Result(); got2 != strconv.FormatInt(now.Add(30*time.Second).UnixNano(), 10) {
		t.Errorf("after a refusal: stored %s", got2)
	}
}

// TestLongWindowResolution checks the documented resolution beyond 2^53 ns
// (104 days) of refill window: the decisions still match MemoryRateLimitStore's, and
// the durations are within a few microseconds.
func TestLongWindowResolution(t *testing.T) {
	rdb, prefix := testClient(t)
	rs := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix})
	ms := middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
	ctx := context.Background()
	lim := normalized(middleware.Limit{Rate: 1, Per: 365 * 24 * time.Hour, Burst: 3}) // 3 years
	now := time.Unix(1_800_000_000, 123_456_789)
	const tolerance = 8 * time.Microsecond
	near := func(a, b time.Duration) bool { return a-b <= tolerance && b-a <= tolerance }
	for i, d := range []time.Duration{0, 0, 0, 0, time.Hour, 365 * 24 * time.Hour, 1, 0, 400 * 24 * time.Hour, 0} {
		now = now.Add(d)
		want, _ := ms.Take(ctx, "k", now, lim)
		got, err := rs.Take(ctx, "k", now, lim)
		if err != nil {
			t.Fatal(i, err)
		}
		if got.Allowed != want.Allowed || got.Remaining != want.Remaining ||
			!near(got.RetryAfter, want.RetryAfter) || !near(got.Reset, want.Reset) {
			t.Fatalf("step %d:\nredis  %+v\nmemory %+v", i, got, want)
		}
	}
}

// TestRateLimitKeysNamespaced checks that the prefix and the policy's name keep
// buckets apart.
func TestRateLimitKeysNamespaced(t *testing.T) {
	rdb, prefix := testClient(t)
	ctx := context.Background()
	a := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix + "a:"})
	b := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix + "b:"})
	now := time.Unix(1_800_000_000, 0)
	one := normalized(middleware.Limit{Rate: 1, Per: time.Hour})
	two := normalized(middleware.Limit{Name: "two", Rate: 1, Per: time.Hour})
	for _, c := range []struct {
		s   *redisstore.RateLimitStore
		lim middleware.Limit
	}{{a, one}, {b, one}, {a, two}, {b, two}} {
		if r, err := c.s.Take(ctx, "k", now, c.lim); err != nil || !r.Allowed {
			t.Fatalf("first take of a bucket: %+v, %v", r, err)
		}
	}
	if r, _ := a.Take(ctx, "k", now, one); r.Allowed {
		t.Fatalf("second take: %+v", r)
	}
	n, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil || len(n) != 4 {
		t.Errorf("keys %v, %v; want 4", n, err)
	}
}

// TestRateLimitDefaultPrefix checks the default prefix, on a key unique to the run.
func TestRateLimitDefaultPrefix(t *testing.T) {
	rdb, prefix := testClient(t)
	ctx := context.Background()
	s := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb})
	k := prefix + "k"
	if _, err := s.Take(ctx, k, time.Unix(1_800_000_000, 0), normalized(middleware.Limit{Rate: 1})); err != nil {
		t.Fatal(err)
	}
	key := redisstore.DefaultRateLimitPrefix + `"default":` + k
	defer rdb.Del(ctx, key)
	if n, _ := rdb.Exists(ctx, key).Result(); n != 1 {
		t.Errorf("no key %s", key)
	}
}

// TestTwoAppsShareOneBucket: two Apps, as two instances of a service would
// have, each with its limiter and its Redis client, share one bucket: of N
// concurrent requests from one client across both, exactly Burst pass. The
// rate is one an hour, so no token comes back during the test.
func TestTwoAppsShareOneBucket(t *testing.T) {
	rdb, prefix := testClient(t)
	rdb2 := redis.NewClient(rdb.Options())
	defer rdb2.Close()
	const burst, n = 10, 50
	var apps [2]*plinth.App
	var limiters [2]*middleware.RateLimiter
	for i, c := range []*redis.Client{rdb, rdb2} {
		limiters[i] = middleware.NewRateLimiter(middleware.RateLimiterConfig{
			Limit:  middleware.Limit{Rate: 1, Per: time.Hour, Burst: burst},
			Store:  redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: c, Prefix: prefix, Timeout: 5 * time.Second}),
			Logger: discardLogger(),
		})
		apps[i] = newApp(limiters[i])
	}
	var ok, limited, other atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			switch w := get(apps[i%2], "192.0.2.7:4000"); w.Code {
			case 200:
				ok.Add(1)
			case 429:
				limited.Add(1)
			default:
				other.Add(1)
				t.Errorf("status %d: %s", w.Code, w.Body)
			}
		})
	}
	close(start)
	wg.Wait()
	if ok.Load() != burst || limited.Load() != n-burst {
		t.Errorf("%d passed, %d refused; want %d and %d", ok.Load(), limited.Load(), burst, n-burst)
	}
	if got := limiters[0].Limited() + limiters[1].Limited(); got != n-burst {
		t.Errorf("limiters counted %d refusals, want %d", got, n-burst)
	}
	if e := limiters[0].StoreErrors() + limiters[1].StoreErrors(); e != 0 {
		t.Errorf("%d store errors", e)
	}
}

// BenchmarkTake measures one Take against the Redis of PLINTH_TEST_REDIS,
// next to a PING of the same client: the difference is the script's work
// and the command's encoding. Keep runs short on shared machines:
//
//	PLINTH_TEST_REDIS=redis://127.0.0.1:6379/0 go test -run '^$' -bench Take -benchtime 200ms
func BenchmarkTake(b *testing.B) {
	rdb, prefix := testClient(b)
	s := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix})
	lim := normalized(middleware.Limit{Rate: 1_000_000, Per: time.Second})
	ctx := context.Background()
	// The floor: one round trip of the same client, a PING.
	b.Run("ping", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Take(ctx, "serial", time.Now(), lim); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		var seq atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			key := "p" + strconv.FormatInt(seq.Add(1), 10)
			for pb.Next() {
				if _, err := s.Take(ctx, key, time.Now(), lim); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
