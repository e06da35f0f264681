package cache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/plinth-go/plinth/cache"
)

// TestMemoryTagFlood: a million distinct tags incremented (Invalidate with
// a tag taken from requests) keep the store within its bounds: the
// generations are entries of the LRU, evicted like the others, and the heap
// does not grow with the number of tags. Reading tags that have no
// generation stores nothing.
func TestMemoryTagFlood(t *testing.T) {
	const maxEntries, maxBytes = 1000, 64 << 10
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: maxEntries, MaxBytes: maxBytes, Shards: 4})
	defer m.Close()
	ctx := context.Background()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dst := make([]int64, 1)
	key := make([]byte, 0, 32)
	for i := range 1_000_000 {
		key = strconv.AppendInt(append(key[:0], "tag:"...), int64(i), 10)
		if err := cache.Invalidate(ctx, m, string(key)); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			if n, b := m.Len(), m.Bytes(); n > maxEntries || b > maxBytes {
				t.Fatalf("after %d tags: %d entries, %d bytes; bounds %d, %d", i+1, n, b, maxEntries, maxBytes)
			}
		}
	}
	n, b := m.Len(), m.Bytes()
	if n == 0 || n > maxEntries || b > maxBytes {
		t.Fatalf("after a million tags: %d entries, %d bytes; want some, within %d and %d", n, b, maxEntries, maxBytes)
	}
	for i := range 100_000 {
		if err := m.Counters(ctx, []string{"read:" + strconv.Itoa(i)}, dst); err != nil {
			t.Fatal(err)
		}
	}
	if n2 := m.Len(); n2 != n {
		t.Fatalf("reading tags without a generation changed the entries: %d, was %d", n2, n)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	// A generation per tag kept for ever would hold about 70 MB here.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Fatalf("the heap grew by %d bytes after a million tags", grown)
	}
	runtime.KeepAlive(m)
}

// TestMemoryEvictedGenerationStaysStale: an entry written before its tag
// was invalidated stays a miss after the tag's generation is evicted,
// however the tag is read or incremented next; a fresh value is then
// cached and served again. The tag "t" is read through Counters (the byte
// path an Of takes on a Store that is not a ValueStore), so its generation
// lives in the LRU; the entry is kept hot with Get, which does not touch
// the generation.
func TestMemoryEvictedGenerationStaysStale(t *testing.T) {
	ctx := context.Background()
	for _, before := range []int{0, 1, 5} { // invalidations before the entry is written
		t.Run(fmt.Sprint(before), func(t *testing.T) {
			m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: 8, Shards: 1})
			defer m.Close()
			o := cache.New[string](byteStore{m}, cache.Config[string]{Tags: []string{"t"}})
			for range before {
				if err := cache.Invalidate(ctx, m, "t"); err != nil {
					t.Fatal(err)
				}
			}
			if err := o.Set(ctx, "k", "old", 0); err != nil {
				t.Fatal(err)
			}
			if err := cache.Invalidate(ctx, m, "t"); err != nil {
				t.Fatal(err)
			}
			// evict fills the shard with other entries, twice its bound,
			// keeping k hot: t's generation, read by nothing, is evicted.
			evict := func() {
				for i := range 16 {
					_ = m.Set(ctx, "filler"+strconv.Itoa(i), []byte("x"), 0)
					if _, ok, _ := m.Get(ctx, "k"); !ok {
						t.Fatal("k itself was evicted: the test would prove nothing")
					}
				}
			}
			evict()
			if v, ok, err := o.Get(ctx, "k"); ok || err != nil {
				t.Fatalf("after its tag's generation was evicted: %q, %v, %v; want the stale entry a miss", v, ok, err)
			}
			// Incrementing the tag again, and evicting it again, never
			// brings the old entry back.
			for range 10 {
				if err := cache.Invalidate(ctx, m, "t"); err != nil {
					t.Fatal(err)
				}
				if v, ok, _ := o.Get(ctx, "k"); ok {
					t.Fatalf("stale %q visible again after an invalidation", v)
				}
				evict()
				if v, ok, _ := o.Get(ctx, "k"); ok {
					t.Fatalf("stale %q visible again after an eviction", v)
				}
			}
			// A value written now is served.
			if err := o.Set(ctx, "k", "new", 0); err != nil {
				t.Fatal(err)
			}
			if v, ok, _ := o.Get(ctx, "k"); !ok || v != "new" {
				t.Fatalf("fresh value: %q, %v", v, ok)
			}
		})
	}
}

