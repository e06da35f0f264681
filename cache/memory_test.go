package cache_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/cache/cachetest"

	"github.com/plinth-go/plinth/racetest"
)

func TestMemoryConformance(t *testing.T) {
	cachetest.Run(t, cachetest.Config{
		New: func(testing.TB) cache.Store { return cache.NewMemoryStore(cache.MemoryStoreConfig{}) },
	})
}

type page struct {
	Title string
	Views int
	Tags  []string
}

// TestHitAllocs: a hit allocates nothing on MemoryStore, by the byte API and by
// Of[T] (struct and string, with and without tags), serially and in
// parallel.
func TestHitAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	if err := m.Set(ctx, "bytes", []byte("value"), time.Hour); err != nil {
		t.Fatal(err)
	}
	pages := cache.New[page](m, cache.Config[page]{})
	tagged := cache.New[page](m, cache.Config[page]{Tags: []string{"pages", "site"}})
	strs := cache.New[string](m, cache.Config[string]{})
	compute := func(context.Context) (page, error) { return page{Title: "t", Views: 1, Tags: []string{"a"}}, nil }
	computeStr := func(context.Context) (string, error) { return "s", nil }
	if _, err := pages.Remember(ctx, "p", time.Hour, compute); err != nil {
		t.Fatal(err)
	}
	if _, err := strs.Remember(ctx, "s", time.Hour, computeStr); err != nil {
		t.Fatal(err)
	}
	_, _ = tagged.Remember(ctx, "tp", time.Hour, compute)
	cases := map[string]func(){
		"MemoryStore.Get": func() {
			if _, ok, _ := m.Get(ctx, "bytes"); !ok {
				t.Fatal("miss")
			}
		},
		"Of[struct].Remember": func() {
			if _, out, _ := pages.Fetch(ctx, "p", time.Hour, compute); out != cache.Hit {
				t.Fatal(out)
			}
		},
		"Of[struct] with two tags": func() {
			if _, out, _ := tagged.Fetch(ctx, "tp", time.Hour, compute); out != cache.Hit {
				t.Fatal(out)
			}
		},
		"Of[string].Remember": func() {
			if _, out, _ := strs.Fetch(ctx, "s", time.Hour, computeStr); out != cache.Hit {
				t.Fatal(out)
			}
		},
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per hit, want 0", name, n)
		}
	}
	// In parallel: AllocsPerRun counts every goroutine's allocations.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					_, _ = pages.Remember(ctx, "p", time.Hour, compute)
				}
			}
		})
	}
	n := testing.AllocsPerRun(1000, cases["Of[struct].Remember"])
	close(stop)
	wg.Wait()
	if n != 0 {
		t.Errorf("hits beside 4 goroutines hitting: %v allocations per hit, want 0", n)
	}
}

// TestTTL expires entries on a fake clock (synctest): the entry is served
// until its TTL, then not, and the sweeper reclaims entries nobody reads.
func TestTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{Shards: 4})
		defer m.Close()
		o := cache.New[string](m, cache.Config[string]{})
		_ = m.Set(ctx, "b", []byte("x"), time.Minute)
		_, _ = o.Remember(ctx, "v", time.Minute, func(context.Context) (string, error) { return "x", nil })
		for i := range 100 {
			_ = m.Set(ctx, "unread-"+strconv.Itoa(i), []byte("x"), 30*time.Second)
		}
		_ = m.Set(ctx, "forever", []byte("x"), 0)
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if _, ok, _ := m.Get(ctx, "b"); !ok {
			t.Fatal("expired before its TTL")
		}
		if _, ok, _ := o.Get(ctx, "v"); !ok {
			t.Fatal("a value expired before its TTL")
		}
		if n := m.Len(); n != 3 {
			t.Errorf("after 59s, %d entries; want the 100 unread 30s ones reclaimed by the sweeper, 3 left", n)
		}
		time.Sleep(time.Second + cache.DefaultResolution)
		synctest.Wait()
		if _, ok, _ := m.Get(ctx, "b"); ok {
			t.Fatal("served after its TTL")
		}
		if _, ok, _ := o.Get(ctx, "v"); ok {
			t.Fatal("a value served after its TTL")
		}
		if _, ok, _ := m.Get(ctx, "forever"); !ok {
			t.Fatal("an entry without TTL expired")
		}
	})
}

