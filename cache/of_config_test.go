package cache_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
)

var errBroken = errors.New("connection refused")

// brokenStore is a byte Store whose backend does not answer: reads, writes
// and counters fail.
type brokenStore struct{ cache.Store }

func (brokenStore) Get(context.Context, string) ([]byte, bool, error) { return nil, false, errBroken }
func (brokenStore) Set(context.Context, string, []byte, time.Duration) error {
	return errBroken
}
func (brokenStore) Counters(context.Context, []string, []int64) error { return errBroken }

// TestOfStoreFailures: a Store that fails costs no error: fn's value is
// returned (Bypassed), each failed operation is counted by Failures and
// logged, once a minute, on Config.Logger. A Store that works counts no
// failure.
func TestOfStoreFailures(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	fn := func(context.Context) (string, error) { return "v", nil }

	o := cache.New[string](brokenStore{m}, cache.Config[string]{Logger: logger})
	if v, out, err := o.Fetch(ctx, "k", time.Minute, fn); v != "v" || out != cache.Bypassed || err != nil {
		t.Fatalf("Fetch on a failing store = %q, %v, %v; want \"v\", bypassed", v, out, err)
	}
	if n := o.Failures(); n != 2 {
		t.Fatalf("Failures() = %d after a failed read and a failed write, want 2", n)
	}
	if n := strings.Count(logs.String(), "the store failed"); n != 1 {
		t.Fatalf("%d lines logged on Config.Logger, want 1: %q", n, logs.String())
	}
	if !strings.Contains(logs.String(), errBroken.Error()) {
		t.Fatalf("the log line does not name the error: %q", logs.String())
	}

	// With a tag: the read fails, then the generations; nothing is
	// written.
	tagged := cache.New[string](brokenStore{m}, cache.Config[string]{Tags: []string{"t"}, Logger: logger})
	if v, out, err := tagged.Fetch(ctx, "k", time.Minute, fn); v != "v" || out != cache.Bypassed || err != nil {
		t.Fatalf("tagged Fetch on a failing store = %q, %v, %v; want \"v\", bypassed", v, out, err)
	}
	if n := tagged.Failures(); n != 2 {
		t.Fatalf("Failures() = %d after a failed read and failed generations, want 2", n)
	}

	for name, s := range map[string]cache.Store{"values": m, "bytes": byteStore{m}} {
		for _, tags := range [][]string{nil, {"t"}} {
			ok := cache.New[string](s, cache.Config[string]{Tags: tags, Logger: logger})
			key := name + strings.Join(tags, ",")
			if _, out, err := ok.Fetch(ctx, key, time.Minute, fn); out != cache.Miss || err != nil {
				t.Fatalf("%s, tags %q: first Fetch %v, %v", name, tags, out, err)
			}
			if _, out, err := ok.Fetch(ctx, key, time.Minute, fn); out != cache.Hit || err != nil {
				t.Fatalf("%s, tags %q: second Fetch %v, %v", name, tags, out, err)
			}
			if n := ok.Failures(); n != 0 {
				t.Fatalf("%s, tags %q: Failures() = %d on a store that works", name, tags, n)
			}
		}
	}
}

// TestOfMaxKeyLen: a key of MaxKeyLen bytes is cached; one byte more is
// ErrBadKey, and fn does not run.
func TestOfMaxKeyLen(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	for name, s := range map[string]cache.Store{"values": m, "bytes": byteStore{m}} {
		o := cache.New[string](s, cache.Config[string]{})
		var calls int
		fn := func(context.Context) (string, error) { calls++; return "v", nil }
		key := strings.Repeat("k", cache.MaxKeyLen)
		if v, out, err := o.Fetch(ctx, key, time.Minute, fn); v != "v" || out != cache.Miss || err != nil {
			t.Fatalf("%s: a key of MaxKeyLen bytes: %q, %v, %v; want \"v\" computed", name, v, out, err)
		}
		if v, out, err := o.Fetch(ctx, key, time.Minute, fn); v != "v" || out != cache.Hit || err != nil {
			t.Fatalf("%s: a key of MaxKeyLen bytes, again: %q, %v, %v; want a hit", name, v, out, err)
		}
		if _, _, err := o.Fetch(ctx, key+"k", time.Minute, fn); !errors.Is(err, cache.ErrBadKey) {
			t.Fatalf("%s: a key of MaxKeyLen+1 bytes: err %v, want ErrBadKey", name, err)
		}
		if calls != 1 {
			t.Fatalf("%s: fn ran %d times, want once", name, calls)
		}
		_ = m.Delete(ctx, key)
	}
}

// valueStore is a ValueStore other than MemoryStore (as the otter module's
// is), and a Locker; it records when the lock was tried, since start.
type valueStore struct {
	*cache.MemoryStore
	start time.Time
	tries []time.Duration
}

func (s *valueStore) TryLock(ctx context.Context, key string, ttl time.Duration) (func(), bool, error) {
	s.tries = append(s.tries, time.Since(s.start))
	if len(s.tries) > 1000 {
		return nil, false, errors.New("the lock tried 1000 times")
	}
	return s.MemoryStore.TryLock(ctx, key, ttl)
}

