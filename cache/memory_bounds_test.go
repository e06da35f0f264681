package cache_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth/cache"
)

// overhead is what MemoryStoreConfig.MaxBytes documents an entry counts
// besides its key and value: 64 bytes of bookkeeping.
const overhead = 64

// TestMemoryByteAccounting: Bytes counts each entry's key, its value and 64
// bytes of bookkeeping, exactly, whichever way the entry was written (Set,
// SetValue, an Of[T], a tag's generation), and gives them back when the
// entry is replaced or deleted.
func TestMemoryByteAccounting(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: -1, MaxBytes: -1})
	defer m.Close()
	var want int64
	check := func(what string, n int) {
		t.Helper()
		if got := m.Bytes(); got != want {
			t.Fatalf("after %s: Bytes() = %d, want %d", what, got, want)
		}
		if got := m.Len(); got != n {
			t.Fatalf("after %s: Len() = %d, want %d", what, got, n)
		}
	}
	check("nothing", 0)

	if err := m.Set(ctx, "ab", []byte("xyz"), time.Hour); err != nil {
		t.Fatal(err)
	}
	want += 2 + 3 + overhead
	check("Set of a 2-byte key and a 3-byte value", 1)

	// A generation: its key is the tag behind a NUL byte, its value an
	// int64.
	if _, err := m.Incr(ctx, "tag"); err != nil {
		t.Fatal(err)
	}
	want += 1 + 3 + 8 + overhead
	check("Incr of a new 3-byte tag", 2)
	if _, err := m.Incr(ctx, "tag"); err != nil {
		t.Fatal(err)
	}
	check("Incr of an existing tag", 2)

	if err := m.SetValue("sv", struct{}{}, 10, time.Hour); err != nil {
		t.Fatal(err)
	}
	want += 2 + 10 + overhead
	check("SetValue of size 10", 3)

	// An Of[string] counts the value as the bytes it would store: the
	// entry's version, its count of tags (one byte each here), the string.
	o := cache.New[string](m, cache.Config[string]{})
	if err := o.Set(ctx, "key", "value", time.Hour); err != nil {
		t.Fatal(err)
	}
	want += 3 + (2 + 5) + overhead
	check("an Of[string] Set of a 5-byte string", 4)

	if err := m.Set(ctx, "ab", []byte("a longer value"), time.Hour); err != nil {
		t.Fatal(err)
	}
	want += int64(len("a longer value") - len("xyz"))
	check("a Set replacing a value", 4)

	if err := m.Delete(ctx, "ab"); err != nil {
		t.Fatal(err)
	}
	want -= 2 + int64(len("a longer value")) + overhead
	check("Delete", 3)
	if err := o.Delete(ctx, "key"); err != nil {
		t.Fatal(err)
	}
	want -= 3 + 7 + overhead
	check("the Of's Delete", 2)
}

// TestMemoryUnbounded: a negative MaxEntries or MaxBytes removes that
// bound: nothing is evicted for it.
func TestMemoryUnbounded(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: -1, MaxBytes: -1})
	defer m.Close()
	const n = 2000
	big := make([]byte, 1<<20)
	for i := range n {
		v := []byte("x")
		if i == 0 {
			v = big // more than the default MaxBytes' share of a shard
		}
		if err := m.Set(ctx, "k"+strconv.Itoa(i), v, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Len(); got != n {
		t.Fatalf("Len() = %d after %d Sets without bounds", got, n)
	}
	for i := range n {
		if _, ok, _ := m.Get(ctx, "k"+strconv.Itoa(i)); !ok {
			t.Fatalf("k%d evicted from a store without bounds", i)
		}
	}

	// Only the byte bound: the count is free.
	b := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: -1, MaxBytes: n * (5 + 1 + overhead)})
	defer b.Close()
	for i := range n {
		_ = b.Set(ctx, "k"+strconv.Itoa(1000+i), []byte("x"), time.Hour) // 5+1+64 bytes each
	}
	if got := b.Len(); got != n {
		t.Fatalf("MaxEntries -1, MaxBytes for %d entries: Len() = %d", n, got)
	}
}

// TestMemoryMaxEntries: a shard keeps MaxEntries entries (the bound is
// inclusive) and evicts the least recently used one to make room.
func TestMemoryMaxEntries(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: 4, MaxBytes: -1})
	defer m.Close()
	set := func(k string) {
		t.Helper()
		if err := m.Set(ctx, k, []byte(k), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		set("k" + strconv.Itoa(i))
	}
	if n := m.Len(); n != 4 {
		t.Fatalf("4 entries under MaxEntries 4: Len() = %d", n)
	}
	set("k4")
	if n := m.Len(); n != 4 {
		t.Fatalf("a 5th entry: Len() = %d, want 4", n)
	}
	if _, ok, _ := m.Get(ctx, "k0"); ok {
		t.Fatal("the least recently used entry survived a 5th")
	}
	if _, ok, _ := m.Get(ctx, "k1"); !ok { // now the most recently used
		t.Fatal("k1 evicted instead of k0")
	}
	set("k5")
	if _, ok, _ := m.Get(ctx, "k2"); ok {
		t.Fatal("k2, the least recently used, survived")
	}
	for _, k := range []string{"k1", "k3", "k4", "k5"} {
		if _, ok, _ := m.Get(ctx, k); !ok {
			t.Fatalf("%s evicted; want k2 alone (k1 was read)", k)
		}
	}
}

