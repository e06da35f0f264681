package cache_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
)

// TestComputeTimeout: a fn that honours its context, and never finishes,
// holds its key for DefaultComputeTimeout, not longer: fn's context carries
// the deadline, every waiter is released then with an error wrapping
// context.DeadlineExceeded (not with its own context's), and the next
// caller starts a new computation.
func TestComputeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
		defer m.Close()
		o := cache.New[string](m, cache.Config[string]{})
		// The callers' own contexts end an hour later: a cache without the
		// bound fails the test then, instead of hanging it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		stop := make(chan struct{})
		defer close(stop)
		start := time.Now()
		var calls atomic.Int32
		fn := func(ctx context.Context) (string, error) {
			if calls.Add(1) > 1 {
				return "second", nil
			}
			if dl, ok := ctx.Deadline(); !ok || !dl.Equal(start.Add(cache.DefaultComputeTimeout)) {
				t.Errorf("fn's deadline = %v, %v; want %v after the first miss", dl.Sub(start), ok, cache.DefaultComputeTimeout)
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-stop:
				return "", errors.New("stopped at the test's end")
			}
		}
		const n = 4
		errs := make(chan error, n)
		for range n {
			go func() {
				_, err := o.Remember(ctx, "k", time.Minute, fn)
				errs <- err
			}()
		}
		time.Sleep(cache.DefaultComputeTimeout - time.Nanosecond)
		synctest.Wait()
		if len(errs) != 0 {
			t.Fatalf("%d callers released before the compute timeout", len(errs))
		}
		time.Sleep(time.Nanosecond)
		for range n {
			if err := <-errs; !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a waiter at the compute timeout: err = %v, want one wrapping context.DeadlineExceeded", err)
			}
		}
		if got := time.Since(start); got != cache.DefaultComputeTimeout {
			t.Fatalf("waiters released after %v, want %v", got, cache.DefaultComputeTimeout)
		}
		synctest.Wait() // fn returns on its context
		v, out, err := o.Fetch(context.Background(), "k", time.Minute, fn)
		if v != "second" || out != cache.Miss || err != nil || calls.Load() != 2 {
			t.Fatalf("the next caller: %q, %v, %v after %d computations; want a new computation (miss)", v, out, err, calls.Load())
		}
	})
}

// TestComputeTimeoutAbandoned: a fn that ignores its context is abandoned
// at the timeout, and stays the key's one computation: callers that come
// while it runs wait for it, one timeout at most each, and start none of
// their own (one computation and no goroutine more after twenty rounds of
// timeouts); when it ends with a value, the caller waiting gets it
// (shared) and the value is stored; when it ends with an error, the caller
// waiting starts a new computation.
func TestComputeTimeoutAbandoned(t *testing.T) {
	const d = time.Second
	for _, late := range []string{"value", "error"} {
		t.Run(late, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
				defer m.Close()
				o := cache.New[string](m, cache.Config[string]{ComputeTimeout: d})
				hang := make(chan struct{})
				var once sync.Once
				release := func() { once.Do(func() { close(hang) }) }
				defer release()
				var calls, running atomic.Int32
				fn := func(context.Context) (string, error) {
					if calls.Add(1) > 1 {
						return "fresh", nil
					}
					running.Add(1)
					defer running.Add(-1)
					<-hang // ignores its context
					if late == "error" {
						return "", errors.New("failed late")
					}
					return "late", nil
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				if _, err := o.Remember(ctx, "k", 0, fn); !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("first caller: err = %v, want context.DeadlineExceeded", err)
				}
				if got := time.Since(start); got != d {
					t.Fatalf("first caller released after %v, want %v", got, d)
				}
				synctest.Wait()
				for round := range 20 {
					start := time.Now()
					var wg sync.WaitGroup
					for range 5 {
						wg.Go(func() {
							if _, err := o.Remember(ctx, "k", 0, fn); !errors.Is(err, context.DeadlineExceeded) {
								t.Errorf("round %d: err = %v, want context.DeadlineExceeded", round, err)
							}
						})
					}
					wg.Wait()
					if got := time.Since(start); got != d {
						t.Fatalf("round %d: callers released after %v, want %v", round, got, d)
					}
				}
				synctest.Wait()
				if c := calls.Load(); c != 1 || running.Load() != 1 {
					t.Fatalf("after 21 timeouts: %d computations started, %d running; want the abandoned one alone", c, running.Load())
				}
				if n := ofGoroutines(); n != 1 {
					t.Fatalf("%d goroutines in the Of after 20 rounds of timeouts; want the abandoned computation alone", n)
				}

				type result struct {
					v   string
					out cache.Outcome
					err error
				}
				got := make(chan result, 1)
				go func() {
					v, out, err := o.Fetch(ctx, "k", 0, fn)
					got <- result{v, out, err}
				}()
				time.Sleep(d / 2)
				synctest.Wait()
				release()
				r := <-got
				want := result{"late", cache.Shared, nil}
				if late == "error" {
					want = result{"fresh", cache.Miss, nil}
				}
				if r != want {
					t.Fatalf("a caller waiting when the abandoned computation ends: %+v, want %+v", r, want)
				}
				if v, out, err := o.Fetch(ctx, "k", 0, fn); v != want.v || out != cache.Hit || err != nil {
					t.Fatalf("then: %q, %v, %v; want a hit of %q", v, out, err, want.v)
				}
			})
		})
	}
}

