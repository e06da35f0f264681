package middleware

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/racetest"
)

// fakeClock is a clock tests move by hand; safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t0.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
func (c *fakeClock) Set(t time.Time)         { c.ns.Store(t.UnixNano()) }
func okHandler(c *plinth.Ctx) error          { return c.Text(200, "ok") }
func reqFrom(remote string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = remote
	return r
}
func newApp(mw plinth.Middleware) *plinth.App {
	a := plinth.Bare()
	a.Logger = discardLogger()
	a.Use(mw)
	a.Get("/", okHandler)
	return a
}

func TestRateLimiterBurstRefusalRefill(t *testing.T) {
	clock := newFakeClock()
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Second, Burst: 3}, Clock: clock.Now})
	app := newApp(rl.Middleware())
	const client = "192.0.2.1:1234"
	steps := []struct {
		advance    time.Duration
		status     int
		rateLimit  string
		retryAfter string
	}{
		{0, 200, `"default";r=2;t=1`, ""},
		{0, 200, `"default";r=1;t=2`, ""},
		{0, 200, `"default";r=0;t=3`, ""},
		{0, 429, `"default";r=0;t=3`, "1"},
		{400 * time.Millisecond, 429, `"default";r=0;t=3`, "1"}, // 2.6s to full: t rounds up
		{600 * time.Millisecond, 200, `"default";r=0;t=3`, ""},  // one token back
		{2 * time.Second, 200, `"default";r=1;t=2`, ""},
		{time.Minute, 200, `"default";r=2;t=1`, ""}, // full again
	}
	for i, st := range steps {
		clock.Advance(st.advance)
		w := serve(app, reqFrom(client))
		if w.Code != st.status {
			t.Fatalf("step %d: status %d, want %d", i, w.Code, st.status)
		}
		if st.status == 429 {
			checkProblem(t, w, 429, st.retryAfter)
		} else if ra := w.Header().Get("Retry-After"); ra != "" {
			t.Errorf("step %d: Retry-After %q on an allowed request", i, ra)
		}
		if got := w.Header().Get("RateLimit-Policy"); got != `"default";q=3;w=3` {
			t.Errorf("step %d: RateLimit-Policy %q", i, got)
		}
		if got := w.Header().Get("RateLimit"); got != st.rateLimit {
			t.Errorf("step %d: RateLimit %q, want %q", i, got, st.rateLimit)
		}
	}
	if rl.Limited() != 2 {
		t.Errorf("Limited %d, want 2", rl.Limited())
	}
}

func TestRateLimiterRetryAfterRoundsUp(t *testing.T) {
	clock := newFakeClock()
	// One token per 90s: w is 90, Retry-After counts down in whole seconds.
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Name: "slow", Rate: 2, Per: 3 * time.Minute, Burst: 1}, Clock: clock.Now})
	app := newApp(rl.Middleware())
	if w := serve(app, reqFrom("192.0.2.1:1")); w.Code != 200 || w.Header().Get("RateLimit-Policy") != `"slow";q=1;w=90` {
		t.Fatalf("first: %d %q", w.Code, w.Header().Get("RateLimit-Policy"))
	}
	clock.Advance(500 * time.Millisecond)
	w := serve(app, reqFrom("192.0.2.1:1"))
	checkProblem(t, w, 429, "90") // 89.5s rounds up
	if got := w.Header().Get("RateLimit"); got != `"slow";r=0;t=90` {
		t.Errorf("RateLimit %q", got)
	}
}