// TestMemoryMaxBytes: a shard keeps entries up to MaxBytes exactly (the
// bound is inclusive), evicts the least recently used ones to stay within
// it, keeps an entry as large as the whole shard and refuses a larger one,
// which then evicts nothing.
func TestMemoryMaxBytes(t *testing.T) {
	ctx := context.Background()
	const size = 2 + 10 + overhead // "kN" and 10 bytes
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: -1, MaxBytes: 3 * size})
	defer m.Close()
	ten := []byte("0123456789")
	for i := 1; i <= 3; i++ {
		_ = m.Set(ctx, "k"+strconv.Itoa(i), ten, time.Hour)
	}
	if n, b := m.Len(), m.Bytes(); n != 3 || b != 3*size {
		t.Fatalf("three entries filling MaxBytes exactly: %d entries, %d bytes; want 3, %d", n, b, 3*size)
	}
	_ = m.Set(ctx, "k4", ten, time.Hour)
	if n, b := m.Len(), m.Bytes(); n != 3 || b != 3*size {
		t.Fatalf("a 4th entry: %d entries, %d bytes; want 3, %d", n, b, 3*size)
	}
	if _, ok, _ := m.Get(ctx, "k1"); ok {
		t.Fatal("the least recently used entry survived")
	}

	// As large as the shard: kept, alone.
	whole := make([]byte, 3*size-len("big")-overhead)
	_ = m.Set(ctx, "big", whole, time.Hour)
	if _, ok, _ := m.Get(ctx, "big"); !ok {
		t.Fatal("an entry of exactly MaxBytes was not kept")
	}
	if n, b := m.Len(), m.Bytes(); n != 1 || b != 3*size {
		t.Fatalf("after an entry of MaxBytes: %d entries, %d bytes; want it alone", n, b)
	}
	// One byte larger: not kept, and the entry there stays.
	_ = m.Set(ctx, "big2", whole, time.Hour)
	if _, ok, _ := m.Get(ctx, "big2"); ok {
		t.Fatal("an entry of MaxBytes+1 was kept")
	}
	if _, ok, _ := m.Get(ctx, "big"); !ok {
		t.Fatal("an entry too large to keep evicted another")
	}
}

// largestKept checks that a store's shards each hold share bytes: an
// entry of share bytes is kept, one of share+1 is not (the bounds are split
// evenly between the shards, whichever shard a key falls in).
func largestKept(t *testing.T, m *cache.MemoryStore, share int) {
	t.Helper()
	ctx := context.Background()
	_ = m.Set(ctx, "a", make([]byte, share-1-overhead), 0)
	_ = m.Set(ctx, "b", make([]byte, share-1-overhead+1), 0)
	if _, ok, _ := m.Get(ctx, "a"); !ok {
		t.Errorf("an entry of %d bytes, a shard's share, was not kept", share)
	}
	if _, ok, _ := m.Get(ctx, "b"); ok {
		t.Errorf("an entry of %d bytes, over a shard's share (%d), was kept", share+1, share)
	}
}

// TestMemoryShards: Shards is rounded up to a power of two, and lowered so
// that each shard holds an entry at least; the default is 16 per
// GOMAXPROCS; the bounds are split evenly between the shards.
func TestMemoryShards(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    cache.MemoryStoreConfig
		shards int
	}{
		{"1", cache.MemoryStoreConfig{Shards: 1}, 1},
		{"2", cache.MemoryStoreConfig{Shards: 2}, 2},
		{"3 rounded up", cache.MemoryStoreConfig{Shards: 3}, 4},
		{"5 rounded up", cache.MemoryStoreConfig{Shards: 5}, 8},
		{"8", cache.MemoryStoreConfig{Shards: 8}, 8},
		{"as many as MaxEntries", cache.MemoryStoreConfig{Shards: 4, MaxEntries: 4}, 4},
		{"fewer for MaxEntries 5", cache.MemoryStoreConfig{Shards: 16, MaxEntries: 5}, 4},
		{"fewer for MaxEntries 1", cache.MemoryStoreConfig{Shards: 4, MaxEntries: 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.MaxBytes = int64(tc.shards * 1000)
			m := cache.NewMemoryStore(cfg)
			defer m.Close()
			largestKept(t, m, 1000)
		})
	}
	t.Run("default", func(t *testing.T) {
		// GOMAXPROCS 3: 48 shards, rounded up to 64.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxBytes: 64 * 1000})
		defer m.Close()
		largestKept(t, m, 1000)
		// GOMAXPROCS 1: at least 16.
		runtime.GOMAXPROCS(1)
		m1 := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxBytes: 16 * 1000})
		defer m1.Close()
		largestKept(t, m1, 1000)
	})
}