// ofGoroutines counts the goroutines running a method of an Of (its
// computations, their callers, their timeouts).
func ofGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "cache.(*Of[") {
			n++
		}
	}
	return n
}

// TestComputeTimeoutOff: plinth.Off removes the bound: fn's context has
// no deadline, and its callers wait for it (twice the default here).
func TestComputeTimeoutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
		defer m.Close()
		o := cache.New[string](m, cache.Config[string]{ComputeTimeout: plinth.Off})
		release := make(chan struct{})
		got := make(chan error, 1)
		go func() {
			v, err := o.Remember(context.Background(), "k", 0, func(ctx context.Context) (string, error) {
				if dl, ok := ctx.Deadline(); ok {
					t.Errorf("fn's context has a deadline (%v) with the compute timeout off", dl)
				}
				<-release
				return "v", nil
			})
			if v != "v" {
				t.Errorf("Remember = %q", v)
			}
			got <- err
		}()
		time.Sleep(2 * cache.DefaultComputeTimeout)
		synctest.Wait()
		if len(got) != 0 {
			t.Fatalf("a caller left before fn returned, with the compute timeout off: %v", <-got)
		}
		close(release)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
}

// TestComputeTimeoutLock: the lock of Config.Lock does not outlive the compute
// timeout. Two Ofs on one MemoryStore (two instances sharing a Locker), locks
// of a minute: while instance a's fn hangs holding the lock, instance b's
// caller waits for it no longer than the timeout (then gets
// context.DeadlineExceeded, without computing); after it, the lock has
// expired and b computes at once.
func TestComputeTimeoutLock(t *testing.T) {
	const d = time.Second
	synctest.Test(t, func(t *testing.T) {
		m := cache.NewMemoryStore(cache.MemoryStoreConfig{})
		defer m.Close()
		cfg := cache.Config[string]{Lock: true, LockTTL: time.Minute, LockWait: time.Minute, ComputeTimeout: d}
		a := cache.New[string](m, cfg)
		b := cache.New[string](m, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		hang := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(hang) }) }
		defer release()
		errA := make(chan error, 1)
		go func() {
			_, err := a.Remember(ctx, "k", 0, func(context.Context) (string, error) {
				<-hang // ignores its context, holding the lock
				return "a", nil
			})
			errA <- err
		}()
		synctest.Wait()
		start := time.Now()
		var calls atomic.Int32
		fnB := func(context.Context) (string, error) { calls.Add(1); return "b", nil }
		v, err := b.Remember(ctx, "k", 0, fnB)
		if !errors.Is(err, context.DeadlineExceeded) || calls.Load() != 0 {
			t.Fatalf("b while a holds the lock: %q, %v after %d computations; want context.DeadlineExceeded, none", v, err, calls.Load())
		}
		if got := time.Since(start); got > d {
			t.Fatalf("b waited %v for a's lock, more than the compute timeout %v", got, d)
		}
		if err := <-errA; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a's caller: %v, want context.DeadlineExceeded", err)
		}
		v, out, err := b.Fetch(ctx, "k", 0, fnB)
		if v != "b" || out != cache.Miss || err != nil || calls.Load() != 1 {
			t.Fatalf("b after the timeout: %q, %v, %v after %d computations; want a miss computing \"b\"", v, out, err, calls.Load())
		}
		if got := time.Since(start); got > d {
			t.Fatalf("b computed %v after it first waited: the lock outlived the compute timeout %v", got, d)
		}
		release()
		synctest.Wait()
	})
}
