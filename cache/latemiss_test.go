package cache_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/cache"
)

// lateStore is a byte Store whose Get, for a key marked late, answers what
// it found at once but returns only when released: a caller that looked
// before the value was stored and reaches the single flight after the
// computation ended.
type lateStore struct {
	cache.Store
	late    atomic.Bool
	looked  chan struct{}
	release chan struct{}
}

func (s *lateStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, ok, err := s.Store.Get(ctx, key)
	if s.late.CompareAndSwap(true, false) {
		close(s.looked)
		<-s.release
	}
	return v, ok, err
}

// TestMissAfterFlightEnded: a caller that missed before a computation
// stored its value, and asks for the key once that computation ended, gets
// the stored value rather than computing it again (the stampede test's
// rare second computation).
func TestMissAfterFlightEnded(t *testing.T) {
	s := &lateStore{Store: cache.NewMemoryStore(cache.MemoryStoreConfig{}), looked: make(chan struct{}), release: make(chan struct{})}
	o := cache.New[string](s, cache.Config[string]{})
	var calls atomic.Int32
	fn := func(context.Context) (string, error) { calls.Add(1); return "v", nil }
	s.late.Store(true)
	late := make(chan cache.Outcome, 1)
	go func() {
		v, out, err := o.Fetch(t.Context(), "k", time.Minute, fn)
		if err != nil || v != "v" {
			t.Errorf("late Fetch = %q, %v", v, err)
		}
		late <- out
	}()
	<-s.looked // the late caller has missed
	if v, out, err := o.Fetch(t.Context(), "k", time.Minute, fn); err != nil || v != "v" || out != cache.Miss {
		t.Fatalf("first Fetch = %q, %v, %v", v, out, err)
	}
	close(s.release) // the computation ended and stored "v"
	if out := <-late; out != cache.Hit {
		t.Errorf("the late caller's outcome is %v, want a hit", out)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("computed %d times, want 1", n)
	}
}