// TestMemoryExpiresAtTTL: on the store's clock, an entry is served until
// the tick before its TTL and is a miss from the tick at its TTL on, by the
// byte API and by an Of (sweeps kept out of the way: a read expires it).
func TestMemoryExpiresAtTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, SweepEvery: time.Hour})
		defer m.Close()
		o := cache.New[string](m, cache.Config[string]{})
		const ttl = time.Second
		if err := m.Set(ctx, "b", []byte("x"), ttl); err != nil {
			t.Fatal(err)
		}
		if err := o.Set(ctx, "v", "x", ttl); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl - cache.DefaultResolution)
		synctest.Wait()
		if _, ok, _ := m.Get(ctx, "b"); !ok {
			t.Fatal("bytes: a miss one tick before the TTL")
		}
		if _, ok, _ := o.Get(ctx, "v"); !ok {
			t.Fatal("value: a miss one tick before the TTL")
		}
		time.Sleep(cache.DefaultResolution)
		synctest.Wait()
		if _, ok, _ := m.Get(ctx, "b"); ok {
			t.Fatal("bytes: served at its TTL")
		}
		if _, ok, _ := o.Get(ctx, "v"); ok {
			t.Fatal("value: served at its TTL")
		}
		if n := m.Len(); n != 0 {
			t.Fatalf("%d entries after the expired ones were read; want them reclaimed", n)
		}
	})
}

// TestMemorySweepCadence: every SweepEvery (default 1s), the sweeper
// walks the next eighth of the shards (one at least) and reclaims the
// entries expired by then, those expiring at that very tick included, and
// nothing between two sweeps; within 8 periods every shard is walked.
func TestMemorySweepCadence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    cache.MemoryStoreConfig
		period time.Duration // SweepEvery, resolved
		res    time.Duration // Resolution, resolved
		sweeps int           // periods to walk every shard
	}{
		{"16 shards, defaults", cache.MemoryStoreConfig{Shards: 16}, cache.DefaultSweepEvery, cache.DefaultResolution, 8},
		{"32 shards", cache.MemoryStoreConfig{Shards: 32}, cache.DefaultSweepEvery, cache.DefaultResolution, 8},
		{"8 shards, set", cache.MemoryStoreConfig{Shards: 8, SweepEvery: 300 * time.Millisecond, Resolution: 50 * time.Millisecond}, 300 * time.Millisecond, 50 * time.Millisecond, 8},
		{"2 shards", cache.MemoryStoreConfig{Shards: 2, SweepEvery: 2 * time.Second}, 2 * time.Second, cache.DefaultResolution, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				m := cache.NewMemoryStore(tc.cfg)
				defer m.Close()
				start := time.Now()
				// Enough keys that every shard holds some, all expiring at
				// the first sweep.
				const n = 4000
				for i := range n {
					if err := m.Set(ctx, "k"+strconv.Itoa(i), []byte("x"), tc.period); err != nil {
						t.Fatal(err)
					}
				}
				lenAt := func(d time.Duration) int {
					time.Sleep(d - time.Since(start))
					synctest.Wait()
					return m.Len()
				}
				prev := n
				for k := 1; k <= tc.sweeps; k++ {
					mark := time.Duration(k) * tc.period
					if got := lenAt(mark - tc.res); got != prev {
						t.Fatalf("%v, a tick before sweep %d: %d entries, want %d: reclaimed between sweeps", mark-tc.res, k, got, prev)
					}
					got := lenAt(mark)
					if got >= prev {
						t.Fatalf("%v, sweep %d: %d entries, were %d: the sweep reclaimed nothing", mark, k, got, prev)
					}
					if k < tc.sweeps && got == 0 {
						t.Fatalf("%v, sweep %d of %d: every shard swept already", mark, k, tc.sweeps)
					}
					prev = got
				}
				if prev != 0 {
					t.Fatalf("after %d sweeps, %d expired entries left: not every shard was walked", tc.sweeps, prev)
				}
			})
		})
	}
}

// TestMemoryShardKeepsMostRecent: a flood into a single shard leaves its
// MaxEntries most recently written keys, exactly.
func TestMemoryShardKeepsMostRecent(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 1, MaxEntries: 100, MaxBytes: -1})
	defer m.Close()
	for i := range 1000 {
		_ = m.Set(ctx, "k"+strconv.Itoa(i), []byte(strings.Repeat("x", i%7)), time.Hour)
	}
	for i := range 1000 {
		_, ok, _ := m.Get(ctx, "k"+strconv.Itoa(i))
		if want := i >= 900; ok != want {
			t.Fatalf("k%d kept: %v, want %v", i, ok, want)
		}
	}
}