func TestRateLimiterKeysIndependent(t *testing.T) {
	clock := newFakeClock()
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Hour}, Clock: clock.Now})
	app := newApp(rl.Middleware())
	for _, c := range []string{"192.0.2.1:1", "192.0.2.2:1", "[2001:db8::1]:1", "[2001:db8:0:2::1]:1"} {
		if w := serve(app, reqFrom(c)); w.Code != 200 {
			t.Errorf("%s first: %d", c, w.Code)
		}
	}
	// Same address, other port; and IPv6 addresses are keyed by their /64.
	for _, c := range []string{"192.0.2.1:999", "[2001:db8::1]:2", "[2001:db8::ffff:1]:3"} {
		if w := serve(app, reqFrom(c)); w.Code != 429 {
			t.Errorf("%s second: %d, want 429", c, w.Code)
		}
	}
	if w := serve(app, reqFrom("[2001:db8:0:1::1]:1")); w.Code != 200 {
		t.Errorf("another /64: %d", w.Code)
	}

	// IPv6PrefixLen 128 keys single addresses; with a custom store the
	// address is formatted.
	for _, store := range []RateLimitStore{nil, &stringStore{MemoryRateLimitStore: NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})}} {
		rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Hour}, IPv6PrefixLen: 128, Store: store, Clock: clock.Now})
		app := newApp(rl.Middleware())
		for _, c := range []string{"[2001:db8::1]:1", "[2001:db8::2]:1"} {
			if w := serve(app, reqFrom(c)); w.Code != 200 {
				t.Errorf("/128, %s: %d", c, w.Code)
			}
		}
		if w := serve(app, reqFrom("[2001:db8::2]:9")); w.Code != 429 {
			t.Errorf("/128, same address again: %d", w.Code)
		}
		if ss, ok := store.(*stringStore); ok && ss.last != "2001:db8::2" {
			t.Errorf("custom store got key %q", ss.last)
		}
	}
}

// stringStore is a MemoryRateLimitStore behind the plain RateLimitStore interface, recording
// the last key.
type stringStore struct {
	*MemoryRateLimitStore
	last string
}

func (s *stringStore) Take(ctx context.Context, key string, now time.Time, lim Limit) (Result, error) {
	s.last = key
	return s.MemoryRateLimitStore.Take(ctx, key, now, lim)
}

func TestRateLimiterKeyFunc(t *testing.T) {
	clock := newFakeClock()
	rl := NewRateLimiter(RateLimiterConfig{
		Limit: Limit{Rate: 1, Per: time.Hour},
		Clock: clock.Now,
		Key: func(c *plinth.Ctx) (string, error) {
			k := c.Request().Header.Get("X-API-Key")
			switch k {
			case "":
				return "", plinth.Unauthorized("an API key is required")
			case "internal":
				return "", nil // exempt
			}
			return "key:" + k, nil
		},
	})
	app := newApp(rl.Middleware())
	get := func(key string) *httptest.ResponseRecorder {
		r := reqFrom("192.0.2.1:1")
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		return serve(app, r)
	}
	checkProblem(t, get(""), 401, "")
	if w := get("a"); w.Code != 200 {
		t.Fatalf("a: %d", w.Code)
	}
	if w := get("a"); w.Code != 429 {
		t.Fatalf("a again: %d, want 429", w.Code)
	}
	if w := get("b"); w.Code != 200 {
		t.Fatalf("b (same address, other key): %d", w.Code)
	}
	for range 3 {
		w := get("internal")
		if w.Code != 200 || w.Header().Get("RateLimit") != "" {
			t.Fatalf("exempt: %d, RateLimit %q", w.Code, w.Header().Get("RateLimit"))
		}
	}
}

func TestRateLimiterOmitHeaders(t *testing.T) {
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Hour}, OmitHeaders: true})
	app := newApp(rl.Middleware())
	for i, want := range []int{200, 429} {
		w := serve(app, reqFrom("192.0.2.1:1"))
		if w.Code != want || w.Header().Get("RateLimit") != "" || w.Header().Get("RateLimit-Policy") != "" {
			t.Errorf("request %d: %d, headers %v", i, w.Code, w.Header())
		}
		if want == 429 && w.Header().Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
}

// TestRateLimitUncachedValues uses a bucket too large for the header cache.
func TestRateLimiterUncachedValues(t *testing.T) {
	clock := newFakeClock()
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Name: "big", Rate: 100, Per: time.Second, Burst: 5000}, Clock: clock.Now})
	if rl.values != nil {
		t.Fatal("expected no header cache for a 5000-token bucket with w=50")
	}
	app := newApp(rl.Middleware())
	w := serve(app, reqFrom("192.0.2.1:1"))
	if got := w.Header().Get("RateLimit"); got != `"big";r=4999;t=1` {
		t.Errorf("RateLimit %q", got)
	}
	if got := w.Header().Get("RateLimit-Policy"); got != `"big";q=5000;w=50` {
		t.Errorf("RateLimit-Policy %q", got)
	}
}

