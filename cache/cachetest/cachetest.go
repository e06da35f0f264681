// Package cachetest is the conformance suite every cache.Store runs (MemoryStore
// here, Redis and otter in their modules), so that each feature of package
// cache works the same on each: entries and TTLs, bad keys, counters,
// locks, and Of's single flight, compute timeout, tags and outcomes; with
// two instances on one backend, a hit across them, a stampede computed once
// between them and a lock that does not outlive the compute timeout.
package cachetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/cache"
)

// Config says how to make the stores under test.
type Config struct {
	// New returns an empty Store, closed by the suite at the test's end.
	New func(t testing.TB) cache.Store

	// Second, when set, returns another Store on the same backend as
	// first (another instance of the application): the cross-instance
	// tests run.
	Second func(t testing.TB, first cache.Store) cache.Store
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, c Config) {
	open := func(t *testing.T) cache.Store {
		s := c.New(t)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	t.Run("entries", func(t *testing.T) { testEntries(t, open(t)) })
	t.Run("bad keys", func(t *testing.T) { testBadKeys(t, open(t)) })
	t.Run("ttl", func(t *testing.T) { testTTL(t, open(t)) })
	t.Run("counters", func(t *testing.T) { testCounters(t, open(t)) })
	t.Run("locks", func(t *testing.T) { testLocks(t, open(t)) })
	t.Run("remember", func(t *testing.T) { testRemember(t, open(t)) })
	t.Run("stampede", func(t *testing.T) { testStampede(t, open(t)) })
	t.Run("waiters honour their context", func(t *testing.T) { testWaiterContext(t, open(t)) })
	t.Run("tags", func(t *testing.T) { testTags(t, open(t)) })
	t.Run("errors and panics", func(t *testing.T) { testErrors(t, open(t)) })
	t.Run("lock held by a dead holder", func(t *testing.T) { testDeadHolder(t, open(t)) })
	t.Run("compute timeout", func(t *testing.T) { testComputeTimeout(t, open(t)) })
	t.Run("compute timeout: abandoned computation", func(t *testing.T) { testAbandoned(t, open(t)) })
	if c.Second != nil {
		second := func(t *testing.T, first cache.Store) cache.Store {
			s := c.Second(t, first)
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
		t.Run("second instance reads a hit", func(t *testing.T) {
			a := open(t)
			testSecondInstance(t, a, second(t, a))
		})
		t.Run("stampede across instances", func(t *testing.T) {
			a := open(t)
			testStampedeAcross(t, a, second(t, a))
		})
		t.Run("compute timeout across instances", func(t *testing.T) {
			a := open(t)
			testComputeTimeoutAcross(t, a, second(t, a))
		})
	}
}

type report struct {
	Key   string
	Count int
	Tags  []string
}

func testEntries(t *testing.T, s cache.Store) {
	ctx := t.Context()
	if _, ok, err := s.Get(ctx, "missing"); ok || err != nil {
		t.Fatalf("Get of a missing key = %v, %v; want a miss", ok, err)
	}
	v := []byte("value one")
	if err := s.Set(ctx, "k", v, time.Minute); err != nil {
		t.Fatal(err)
	}
	copy(v, "XXXXX") // the store keeps its own copy
	if got, ok, err := s.Get(ctx, "k"); !ok || err != nil || string(got) != "value one" {
		t.Fatalf("Get = %q, %v, %v; want \"value one\"", got, ok, err)
	}
	if err := s.Set(ctx, "k", []byte("two"), 0); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Get(ctx, "k"); !ok || string(got) != "two" {
		t.Fatalf("after an overwrite Get = %q, %v", got, ok)
	}
	if err := s.Set(ctx, "empty", nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Get(ctx, "empty"); !ok || len(got) != 0 {
		t.Fatalf("an empty value: Get = %q, %v; want a hit with no bytes", got, ok)
	}
	if err := s.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k"); ok {
		t.Fatal("Get after Delete hit")
	}
	if err := s.Delete(ctx, "never-set"); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	long := strings.Repeat("k", cache.MaxKeyLen)
	if err := s.Set(ctx, long, []byte("x"), time.Minute); err != nil {
		t.Fatalf("a key of MaxKeyLen bytes: %v", err)
	}
	if _, ok, _ := s.Get(ctx, long); !ok {
		t.Fatal("a key of MaxKeyLen bytes was not kept")
	}
	if err := s.Set(ctx, "ключ/ü 🙂", []byte("x"), time.Minute); err != nil {
		t.Fatalf("a UTF-8 key: %v", err)
	}
}

// BadKeys are keys every Store and Of refuses with ErrBadKey.
var BadKeys = map[string]string{
	"over 1 KiB":    strings.Repeat("k", cache.MaxKeyLen+1),
	"empty":         "",
	"newline":       "a\nb",
	"carriage ret.": "a\rb",
	"NUL":           "a\x00b",
	"DEL":           "a\x7fb",
	"unit sep.":     "a\x1fgen:b",
}

func testBadKeys(t *testing.T, s cache.Store) {
	ctx := t.Context()
	for name, k := range BadKeys {
		if _, _, err := s.Get(ctx, k); !errors.Is(err, cache.ErrBadKey) {
			t.Errorf("%s: Get err = %v, want ErrBadKey", name, err)
		}
		if err := s.Set(ctx, k, []byte("x"), time.Minute); !errors.Is(err, cache.ErrBadKey) {
			t.Errorf("%s: Set err = %v, want ErrBadKey", name, err)
		}
		if err := s.Delete(ctx, k); !errors.Is(err, cache.ErrBadKey) {
			t.Errorf("%s: Delete err = %v, want ErrBadKey", name, err)
		}
		if _, err := s.Incr(ctx, k); !errors.Is(err, cache.ErrBadKey) {
			t.Errorf("%s: Incr err = %v, want ErrBadKey", name, err)
		}
		var calls atomic.Int32
		o := cache.New[string](s, cache.Config[string]{})
		_, err := o.Remember(ctx, k, time.Minute, func(context.Context) (string, error) { calls.Add(1); return "v", nil })
		if !errors.Is(err, cache.ErrBadKey) || calls.Load() != 0 {
			t.Errorf("%s: Remember err = %v after %d computations, want ErrBadKey and none", name, err, calls.Load())
		}
	}
}

func testTTL(t *testing.T, s cache.Store) {
	ctx := t.Context()
	written := time.Now()
	if err := s.Set(ctx, "short", []byte("x"), 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "long", []byte("x"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "forever", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	// (Checked only while younger than its TTL: on a loaded machine the
	// Get may come later.)
	if _, ok, _ := s.Get(ctx, "short"); !ok && time.Since(written) < 400*time.Millisecond {
		t.Fatal("an entry with a 500ms TTL missed at once")
	}
	// Poll: expiry is checked against each store's clock, which may tick
	// coarsely (MemoryStore: every 10ms; otter: its own).
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, ok, err := s.Get(ctx, "short")
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an entry with a 500ms TTL still hit after 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, k := range []string{"long", "forever"} {
		if _, ok, _ := s.Get(ctx, k); !ok {
			t.Errorf("%s: expired with the short one", k)
		}
	}
}

func testCounters(t *testing.T, s cache.Store) {
	ctx := t.Context()
	dst := []int64{-1, -1}
	if err := s.Counters(ctx, []string{"c1", "c2"}, dst); err != nil || dst[0] != 0 || dst[1] != 0 {
		t.Fatalf("fresh counters = %v, %v; want 0 0", dst, err)
	}
	for want := int64(1); want <= 3; want++ {
		if n, err := s.Incr(ctx, "c1"); err != nil || n != want {
			t.Fatalf("Incr = %d, %v; want %d", n, err, want)
		}
	}
	if err := s.Counters(ctx, []string{"c1", "c2"}, dst); err != nil || dst[0] != 3 || dst[1] != 0 {
		t.Fatalf("counters = %v, %v; want 3 0", dst, err)
	}
	// A counter and an entry of the same name are apart.
	if err := s.Set(ctx, "c1", []byte("entry"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Incr(ctx, "c1"); err != nil || n != 4 {
		t.Fatalf("Incr beside an entry of its name = %d, %v; want 4", n, err)
	}
	if b, ok, _ := s.Get(ctx, "c1"); !ok || string(b) != "entry" {
		t.Fatalf("the entry beside a counter = %q, %v", b, ok)
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { _, _ = s.Incr(ctx, "c2") })
	}
	wg.Wait()
	if err := s.Counters(ctx, []string{"c2"}, dst[:1]); err != nil || dst[0] != 50 {
		t.Fatalf("50 concurrent Incr = %v, %v", dst[0], err)
	}
}

func testLocks(t *testing.T, s cache.Store) {
	l, ok := s.(cache.Locker)
	if !ok {
		t.Skip("not a cache.Locker")
	}
	ctx := t.Context()
	rel, ok, err := l.TryLock(ctx, "k", time.Minute)
	if err != nil || !ok {
		t.Fatalf("TryLock of a free lock = %v, %v", ok, err)
	}
	if _, ok, err := l.TryLock(ctx, "k", time.Minute); ok || err != nil {
		t.Fatalf("TryLock of a held lock = %v, %v; want false", ok, err)
	}
	if _, ok, _ := l.TryLock(ctx, "other", time.Minute); !ok {
		t.Fatal("a lock on another key was refused")
	}
	rel()
	taken := time.Now()
	rel2, ok, _ := l.TryLock(ctx, "k", 500*time.Millisecond)
	if !ok {
		t.Fatal("TryLock after release refused")
	}
	rel() // a stale release must not free the new holder's lock
	// (Checked only while the lock is younger than its TTL.)
	if _, ok, _ := l.TryLock(ctx, "k", time.Minute); ok && time.Since(taken) < 400*time.Millisecond {
		t.Fatal("a second release freed another holder's lock")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, ok, _ := l.TryLock(ctx, "k", time.Minute)
		if ok {
			r()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a lock with a 500ms TTL was still held after 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	rel2() // expired and retaken meanwhile: harmless
	if _, _, err := l.TryLock(ctx, "a\nb", time.Minute); !errors.Is(err, cache.ErrBadKey) {
		t.Fatalf("TryLock of a bad key: %v", err)
	}
}

func testRemember(t *testing.T, s cache.Store) {
	ctx := t.Context()
	o := cache.New[report](s, cache.Config[report]{})
	var calls atomic.Int32
	fn := func(context.Context) (report, error) {
		n := calls.Add(1)
		return report{Key: "r1", Count: int(n), Tags: []string{"a", "b"}}, nil
	}
	v, out, err := o.Fetch(ctx, "r1", time.Minute, fn)
	if err != nil || out != cache.Miss || v.Count != 1 || v.Key != "r1" {
		t.Fatalf("first Fetch = %+v, %v, %v; want a miss computing Count 1", v, out, err)
	}
	for range 3 {
		v, out, err = o.Fetch(ctx, "r1", time.Minute, fn)
		if err != nil || out != cache.Hit || v.Count != 1 || len(v.Tags) != 2 {
			t.Fatalf("Fetch after a miss = %+v, %v, %v; want a hit of Count 1", v, out, err)
		}
	}
	if got, ok, err := o.Get(ctx, "r1"); !ok || err != nil || got.Count != 1 {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
	if err := o.Delete(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if v, out, _ := o.Fetch(ctx, "r1", time.Minute, fn); out != cache.Miss || v.Count != 2 {
		t.Fatalf("Fetch after Delete = %+v, %v; want a miss computing Count 2", v, out)
	}
	if err := o.Set(ctx, "r2", report{Count: 42}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, out, _ := o.Fetch(ctx, "r2", time.Minute, fn); out != cache.Hit || v.Count != 42 {
		t.Fatalf("Fetch after Set = %+v, %v", v, out)
	}
	// A string Of keeps the bytes as they are: readable by a byte Get on
	// stores that keep bytes.
	so := cache.New[string](s, cache.Config[string]{})
	if v, err := so.Remember(ctx, "s", time.Minute, func(context.Context) (string, error) { return "plain", nil }); err != nil || v != "plain" {
		t.Fatalf("string Remember = %q, %v", v, err)
	}
	if v, out, _ := so.Fetch(ctx, "s", time.Minute, nil); out != cache.Hit || v != "plain" {
		t.Fatalf("string Fetch = %q, %v", v, out)
	}
	// A value of another type under the key is a miss, not an error.
	io := cache.New[int](s, cache.Config[int]{})
	if v, out, err := io.Fetch(ctx, "s", time.Minute, func(context.Context) (int, error) { return 7, nil }); err != nil || v != 7 || out == cache.Hit {
		t.Fatalf("Fetch of an int over a string entry = %v, %v, %v; want a computed 7", v, out, err)
	}
}

func testStampede(t *testing.T, s cache.Store) {
	o := cache.New[string](s, cache.Config[string]{})
	var calls atomic.Int32
	release := make(chan struct{})
	fn := func(context.Context) (string, error) {
		calls.Add(1)
		<-release
		return "cold", nil
	}
	const n = 64
	outs := make(chan cache.Outcome, n)
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		wg.Go(func() {
			started.Done()
			v, out, err := o.Fetch(t.Context(), "cold", time.Minute, fn)
			if err != nil || v != "cold" {
				t.Errorf("Fetch = %q, %v", v, err)
			}
			outs <- out
		})
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // let the 64 reach the single flight
	close(release)
	wg.Wait()
	close(outs)
	if c := calls.Load(); c != 1 {
		t.Fatalf("64 concurrent misses computed %d times, want 1", c)
	}
	count := map[cache.Outcome]int{}
	for out := range outs {
		count[out]++
	}
	if count[cache.Miss] != 1 || count[cache.Miss]+count[cache.Shared]+count[cache.Hit] != n {
		t.Fatalf("outcomes %v: want one miss, the others shared (or hits)", count)
	}
}

func testWaiterContext(t *testing.T, s cache.Store) {
	o := cache.New[string](s, cache.Config[string]{})
	release := make(chan struct{})
	computing := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		v, err := o.Remember(context.Background(), "slow", time.Minute, func(context.Context) (string, error) {
			close(computing)
			<-release
			return "slow", nil
		})
		if err != nil || v != "slow" {
			t.Errorf("the leader got %q, %v", v, err)
		}
	}()
	<-computing
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := o.Remember(ctx, "slow", time.Minute, func(context.Context) (string, error) {
		t.Error("a waiter computed while the leader was computing")
		return "", nil
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiter whose context ended: err = %v, want its deadline", err)
	}
	// The leader leaving does not fail the computation either.
	close(release)
	<-done
	if v, out, _ := o.Fetch(t.Context(), "slow", time.Minute, nil); out != cache.Hit || v != "slow" {
		t.Errorf("after the leader: %q, %v; want a hit", v, out)
	}
	lctx, lcancel := context.WithCancel(t.Context())
	computed, proceed := make(chan struct{}), make(chan struct{})
	go func() {
		time.Sleep(30 * time.Millisecond)
		lcancel()
	}()
	_, err = o.Remember(lctx, "leader-leaves", time.Minute, func(ctx context.Context) (string, error) {
		defer close(computed)
		select {
		case <-ctx.Done():
			return "", errors.New("fn's context was cancelled with its caller's")
		case <-proceed: // closed once the caller has left
		}
		return "finished", nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a leader that left: err = %v, want context.Canceled", err)
	}
	close(proceed)
	<-computed
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, ok, _ := o.Get(t.Context(), "leader-leaves")
		if ok && v == "finished" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the computation of a leader that left was not stored")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func testTags(t *testing.T, s cache.Store) {
	ctx := t.Context()
	tagged := cache.New[string](s, cache.Config[string]{Tags: []string{"report", "team-7"}})
	other := cache.New[string](s, cache.Config[string]{Tags: []string{"other"}})
	var calls atomic.Int32
	fn := func(context.Context) (string, error) {
		calls.Add(1)
		return "v", nil
	}
	outcomes := func(o *cache.Of[string], key string, n int) []cache.Outcome {
		var outs []cache.Outcome
		for range n {
			_, out, err := o.Fetch(ctx, key, time.Minute, fn)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, out)
		}
		return outs
	}
	want := func(got []cache.Outcome, want ...cache.Outcome) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("outcomes %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("outcomes %v, want %v", got, want)
			}
		}
	}
	want(outcomes(tagged, "a", 3), cache.Miss, cache.Hit, cache.Hit)
	want(outcomes(other, "b", 2), cache.Miss, cache.Hit)
	if err := cache.Invalidate(ctx, s, "report"); err != nil {
		t.Fatal(err)
	}
	want(outcomes(tagged, "a", 3), cache.Miss, cache.Hit, cache.Hit)
	want(outcomes(other, "b", 1), cache.Hit)
	if err := cache.Invalidate(ctx, s, "team-7", "other"); err != nil {
		t.Fatal(err)
	}
	want(outcomes(tagged, "a", 2), cache.Miss, cache.Hit)
	want(outcomes(other, "b", 2), cache.Miss, cache.Hit)
	if err := cache.Invalidate(ctx, s, "a\nb"); !errors.Is(err, cache.ErrBadKey) {
		t.Fatalf("Invalidate of a bad tag: %v", err)
	}
	// An invalidation while the value is computed leaves it stale: the
	// generations are read before fn runs.
	_, _ = tagged.Remember(ctx, "racing", time.Minute, func(context.Context) (string, error) {
		if err := cache.Invalidate(ctx, s, "report"); err != nil {
			t.Error(err)
		}
		return "old", nil
	})
	want(outcomes(tagged, "racing", 2), cache.Miss, cache.Hit)
}

func testErrors(t *testing.T, s cache.Store) {
	ctx := t.Context()
	o := cache.New[string](s, cache.Config[string]{})
	boom := errors.New("boom")
	if _, err := o.Remember(ctx, "e", time.Minute, func(context.Context) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
	if _, ok, _ := o.Get(ctx, "e"); ok {
		t.Fatal("a failed computation was stored")
	}
	_, err := o.Remember(ctx, "p", time.Minute, func(context.Context) (string, error) { panic("kaboom") })
	if err == nil || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("fn's panic: err = %v", err)
	}
	if v, err := o.Remember(ctx, "p", time.Minute, func(context.Context) (string, error) { return "ok", nil }); err != nil || v != "ok" {
		t.Fatalf("after a panic: %q, %v", v, err)
	}
}

func testSecondInstance(t *testing.T, a, b cache.Store) {
	ctx := t.Context()
	oa := cache.New[report](a, cache.Config[report]{Tags: []string{"report"}})
	ob := cache.New[report](b, cache.Config[report]{Tags: []string{"report"}})
	var calls atomic.Int32
	fn := func(context.Context) (report, error) { return report{Count: int(calls.Add(1))}, nil }
	if _, out, _ := oa.Fetch(ctx, "x", time.Minute, fn); out != cache.Miss {
		t.Fatalf("first instance: %v, want a miss", out)
	}
	if v, out, _ := ob.Fetch(ctx, "x", time.Minute, fn); out != cache.Hit || v.Count != 1 {
		t.Fatalf("second instance: %+v, %v; want a hit of Count 1", v, out)
	}
	if err := cache.Invalidate(ctx, b, "report"); err != nil {
		t.Fatal(err)
	}
	if v, out, _ := oa.Fetch(ctx, "x", time.Minute, fn); out != cache.Miss || v.Count != 2 {
		t.Fatalf("first instance after the second invalidated: %+v, %v; want a miss", v, out)
	}
	if v, out, _ := ob.Fetch(ctx, "x", time.Minute, fn); out != cache.Hit || v.Count != 2 {
		t.Fatalf("second instance then: %+v, %v; want a hit of Count 2", v, out)
	}
}

func testStampedeAcross(t *testing.T, a, b cache.Store) {
	lock := cache.Config[string]{Lock: true, LockTTL: 10 * time.Second, LockWait: 5 * time.Second}
	instances := []*cache.Of[string]{cache.New[string](a, lock), cache.New[string](b, lock)}
	var calls atomic.Int32
	fn := func(context.Context) (string, error) {
		calls.Add(1)
		time.Sleep(200 * time.Millisecond)
		return "cold", nil
	}
	var wg sync.WaitGroup
	for i := range 64 {
		o := instances[i%2]
		wg.Go(func() {
			if v, err := o.Remember(t.Context(), "cold-across", time.Minute, fn); err != nil || v != "cold" {
				t.Errorf("Remember = %q, %v", v, err)
			}
		})
	}
	wg.Wait()
	if c := calls.Load(); c != 1 {
		t.Fatalf("64 concurrent misses on two instances with Config.Lock computed %d times, want 1", c)
	}
}

// testDeadHolder: a lock whose holder never releases it (its process died)
// delays a key by the wait bound at most: the waiter computes (fail open),
// once, and its value is stored.
func testDeadHolder(t *testing.T, s cache.Store) {
	l, ok := s.(cache.Locker)
	if !ok {
		t.Skip("not a cache.Locker")
	}
	ctx := t.Context()
	if _, ok, err := l.TryLock(ctx, "orphan", time.Minute); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	o := cache.New[string](s, cache.Config[string]{Lock: true, LockTTL: time.Minute, LockWait: 300 * time.Millisecond})
	var calls atomic.Int32
	v, out, err := o.Fetch(ctx, "orphan", time.Minute, func(context.Context) (string, error) {
		calls.Add(1)
		return "computed", nil
	})
	if err != nil || v != "computed" || out != cache.Miss || calls.Load() != 1 {
		t.Fatalf("Fetch under a dead holder's lock = %q, %v, %v after %d computations; want the value computed once", v, out, err, calls.Load())
	}
	if v, out, _ := o.Fetch(ctx, "orphan", time.Minute, nil); out != cache.Hit || v != "computed" {
		t.Fatalf("then: %q, %v; want a hit", v, out)
	}
}

// computeTimeout is the compute timeout of the tests below: short, since
// they wait for it; the waits they check are bounded by seconds.
const computeTimeout = 200 * time.Millisecond

// testComputeTimeout: a fn that honours its context and never finishes:
// its context carries the deadline; at it, the caller gets an error
// wrapping context.DeadlineExceeded (the compute timeout's, its own
// context has seconds left); then the key is free: the next caller
// computes.
func testComputeTimeout(t *testing.T, s cache.Store) {
	o := cache.New[string](s, cache.Config[string]{ComputeTimeout: computeTimeout})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := o.Remember(ctx, "hangs", time.Minute, func(fctx context.Context) (string, error) {
		if _, ok := fctx.Deadline(); !ok {
			t.Error("fn's context has no deadline")
		}
		<-fctx.Done()
		return "", fctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("a computation past the compute timeout: err = %v (the caller's context: %v); want the compute timeout's context.DeadlineExceeded", err, ctx.Err())
	}
	// fn has returned, or is about to: the next caller computes.
	v, err := o.Remember(ctx, "hangs", time.Minute, func(context.Context) (string, error) { return "v", nil })
	if err != nil || v != "v" {
		t.Fatalf("the next caller: %q, %v; want a new computation", v, err)
	}
	if v, out, _ := o.Fetch(ctx, "hangs", time.Minute, nil); out != cache.Hit || v != "v" {
		t.Fatalf("then: %q, %v; want a hit", v, out)
	}
}

// testAbandoned: a fn that ignores its context goes on running past the
// timeout, the key's one computation: eight callers that come while it
// runs get context.DeadlineExceeded and start none; the value it returns
// late is stored.
func testAbandoned(t *testing.T, s cache.Store) {
	o := cache.New[string](s, cache.Config[string]{ComputeTimeout: computeTimeout})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	hang := make(chan struct{})
	var calls atomic.Int32
	fn := func(context.Context) (string, error) {
		if calls.Add(1) == 1 {
			<-hang // ignores its context
			return "late", nil
		}
		return "another", nil
	}
	if _, err := o.Remember(ctx, "abandoned", time.Minute, fn); !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("a computation past the compute timeout: err = %v; want the compute timeout's context.DeadlineExceeded", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if v, err := o.Remember(ctx, "abandoned", time.Minute, fn); !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				t.Errorf("a caller while the abandoned computation runs: %q, %v; want the compute timeout's context.DeadlineExceeded", v, err)
			}
		})
	}
	wg.Wait()
	if c := calls.Load(); c != 1 {
		t.Fatalf("%d computations while an abandoned one ran, want it alone", c)
	}
	close(hang)
	waitFor(t, o, "abandoned", "late")
	if c := calls.Load(); c != 1 {
		t.Fatalf("%d computations, want 1", c)
	}
}

// waitFor polls o until key holds want, for 5s at most.
func waitFor(t *testing.T, o *cache.Of[string], key, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if v, ok, _ := o.Get(t.Context(), key); ok && v == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold %q after 5s", key, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testComputeTimeoutAcross: locks (Config.Lock) of a minute, a compute
// timeout of 200ms: instance a's fn hangs holding the lock, ignoring its
// context; a's caller gets context.DeadlineExceeded, and instance b then
// computes the key within seconds, not after the minute of the lock's TTL
// or wait: the lock does not outlive the compute timeout.
func testComputeTimeoutAcross(t *testing.T, a, b cache.Store) {
	cfg := cache.Config[string]{Lock: true, LockTTL: time.Minute, LockWait: time.Minute, ComputeTimeout: computeTimeout}
	oa := cache.New[string](a, cfg)
	ob := cache.New[string](b, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	hang := make(chan struct{})
	_, err := oa.Remember(ctx, "held", time.Minute, func(context.Context) (string, error) {
		<-hang // ignores its context, holding the lock
		return "a", nil
	})
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("instance a past the compute timeout: err = %v; want the compute timeout's context.DeadlineExceeded", err)
	}
	var calls atomic.Int32
	for {
		// The first try may still find a's lock (taken just after a's
		// computation started): it waits 200ms at most for it.
		v, out, err := ob.Fetch(ctx, "held", time.Minute, func(context.Context) (string, error) {
			calls.Add(1)
			return "b", nil
		})
		if err == nil {
			if v != "b" || out != cache.Miss || calls.Load() != 1 {
				t.Fatalf("instance b: %q, %v after %d computations; want a miss computing \"b\"", v, out, calls.Load())
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("instance b still cannot compute after 5s (%v): a's lock outlived the compute timeout", err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
	}
	close(hang)
	waitFor(t, oa, "held", "a") // the late value is stored too, before the stores close
}