// TestMemoryGenerationsOracle: random writes, invalidations, reads and
// floods (of entries and of other tags' generations) on a tiny MemoryStore,
// through Ofs on the byte path (generations in the LRU) and on the value
// path (pinned generations): a read never returns a value written before
// an invalidation of its tag, or any value but the last written.
func TestMemoryGenerationsOracle(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"bytes", "values"} {
		t.Run(path, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: 16, Shards: 1})
			defer m.Close()
			var store cache.Store = m
			if path == "bytes" {
				store = byteStore{m}
			}
			const tags, keys = 3, 2
			ofs := make([]*cache.Of[string], tags)
			for i := range ofs {
				ofs[i] = cache.New[string](store, cache.Config[string]{Tags: []string{"t" + strconv.Itoa(i)}})
			}
			type written struct {
				v     string
				stale bool
			}
			last := map[string]*written{}
			seq := 0
			for step := range 20000 {
				tag := rng.IntN(tags)
				key := fmt.Sprintf("t%d/k%d", tag, rng.IntN(keys))
				switch op := rng.IntN(10); {
				case op < 3:
					seq++
					v := strconv.Itoa(seq)
					if err := ofs[tag].Set(ctx, key, v, 0); err != nil {
						t.Fatal(err)
					}
					last[key] = &written{v: v}
				case op < 5:
					if err := cache.Invalidate(ctx, m, "t"+strconv.Itoa(tag)); err != nil {
						t.Fatal(err)
					}
					for k, w := range last {
						if k[:len("tN")] == fmt.Sprintf("t%d", tag) {
							w.stale = true
						}
					}
				case op < 7:
					v, ok, err := ofs[tag].Get(ctx, key)
					if err != nil {
						t.Fatal(err)
					}
					if w := last[key]; ok && (w == nil || w.stale || w.v != v) {
						t.Fatalf("step %d: %s read %q; last written %+v", step, key, v, w)
					}
				case op < 8:
					for range 4 {
						_ = m.Set(ctx, "filler"+strconv.Itoa(rng.IntN(100)), []byte("x"), time.Hour)
					}
				default:
					for range 4 {
						_ = cache.Invalidate(ctx, m, "other"+strconv.Itoa(rng.IntN(1000)))
					}
				}
			}
		})
	}
}

// TestMemoryPinnedGeneration: the generation an Of[T] holds (its tags, read
// without a lookup) survives a flood and keeps counting from where it was.
func TestMemoryPinnedGeneration(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: 8, Shards: 1})
	defer m.Close()
	for range 3 {
		_, _ = m.Incr(ctx, "p")
	}
	o := cache.New[string](m, cache.Config[string]{Tags: []string{"p"}}) // pins p at 3
	if err := o.Set(ctx, "k", "v", 0); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		_, _ = m.Incr(ctx, "flood"+strconv.Itoa(i))
	}
	if n := m.Len(); n > 8 {
		t.Fatalf("%d entries, bound 8", n)
	}
	dst := make([]int64, 1)
	if err := m.Counters(ctx, []string{"p"}, dst); err != nil || dst[0] != 3 {
		t.Fatalf("pinned generation after the flood: %d, %v; want 3", dst[0], err)
	}
	if n, err := m.Incr(ctx, "p"); err != nil || n != 4 {
		t.Fatalf("Incr of the pinned generation: %d, %v; want 4", n, err)
	}
	if v, ok, _ := o.Get(ctx, "k"); ok {
		t.Fatalf("invalidated entry read: %q", v)
	}
}
