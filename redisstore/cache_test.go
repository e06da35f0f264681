package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/cachetest"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/racetest"
	"github.com/plinth-go/plinth/redisstore"
)

// testPrefix is a key prefix of the test's own, its keys deleted after it.
func cachePrefix(t testing.TB, rawURL string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "plinth-cache-test:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return
		}
		rdb := redis.NewClient(opt)
		defer rdb.Close()
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
	})
	return prefix
}

func openStore(t testing.TB, rawURL, prefix string) cache.Store {
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	s, err := cache.Open(cache.OpenConfig{URL: rawURL + sep + "prefix=" + prefix, Openers: redisstore.CacheOpeners()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCacheConformance(t *testing.T) {
	u := plinthtest.RedisURL(t)
	prefixes := map[cache.Store]string{}
	cachetest.Run(t, cachetest.Config{
		New: func(t testing.TB) cache.Store {
			p := cachePrefix(t, u)
			s := openStore(t, u, p)
			prefixes[s] = p
			return s
		},
		Second: func(t testing.TB, first cache.Store) cache.Store {
			return openStore(t, u, prefixes[first])
		},
	})
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestCacheUnreachable: with Redis's port closed, Remember computes and returns,
// fast, and readiness stays 200 with the cache degraded.
func TestCacheUnreachable(t *testing.T) {
	store, err := cache.Open(cache.OpenConfig{URL: "redis://" + closedPort(t) + "/0", Openers: redisstore.CacheOpeners()})
	if err != nil {
		t.Fatal(err)
	}
	o := cache.New[string](store, cache.Config[string]{Tags: []string{"report"}, Lock: true})
	var calls atomic.Int32
	for i := range 3 {
		v, out, err := o.Fetch(t.Context(), "k", time.Minute, func(context.Context) (string, error) {
			calls.Add(1)
			return "computed", nil
		})
		if err != nil || v != "computed" || out != cache.Bypassed {
			t.Fatalf("Fetch %d with Redis down = %q, %v, %v; want the computed value, bypassed", i, v, out, err)
		}
	}
	if calls.Load() != 3 || o.Failures() == 0 {
		t.Fatalf("%d computations, %d failures recorded", calls.Load(), o.Failures())
	}
	if err := cache.Invalidate(t.Context(), store, "report"); err == nil {
		t.Fatal("Invalidate with Redis down: no error")
	}

	app := plinth.New()
	app.Get("/", func(c *plinth.Ctx) error { return nil })
	app.ReadinessCheck("db", 0, func(context.Context) error { return nil })
	cache.Attach(app, store)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/readyz", nil)
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || body["cache"] != "degraded" || body["db"] != "ok" {
		t.Fatalf("readiness with Redis down: %d %v; want 200 with cache degraded and db ok", res.StatusCode, body)
	}
}

// TestCacheReadinessOK: with Redis up, the cache check is ok.
func TestCacheReadinessOK(t *testing.T) {
	u := plinthtest.RedisURL(t)
	store := openStore(t, u, cachePrefix(t, u))
	if err := cache.Check(store)(t.Context()); err != nil {
		t.Fatal(err)
	}
	store.Close()
}

func TestOpenCacheStoreErrors(t *testing.T) {
	_, err := cache.Open(cache.OpenConfig{URL: "redis://127.0.0.1:6379/0"})
	if err == nil || !strings.Contains(err.Error(), "redisstore.CacheOpeners()") {
		t.Fatalf("redis:// without its opener: %v", err)
	}
	_, err = cache.Open(cache.OpenConfig{URL: "redis://:secret@127.0.0.1:6379/notadb", Openers: redisstore.CacheOpeners()})
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a bad redis URL: %v (want an error without the password)", err)
	}
}

// TestCacheHitAllocs: a Remember hit on Redis allocates at most one more than
// go-redis's own GET (the string copied out of the reply).
func TestCacheHitAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	u := plinthtest.RedisURL(t)
	prefix := cachePrefix(t, u)
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	store := redisstore.NewCacheStore(redisstore.CacheStoreConfig{Client: rdb, Prefix: prefix})
	o := cache.New[string](store, cache.Config[string]{})
	ctx := context.Background()
	if err := o.Set(ctx, "k", "value", time.Minute); err != nil {
		t.Fatal(err)
	}
	key := prefix + "k"
	raw := testing.AllocsPerRun(200, func() {
		if _, err := rdb.Get(ctx, key).Result(); err != nil {
			t.Fatal(err)
		}
	})
	ours := testing.AllocsPerRun(200, func() {
		if _, out, err := o.Fetch(ctx, "k", time.Minute, nil); out != cache.Hit || err != nil {
			t.Fatal(out, err)
		}
	})
	if ours > raw+1 {
		t.Errorf("a Remember hit allocates %v times, go-redis's GET %v: want at most one more", ours, raw)
	}
}
