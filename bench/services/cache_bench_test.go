package services

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/maypok86/otter/v2"
	"github.com/redis/go-redis/v9"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/ottercache"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/redisstore"
)

// The hit benchmarks read nKeys keys, all present, in a fixed order: every
// library gets the same keys in the same order, and a capacity of
// 2*nKeys, so that nothing is evicted.
const nKeys = 10_000

// cachedPage is a typical cached value: a small struct with a slice.
type cachedPage struct {
	Title string
	Views int
	Tags  []string
}

var (
	benchKeys = func() []string {
		k := make([]string, nKeys)
		for i := range k {
			k[i] = "page:" + strconv.Itoa(i)
		}
		return k
	}()
	benchPage  = cachedPage{Title: "a title", Views: 42, Tags: []string{"a", "b"}}
	benchBytes = []byte(`{"Title":"a title","Views":42,"Tags":["a","b"]}`)
)

// hitter is one library's hit: get returns whether key (one of keys) was
// found.
type hitter struct {
	name string
	keys []string
	get  func(key string) bool
}

func withPrefix(p string) []string {
	k := make([]string, nKeys)
	for i := range k {
		k[i] = p + benchKeys[i]
	}
	return k
}

func hitters(b *testing.B) []hitter {
	ctx := context.Background()

	// One store per hitter: each holds nKeys entries, as the peers do.
	newMem := func() *cache.MemoryStore {
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: 2 * nKeys})
		b.Cleanup(func() { m.Close() })
		return m
	}
	mem := newMem()
	pages := cache.New[cachedPage](newMem(), cache.Config[cachedPage]{})
	tagged := cache.New[cachedPage](newMem(), cache.Config[cachedPage]{Tags: []string{"pages"}})

	ot, err := ottercache.New(ottercache.Config{MaxEntries: 2 * nKeys})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ot.Close() })
	otPages := cache.New[cachedPage](ot, cache.Config[cachedPage]{})

	raw := otter.Must(&otter.Options[string, cachedPage]{MaximumSize: 2 * nKeys})
	b.Cleanup(func() { raw.StopAllGoroutines() })
	gl, err := lru.New[string, cachedPage](2 * nKeys)
	if err != nil {
		b.Fatal(err)
	}
	compute := func(context.Context) (cachedPage, error) { return benchPage, nil }
	bkeys, tkeys := withPrefix("b"), withPrefix("t")
	for i, k := range benchKeys {
		_ = mem.Set(ctx, bkeys[i], benchBytes, time.Hour)
		_, _ = pages.Remember(ctx, k, time.Hour, compute)
		_, _ = tagged.Remember(ctx, tkeys[i], time.Hour, compute)
		_, _ = otPages.Remember(ctx, k, time.Hour, compute)
		raw.Set(k, benchPage)
		gl.Add(k, benchPage)
	}
	return []hitter{
		{"golang-lru", benchKeys, func(k string) bool { _, ok := gl.Get(k); return ok }},
		{"otter", benchKeys, func(k string) bool { _, ok := raw.GetIfPresent(k); return ok }},
		{"plinth-memory-get", bkeys, func(k string) bool { _, ok, _ := mem.Get(ctx, k); return ok }},
		{"plinth-memory-remember", benchKeys, func(k string) bool {
			_, out, _ := pages.Fetch(ctx, k, time.Hour, compute)
			return out == cache.Hit
		}},
		{"plinth-memory-remember-tagged", tkeys, func(k string) bool {
			_, out, _ := tagged.Fetch(ctx, k, time.Hour, compute)
			return out == cache.Hit
		}},
		{"plinth-otter-remember", benchKeys, func(k string) bool {
			_, out, _ := otPages.Fetch(ctx, k, time.Hour, compute)
			return out == cache.Hit
		}},
	}
}

// The orders the hit benchmarks read the keys in: "uniform" walks them in
// turn, each read once per nKeys reads, the worst case of an LRU (every hit
// moves its entry, and nothing stays in the CPU's caches); "zipf" reads
// them with Zipf's law (s = 1.01, as caches' own benchmarks do), the skew of
// real traffic, where a few keys take most reads.
var orders = map[string][]int{
	"uniform": func() []int {
		o := make([]int, nKeys)
		for i := range o {
			o[i] = i
		}
		return o
	}(),
	"zipf": func() []int {
		z := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.01, 1, nKeys-1)
		o := make([]int, 1<<16)
		for i := range o {
			o[i] = int(z.Uint64())
		}
		return o
	}(),
}

// BenchmarkCacheHit: one hit, serially.
func BenchmarkCacheHit(b *testing.B) {
	hs := hitters(b)
	for _, order := range []string{"uniform", "zipf"} {
		seq := orders[order]
		for _, h := range hs {
			b.Run(order+"/"+h.name, func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if !h.get(h.keys[seq[i]]) {
						b.Fatal("miss")
					}
					i++
					if i == len(seq) {
						i = 0
					}
				}
			})
		}
	}
}