// TestOfOtherValueStore: an Of keeps Go values in any ValueStore, with or
// without tags.
func TestOfOtherValueStore(t *testing.T) {
	ctx := context.Background()
	s := &valueStore{MemoryStore: cache.NewMemoryStore(cache.MemoryStoreConfig{})}
	defer s.Close()
	for _, tags := range [][]string{nil, {"t"}} {
		o := cache.New[page](s, cache.Config[page]{Tags: tags})
		want := page{Title: "t", Views: 3}
		if _, out, err := o.Fetch(ctx, "p", time.Minute, func(context.Context) (page, error) { return want, nil }); out != cache.Miss || err != nil {
			t.Fatalf("tags %q: first Fetch %v, %v", tags, out, err)
		}
		if v, ok := s.GetValue("p"); !ok || v == nil {
			t.Fatalf("tags %q: nothing kept by SetValue", tags)
		}
		if v, out, err := o.Fetch(ctx, "p", time.Minute, nil); out != cache.Hit || err != nil || v.Title != want.Title || v.Views != want.Views {
			t.Fatalf("tags %q: second Fetch %+v, %v, %v; want a hit", tags, v, out, err)
		}
		_ = o.Delete(ctx, "p")
	}
}

// holdLock makes a (an Of with Config.Lock and no compute timeout) take the
// lock of key and compute it until the returned release is called.
func holdLock(t *testing.T, a *cache.Of[string], key string) (release func()) {
	hang := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = a.Remember(context.Background(), key, 0, func(context.Context) (string, error) {
			<-hang
			return "a", nil
		})
	}()
	synctest.Wait()
	return func() {
		close(hang)
		<-done
	}
}

// TestOfLockTTL: a holder's lock lasts LockTTL (default DefaultLockTTL)
// when no compute timeout cuts it: another instance, polling for it, takes
// it at most one poll (200ms) after it expires, not before.
func TestOfLockTTL(t *testing.T) {
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		want time.Duration
	}{
		{"default", 0, cache.DefaultLockTTL},
		{"3s", 3 * time.Second, 3 * time.Second},
		{"20s", 20 * time.Second, 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
				defer m.Close()
				a := cache.New[string](m, cache.Config[string]{Lock: true, LockTTL: tc.ttl, ComputeTimeout: plinth.Off})
				b := cache.New[string](m, cache.Config[string]{Lock: true, LockWait: time.Hour, ComputeTimeout: plinth.Off})
				release := holdLock(t, a, "k")
				defer release()
				start := time.Now()
				var took time.Duration
				v, out, err := b.Fetch(context.Background(), "k", 0, func(context.Context) (string, error) {
					took = time.Since(start)
					return "b", nil
				})
				if v != "b" || out != cache.Miss || err != nil {
					t.Fatalf("b = %q, %v, %v; want \"b\" computed", v, out, err)
				}
				if took < tc.want || took > tc.want+200*time.Millisecond {
					t.Fatalf("b computed %v after a took a lock of %v; want within a poll after it", took, tc.want)
				}
			})
		})
	}
}

// TestOfLockWait: while another instance holds the lock, a miss polls the
// Store from 10ms doubling to 200ms, for LockWait (default
// DefaultLockWait), then computes without the lock.
func TestOfLockWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait time.Duration
		want time.Duration
	}{
		{"default", 0, cache.DefaultLockWait},
		{"1s", time.Second, time.Second},
		{"7s", 7 * time.Second, 7 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
				defer m.Close()
				a := cache.New[string](m, cache.Config[string]{Lock: true, LockTTL: time.Hour, ComputeTimeout: plinth.Off})
				s := &valueStore{MemoryStore: m}
				b := cache.New[string](s, cache.Config[string]{Lock: true, LockWait: tc.wait, ComputeTimeout: plinth.Off})
				release := holdLock(t, a, "k")
				defer release()
				s.start = time.Now()
				var took time.Duration
				v, out, err := b.Fetch(context.Background(), "k", 0, func(context.Context) (string, error) {
					took = time.Since(s.start)
					return "b", nil
				})
				if v != "b" || out != cache.Miss || err != nil {
					t.Fatalf("b = %q, %v, %v; want \"b\" computed", v, out, err)
				}
				if took != tc.want {
					t.Fatalf("b computed after waiting %v, want LockWait %v", took, tc.want)
				}
				var want []time.Duration
				for d, backoff := time.Duration(0), 10*time.Millisecond; ; {
					want = append(want, d)
					if d >= tc.want {
						break
					}
					d = min(d+backoff, tc.want)
					backoff = min(2*backoff, 200*time.Millisecond)
				}
				if len(s.tries) != len(want) {
					t.Fatalf("the lock tried at %v; want %v", s.tries, want)
				}
				for i := range want {
					if s.tries[i] != want[i] {
						t.Fatalf("the lock tried at %v; want %v", s.tries, want)
					}
				}
			})
		})
	}
}

// countingStore is a byte Store that counts the reads of counters: the
// round trips a hit with tags costs on Redis.
type countingStore struct {
	cache.Store
	counters atomic.Int32
}