// TestFlood: a flood of distinct keys stays within the bounds, by count and
// by bytes, and the most recently used entries survive it.
func TestFlood(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: 1000, MaxBytes: -1, Shards: 8})
	defer m.Close()
	_ = m.Set(ctx, "hot", []byte("x"), time.Hour)
	for i := range 100_000 {
		_ = m.Set(ctx, "k"+strconv.Itoa(i), []byte("value"), time.Hour)
		if i%100 == 0 {
			_, _, _ = m.Get(ctx, "hot") // used: survives
		}
	}
	if n := m.Len(); n > 1000 {
		t.Errorf("%d entries after a flood, bound 1000", n)
	}
	if _, ok, _ := m.Get(ctx, "hot"); !ok {
		t.Error("a key read all along was evicted")
	}
	if _, ok, _ := m.Get(ctx, "k99999"); !ok {
		t.Error("the last key written was evicted")
	}
	if _, ok, _ := m.Get(ctx, "k0"); ok {
		t.Error("the first key written survived the flood")
	}

	b := cache.NewMemoryStore(cache.MemoryStoreConfig{MaxEntries: -1, MaxBytes: 1 << 20, Shards: 8})
	defer b.Close()
	o := cache.New[string](b, cache.Config[string]{})
	big := strings.Repeat("v", 1000)
	for i := range 20_000 {
		_ = b.Set(ctx, "k"+strconv.Itoa(i), []byte(big), time.Hour)
		_, _ = o.Remember(ctx, "v"+strconv.Itoa(i), time.Hour, func(context.Context) (string, error) { return big, nil })
	}
	if n := b.Bytes(); n > 1<<20 {
		t.Errorf("%d bytes after a flood, bound 1 MiB", n)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if before.HeapAlloc > 64<<20 {
		t.Errorf("heap %d MiB after a flood into a 1 MiB store", before.HeapAlloc>>20)
	}
	// A value larger than a shard's share is not kept, and evicts nothing.
	if err := b.Set(ctx, "huge", make([]byte, 1<<20), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Get(ctx, "huge"); ok {
		t.Error("a value larger than the shard was kept")
	}
}

func TestOpen(t *testing.T) {
	for _, tc := range []struct{ cfg, env, want string }{
		{"", "", ""},
		{"memory:", "", ""},
		{"", "memory:?max_entries=10&max_bytes=4096&shards=2", ""},
		{"memory:?max_entries=0", "", "positive integer"},
		{"memory:?max_entries=ten", "", "positive integer"},
		{"memory:?maxentries=10", "", "unknown parameter"},
		{"redis://127.0.0.1:6379", "", "plinth/redisstore"},
		{"", "memcached://x", "no opener for scheme memcached"},
		{"127.0.0.1:6379", "", "no"},
	} {
		t.Setenv(cache.EnvURL, tc.env)
		s, err := cache.Open(cache.OpenConfig{URL: tc.cfg})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q/%q: %v", tc.cfg, tc.env, err)
				continue
			}
			if _, ok := s.(*cache.MemoryStore); !ok {
				t.Errorf("%q/%q: a %T, want *MemoryStore", tc.cfg, tc.env, s)
			}
			s.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), cache.EnvURL) {
			t.Errorf("%q/%q: err %v, want one naming %s and saying %q", tc.cfg, tc.env, err, cache.EnvURL, tc.want)
		}
	}
	t.Setenv(cache.EnvURL, "memory:?max_entries=10&shards=2")
	m, err := cache.Open(cache.OpenConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range 100 {
		_ = m.Set(context.Background(), strconv.Itoa(i), nil, 0)
	}
	if n := m.(*cache.MemoryStore).Len(); n > 10 {
		t.Errorf("max_entries=10: %d entries", n)
	}
	var opened string
	t.Setenv(cache.EnvURL, "")
	s, err := cache.Open(cache.OpenConfig{URL: "fake://x", Openers: map[string]cache.Opener{"fake": func(u string) (cache.Store, error) {
		opened = u
		return cache.NewMemoryStore(cache.MemoryStoreConfig{}), nil
	}}})
	if err != nil || opened != "fake://x" {
		t.Fatalf("an opener: %q, %v", opened, err)
	}
	s.Close()
}

func TestSetupPanics(t *testing.T) {
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	// A codec of another type than T does not compile:
	// cache.Config[int]{Codec: cache.JSON[string]{}}.
	for want, f := range map[string]func(){
		"Config.Tags":    func() { cache.New[int](m, cache.Config[int]{Tags: []string{"a\nb"}}) },
		"Config.Lock":    func() { cache.New[int](m, cache.Config[int]{LockWait: time.Second}) },
		"Config.LockTTL": func() { cache.New[int](m, cache.Config[int]{Lock: true, LockTTL: -1}) },
		"needs a Store":  func() { cache.New[int](nil, cache.Config[int]{}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
					t.Errorf("recovered %v, want a panic naming %s", r, want)
				}
			}()
			f()
		}()
	}
}

// TestCodec: a custom codec is used on a byte store, and the default keeps
// strings and []byte as they are.
func TestCodec(t *testing.T) {
	ctx := context.Background()
	bs := byteStore{cache.NewMemoryStore(cache.MemoryStoreConfig{})}
	defer bs.Close()
	o := cache.New[string](bs, cache.Config[string]{})
	_, _ = o.Remember(ctx, "k", time.Hour, func(context.Context) (string, error) { return "héllo", nil })
	b, ok, _ := bs.Get(ctx, "k")
	if !ok || !strings.HasSuffix(string(b), "héllo") {
		t.Fatalf("stored %q", b)
	}
	j := cache.New[page](bs, cache.Config[page]{Codec: upper{}})
	_, _ = j.Remember(ctx, "p", time.Hour, func(context.Context) (page, error) { return page{Title: "x"}, nil })
	if v, out, _ := j.Fetch(ctx, "p", time.Hour, nil); out != cache.Hit || v.Title != "X" {
		t.Fatalf("custom codec: %+v, %v", v, out)
	}
}

// byteStore hides MemoryStore's ValueStore, so that Of takes the byte path
// (Redis's).
type byteStore struct{ cache.Store }

type upper struct{}

func (upper) Append(dst []byte, v page) ([]byte, error) {
	return cache.JSON[page]{}.Append(dst, v)
}
func (upper) Decode(b []byte) (page, error) {
	v, err := cache.JSON[page]{}.Decode(b)
	v.Title = strings.ToUpper(v.Title)
	return v, err
}

func TestByteStoreConformance(t *testing.T) {
	cachetest.Run(t, cachetest.Config{
		New: func(testing.TB) cache.Store { return byteStore{cache.NewMemoryStore(cache.MemoryStoreConfig{})} },
	})
}