// BenchmarkCacheHitParallel: hits from GOMAXPROCS goroutines (RunParallel),
// each walking the order from its own offset.
func BenchmarkCacheHitParallel(b *testing.B) {
	hs := hitters(b)
	for _, order := range []string{"uniform", "zipf"} {
		seq := orders[order]
		for _, h := range hs {
			b.Run(order+"/"+h.name, func(b *testing.B) {
				b.ReportAllocs()
				var offset atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					i := int(offset.Add(1_237)) % len(seq)
					for pb.Next() {
						if !h.get(h.keys[seq[i]]) {
							b.Error("miss")
							return
						}
						i++
						if i == len(seq) {
							i = 0
						}
					}
				})
			})
		}
	}
}

// BenchmarkCacheStampede: per op, 64 goroutines Fetch one cold key at once
// (fn takes 1ms); computes/op is how many of them ran fn: 1 is single
// flight.
func BenchmarkCacheStampede(b *testing.B) {
	ctx := context.Background()
	mem := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer mem.Close()
	o := cache.New[string](mem, cache.Config[string]{})
	var computes atomic.Int64
	fn := func(context.Context) (string, error) {
		computes.Add(1)
		time.Sleep(time.Millisecond)
		return "v", nil
	}
	n := 0
	for b.Loop() {
		key := "cold:" + strconv.Itoa(n)
		n++
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() { _, _ = o.Remember(ctx, key, time.Hour, fn) })
		}
		wg.Wait()
	}
	b.ReportMetric(float64(computes.Load())/float64(n), "computes/op")
}

// redisURL returns PLINTH_TEST_REDIS or skips b.
func redisURL(b *testing.B) string {
	u := plinthtest.RedisURL(b)
	return u
}

// BenchmarkCacheRedisHit: one hit on Redis (a round trip over loopback):
// raw go-redis GET beside redisstore's CacheStore.Get and Of[string] and
// Of[cachedPage] Remember hits (the JSON decode of the struct is in both
// of the last pair: raw go-redis GET + json.Unmarshal is the peer).
func BenchmarkCacheRedisHit(b *testing.B) {
	u := redisURL(b)
	ctx := context.Background()
	opt, err := redis.ParseURL(u)
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	prefix := "plinth-bench-cache:"
	store := redisstore.NewCacheStore(redisstore.CacheStoreConfig{Client: rdb, Prefix: prefix})
	strs := cache.New[string](store, cache.Config[string]{})
	pages := cache.New[cachedPage](store, cache.Config[cachedPage]{})
	if err := strs.Set(ctx, "s", string(benchBytes), time.Hour); err != nil {
		b.Fatal(err)
	}
	if err := pages.Set(ctx, "p", benchPage, time.Hour); err != nil {
		b.Fatal(err)
	}
	defer rdb.Del(ctx, prefix+"s", prefix+"p")
	compute := func(context.Context) (cachedPage, error) { return benchPage, nil }
	computeStr := func(context.Context) (string, error) { return "", nil }
	for range 200 { // warm the pool and the connection, so that the first sub-benchmark does not pay them
		rdb.Get(ctx, prefix+"s")
	}

	b.Run("go-redis-get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rdb.Get(ctx, prefix+"s").Result(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rediscache-get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok, err := store.Get(ctx, "s"); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("rediscache-remember-string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, out, err := strs.Fetch(ctx, "s", time.Hour, computeStr); out != cache.Hit || err != nil {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("go-redis-get-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := rdb.Get(ctx, prefix+"p").Bytes()
			if err != nil {
				b.Fatal(err)
			}
			var p cachedPage
			if err := json.Unmarshal(s[2:], &p); err != nil { // 2: the entry's header
				b.Fatal(err)
			}
		}
	})
	b.Run("rediscache-remember-struct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, out, err := pages.Fetch(ctx, "p", time.Hour, compute); out != cache.Hit || err != nil {
				b.Fatal(out, err)
			}
		}
	})
}

var clockSink int64

// BenchmarkCacheClock: what reading the time costs, the reason Memory checks
// expiry against a coarse clock (an atomic load of a reading its own
// goroutine refreshes every 10ms) rather than time.Now per hit.
func BenchmarkCacheClock(b *testing.B) {
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			clockSink += time.Now().UnixNano()
		}
	})
	var coarse atomic.Int64
	coarse.Store(time.Now().UnixNano())
	b.Run("atomic-load", func(b *testing.B) {
		for b.Loop() {
			clockSink += coarse.Load()
		}
	})
}