func (s *countingStore) Counters(ctx context.Context, names []string, dst []int64) error {
	s.counters.Add(1)
	return s.Store.Counters(ctx, names, dst)
}

// TestOfCountersRoundTrips: on a byte Store, a hit without tags reads no
// counters; a hit with tags reads them once.
func TestOfCountersRoundTrips(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	s := &countingStore{Store: m}
	fn := func(context.Context) (string, error) { return "v", nil }

	plain := cache.New[string](s, cache.Config[string]{})
	for i := range 3 {
		if _, out, err := plain.Fetch(ctx, "plain", time.Minute, fn); err != nil || (i > 0 && out != cache.Hit) {
			t.Fatalf("untagged Fetch %d: %v, %v", i, out, err)
		}
	}
	if n := s.counters.Load(); n != 0 {
		t.Fatalf("an untagged miss and two hits read counters %d times, want 0", n)
	}

	tagged := cache.New[string](s, cache.Config[string]{Tags: []string{"a", "b"}})
	if err := tagged.Set(ctx, "tagged", "v", time.Minute); err != nil {
		t.Fatal(err)
	}
	before := s.counters.Load()
	for range 3 {
		if v, ok, err := tagged.Get(ctx, "tagged"); v != "v" || !ok || err != nil {
			t.Fatalf("tagged Get = %q, %v, %v", v, ok, err)
		}
	}
	if n := s.counters.Load() - before; n != 3 {
		t.Fatalf("three hits with two tags read counters %d times, want 3 (one each)", n)
	}
}

// TestOfMalformedEntries: on a byte Store, an Of reads an entry of its own
// format, an empty value included, and takes anything else under its key
// (truncated, another version, another count of tags) for a miss.
func TestOfMalformedEntries(t *testing.T) {
	ctx := context.Background()
	m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
	defer m.Close()
	s := byteStore{m}
	plain := cache.New[string](s, cache.Config[string]{})
	tagged := cache.New[string](s, cache.Config[string]{Tags: []string{"t"}})

	if err := plain.Set(ctx, "empty", "", 0); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := plain.Get(ctx, "empty"); !ok || v != "" || err != nil {
		t.Fatalf("an empty string stored: Get = %q, %v, %v; want a hit", v, ok, err)
	}
	if err := tagged.Set(ctx, "empty", "", 0); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := tagged.Get(ctx, "empty"); !ok || v != "" || err != nil {
		t.Fatalf("an empty string stored with a tag: Get = %q, %v, %v; want a hit", v, ok, err)
	}

	for _, tc := range []struct {
		name string
		of   *cache.Of[string]
		raw  []byte
		hit  bool
	}{
		{"well formed, no tags", plain, []byte{0xc1, 0, 'x'}, true},
		{"well formed, a tag", tagged, []byte{0xc1, 1, 0, 'x'}, true},
		{"empty", plain, []byte{}, false},
		{"the version alone", plain, []byte{0xc1}, false},
		{"another version", plain, []byte{0xc0, 0, 'x'}, false},
		{"a count of tags cut short", plain, []byte{0xc1, 0x80}, false},
		{"another count of tags", plain, []byte{0xc1, 1, 0, 'x'}, false},
		{"fewer tags", tagged, []byte{0xc1, 0, 'x'}, false},
		{"a generation missing", tagged, []byte{0xc1, 1}, false},
		{"a generation cut short", tagged, []byte{0xc1, 1, 0x80}, false},
	} {
		if err := m.Set(ctx, "raw", tc.raw, 0); err != nil {
			t.Fatal(err)
		}
		v, ok, err := tc.of.Get(ctx, "raw")
		if err != nil || ok != tc.hit || (ok && v != "x") {
			t.Errorf("%s (% x): Get = %q, %v, %v; want hit %v", tc.name, tc.raw, v, ok, err, tc.hit)
		}
	}
}

// TestOfFailureLogCadence: Store failures are logged at most once a minute:
// those within the minute after a line logged are counted, not logged; the
// first a minute after it is logged.
func TestOfFailureLogCadence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
		defer m.Close()
		var logs bytes.Buffer
		o := cache.New[string](brokenStore{m}, cache.Config[string]{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		lines := func() int { return strings.Count(logs.String(), "the store failed") }
		for i, step := range []struct {
			sleep time.Duration
			lines int
		}{
			{0, 1},
			{time.Second, 1},
			{time.Minute - time.Second - time.Nanosecond, 1},
			{time.Nanosecond, 2}, // a minute after the first line
			{time.Minute - time.Nanosecond, 2},
			{time.Nanosecond, 3},
		} {
			time.Sleep(step.sleep)
			if _, _, err := o.Get(ctx, "k"); !errors.Is(err, errBroken) {
				t.Fatalf("step %d: Get on a failing store: err %v", i, err)
			}
			if n := lines(); n != step.lines {
				t.Fatalf("step %d: %d lines logged, want %d: %q", i, n, step.lines, logs.String())
			}
			if n := o.Failures(); n != uint64(i+1) {
				t.Fatalf("step %d: Failures() = %d, want %d", i, n, i+1)
			}
		}
	})
}