type failingStore struct{ calls atomic.Int64 }

func (s *failingStore) Take(context.Context, string, time.Time, Limit) (Result, error) {
	s.calls.Add(1)
	return Result{}, errors.New("connection refused")
}

func TestRateLimiterStoreFailure(t *testing.T) {
	for _, closed := range []bool{false, true} {
		var logs bytes.Buffer
		st := &failingStore{}
		rl := NewRateLimiter(RateLimiterConfig{
			Limit:      Limit{Rate: 1},
			Store:      st,
			FailClosed: closed,
			Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
		})
		app := newApp(rl.Middleware())
		for range 5 {
			w := serve(app, reqFrom("192.0.2.1:1"))
			if closed {
				checkProblem(t, w, 503, "1")
			} else if w.Code != 200 {
				t.Fatalf("fail open: status %d", w.Code)
			}
			if w.Header().Get("RateLimit") != "" {
				t.Error("RateLimit header without a store answer")
			}
		}
		if st.calls.Load() != 5 || rl.StoreErrors() != 5 {
			t.Errorf("closed=%v: %d calls, %d errors, want 5 5", closed, st.calls.Load(), rl.StoreErrors())
		}
		// Logged, but at most once a second: once here.
		if n := strings.Count(logs.String(), "rate limit store failed"); n != 1 {
			t.Errorf("closed=%v: logged %d times, want 1:\n%s", closed, n, logs.String())
		}
		if !strings.Contains(logs.String(), "connection refused") {
			t.Errorf("the log does not carry the error: %s", logs.String())
		}
	}
}

// TestRateLimitConcurrentExactBurst fires M simultaneous requests for one
// key: exactly Burst must pass, with the default key (MemoryRateLimitStore's address
// path) and with a string key.
func TestRateLimiterConcurrentExactBurst(t *testing.T) {
	const burst, m = 10, 200
	for _, name := range []string{"address", "string"} {
		t.Run(name, func(t *testing.T) {
			cfg := RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Hour, Burst: burst}}
			if name == "string" {
				cfg.Key = func(c *plinth.Ctx) (string, error) { return "tenant-1", nil }
			}
			rl := NewRateLimiter(cfg)
			app := newApp(rl.Middleware())
			var ok, limited atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range m {
				wg.Go(func() {
					r := reqFrom("198.51.100.7:4000")
					<-start
					switch w := serve(app, r); w.Code {
					case 200:
						ok.Add(1)
					case 429:
						limited.Add(1)
					default:
						t.Errorf("status %d", w.Code)
					}
				})
			}
			close(start)
			wg.Wait()
			if ok.Load() != burst || limited.Load() != m-burst || rl.Limited() != m-burst {
				t.Errorf("%d allowed, %d limited (Limited %d); want %d and %d", ok.Load(), limited.Load(), rl.Limited(), burst, m-burst)
			}
		})
	}
}

func TestRateLimiterAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	var ns atomic.Int64
	ns.Store(t0.UnixNano())
	// The clock moves a second per request, so the bucket is always full
	// and every request is allowed.
	clock := func() time.Time { return time.Unix(0, ns.Add(int64(time.Second))) }
	for _, tc := range []struct {
		name string
		key  func(*plinth.Ctx) (string, error)
	}{
		{"client address", nil},
		{"string key", func(*plinth.Ctx) (string, error) { return "tenant-1", nil }},
	} {
		rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 10, Burst: 20}, Clock: clock, Key: tc.key})
		app := newApp(rl.Middleware())
		req := reqFrom("192.0.2.1:1234")
		w := &nopWriter{h: http.Header{}}
		app.ServeHTTP(w, req) // creates the key's entry and the header value
		n := testing.AllocsPerRun(200, func() {
			clear(w.h)
			app.ServeHTTP(w, req)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per allowed request, want 0", tc.name, n)
		}
		if got := w.h.Get("RateLimit"); got != `"default";r=19;t=1` {
			t.Errorf("%s: RateLimit %q", tc.name, got)
		}
	}

	// A refusal allocates its problem only, even for a long window whose
	// whole table of values is not kept.
	fixed := func() time.Time { return t0 }
	rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 1, Per: time.Hour}, Clock: fixed})
	if rl.values != nil {
		t.Fatal("expected no full header table for w=3600")
	}
	app := newApp(rl.Middleware())
	req := reqFrom("192.0.2.1:1234")
	w := &nopWriter{h: http.Header{}}
	app.ServeHTTP(w, req)
	app.ServeHTTP(w, req) // refused: renders the values
	n := testing.AllocsPerRun(200, func() {
		clear(w.h)
		app.ServeHTTP(w, req)
	})
	if n != 1 {
		t.Errorf("%v allocations per refused request, want 1 (the problem)", n)
	}
	if got, ra := w.h.Get("RateLimit"), w.h.Get("Retry-After"); got != `"default";r=0;t=3600` || ra != "3600" {
		t.Errorf("refused: RateLimit %q, Retry-After %q", got, ra)
	}
}

func TestRateLimiterBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  RateLimiterConfig
		want string // substring of the error
	}{
		{RateLimiterConfig{}, "Limit.Rate"},
		{RateLimiterConfig{Limit: Limit{Rate: 1, Name: `"`}}, "Limit.Name"},
		{RateLimiterConfig{Limit: Limit{Rate: 1, Per: -time.Second}}, "Limit.Per"},
		{RateLimiterConfig{Limit: Limit{Rate: 1, Burst: -1}}, "Limit.Burst"},
		{RateLimiterConfig{Limit: Limit{Rate: 1}, IPv6PrefixLen: 129}, "RateLimiterConfig.IPv6PrefixLen"},
		{RateLimiterConfig{Limit: Limit{Rate: 1}, IPv6PrefixLen: -1}, "RateLimiterConfig.IPv6PrefixLen"},
	} {
		err := tc.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate() = %v, want an error naming %s", tc.cfg, err, tc.want)
			continue
		}
		func() {
			defer func() {
				if p := recover(); p == nil {
					t.Errorf("%+v: no panic", tc.cfg)
				} else if p != err.Error() {
					t.Errorf("%+v: panicked with %v, want %q", tc.cfg, p, err.Error())
				}
			}()
			NewRateLimiter(tc.cfg)
		}()
	}
	if err := (RateLimiterConfig{Limit: Limit{Rate: 1}, IPv6PrefixLen: 128}).Validate(); err != nil {
		t.Errorf("a valid configuration: %v", err)
	}
}

// oddStore answers whatever result it holds, as a remote store might.
type oddStore struct{ res Result }

func (s *oddStore) Take(context.Context, string, time.Time, Limit) (Result, error) { return s.res, nil }

// TestRateLimitOddStoreResults checks that values outside the limiter's own
// ranges are rendered, not looked up out of bounds.
func TestRateLimiterOddStoreResults(t *testing.T) {
	for _, tc := range []struct {
		res        Result
		status     int
		rateLimit  string
		retryAfter string
	}{
		{Result{Allowed: true, Remaining: 500, Reset: 2 * time.Hour}, 200, `"default";r=500;t=7200`, ""},
		{Result{Allowed: true, Remaining: -3, Reset: -time.Second}, 200, `"default";r=0;t=0`, ""},
		{Result{RetryAfter: 3 * time.Hour, Reset: 5 * time.Hour}, 429, `"default";r=0;t=18000`, "10800"},
		{Result{RetryAfter: -time.Second}, 429, `"default";r=0;t=0`, "1"},
	} {
		rl := NewRateLimiter(RateLimiterConfig{Limit: Limit{Rate: 2, Burst: 4}, Store: &oddStore{tc.res}})
		w := serve(newApp(rl.Middleware()), reqFrom("192.0.2.1:1"))
		if w.Code != tc.status || w.Header().Get("RateLimit") != tc.rateLimit || w.Header().Get("Retry-After") != tc.retryAfter {
			t.Errorf("%+v: %d, RateLimit %q, Retry-After %q; want %d, %q, %q", tc.res, w.Code,
				w.Header().Get("RateLimit"), w.Header().Get("Retry-After"), tc.status, tc.rateLimit, tc.retryAfter)
		}
	}
}
