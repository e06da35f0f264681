package web

// Boundary tests of MemoryStore from mutation testing:
// a session expires at exactly its deadline, the store holds exactly
// MaxSessions, and eviction follows use order. The clock is the store's
// Clock; nothing here depends on real time.

import (
	"context"
	"errors"
	"testing"
	"time"
)

type memBoundClock struct{ now time.Time }

func (c *memBoundClock) Now() time.Time { return c.now }

func newBoundMemoryStore(max int) (*MemoryStore, *memBoundClock) {
	clk := &memBoundClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	return NewMemoryStore(MemoryStoreConfig{MaxSessions: max, Clock: clk.Now}), clk
}

func mustLoad(t *testing.T, s *MemoryStore, id string) []byte {
	t.Helper()
	b, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCreate(t *testing.T, ctx context.Context, s *MemoryStore, id string, exp time.Time) {
	t.Helper()
	if err := s.Create(ctx, id, []byte(id), exp); err != nil {
		t.Fatalf("Create %s: %v", id, err)
	}
}

// A session is gone at exactly its expiry, not one tick later: Load,
// Update and Create all see it as expired then, and it is live one
// nanosecond before.
func TestMemoryStoreExpiresAtDeadline(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(10)
	exp := clk.now.Add(time.Hour)
	mustCreate(t, ctx, s, "a", exp)

	clk.now = exp.Add(-time.Nanosecond)
	if b := mustLoad(t, s, "a"); string(b) != "a" {
		t.Fatalf("one nanosecond before its expiry: %q", b)
	}
	if err := s.Create(ctx, "a", []byte("other"), exp.Add(time.Hour)); !errors.Is(err, ErrSessionExists) {
		t.Fatalf("Create over a live session: %v, want ErrSessionExists", err)
	}

	clk.now = exp
	if b := mustLoad(t, s, "a"); b != nil {
		t.Errorf("Load at exactly the expiry: %q, want nil", b)
	}
	if s.Len() != 0 {
		t.Errorf("an expired session met by Load stays: len %d", s.Len())
	}

	// Update at exactly the expiry: no session any more.
	mustCreate(t, ctx, s, "u", clk.now.Add(time.Minute))
	clk.now = clk.now.Add(time.Minute)
	if ok, err := s.Update(ctx, "u", []byte("new"), clk.now.Add(time.Hour)); err != nil || ok {
		t.Errorf("Update at exactly the expiry: %v %v, want false", ok, err)
	}
	if s.Len() != 0 {
		t.Errorf("len %d after Update met an expired session", s.Len())
	}

	// Create over a session expiring exactly now replaces it.
	mustCreate(t, ctx, s, "c", clk.now.Add(time.Minute))
	clk.now = clk.now.Add(time.Minute)
	if err := s.Create(ctx, "c", []byte("fresh"), clk.now.Add(time.Hour)); err != nil {
		t.Fatalf("Create over a session expiring exactly now: %v", err)
	}
	if b := mustLoad(t, s, "c"); string(b) != "fresh" {
		t.Errorf("Load after the replacing Create: %q", b)
	}
}

// An expiry that is now (or past) stores nothing, for Create and Update.
func TestMemoryStoreExpiryNowStoresNothing(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(10)
	if err := s.Create(ctx, "now", []byte("x"), clk.now); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 {
		t.Errorf("Create with expiry == now stored it: len %d", s.Len())
	}
	if err := s.Create(ctx, "soon", []byte("x"), clk.now.Add(time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Errorf("Create with expiry now+1ns: len %d, want 1", s.Len())
	}

	mustCreate(t, ctx, s, "u", clk.now.Add(time.Hour))
	ok, err := s.Update(ctx, "u", []byte("y"), clk.now)
	if err != nil || !ok {
		t.Fatalf("Update with expiry == now: %v %v, want true (done: deleted)", ok, err)
	}
	if s.Len() != 1 {
		t.Errorf("Update with expiry == now kept the session: len %d, want 1 (soon only)", s.Len())
	}
	if b := mustLoad(t, s, "u"); b != nil {
		t.Errorf("Load after an Update to expiry now: %q", b)
	}
}

// The store holds exactly MaxSessions: the next Create evicts one; a zero
// MaxSessions is the default and a negative one panics.
func TestMemoryStoreHoldsExactlyMax(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(3)
	for _, id := range []string{"a", "b", "c"} {
		mustCreate(t, ctx, s, id, clk.now.Add(time.Hour))
	}
	if s.Len() != 3 {
		t.Fatalf("len %d after 3 creates in a store of 3", s.Len())
	}
	mustCreate(t, ctx, s, "d", clk.now.Add(time.Hour))
	if s.Len() != 3 {
		t.Errorf("len %d after a 4th create in a store of 3", s.Len())
	}
	if b := mustLoad(t, s, "a"); b != nil {
		t.Errorf("the least recently used session survived: %q", b)
	}

	if got := NewMemoryStore(MemoryStoreConfig{}).String(); got != "memory max_sessions=10000" {
		t.Errorf("zero MaxSessions: %q", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a negative MaxSessions did not panic")
			}
		}()
		NewMemoryStore(MemoryStoreConfig{MaxSessions: -1})
	}()
}

// Load and Update make a session the most recently used: the eviction takes
// the least recently used, not the oldest.
func TestMemoryStoreEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	for _, touch := range []string{"Load", "Update"} {
		t.Run(touch, func(t *testing.T) {
			s, clk := newBoundMemoryStore(3)
			for _, id := range []string{"a", "b", "c"} {
				mustCreate(t, ctx, s, id, clk.now.Add(time.Hour))
			}
			switch touch {
			case "Load":
				mustLoad(t, s, "a")
			case "Update":
				if ok, err := s.Update(ctx, "a", []byte("a2"), clk.now.Add(time.Hour)); err != nil || !ok {
					t.Fatal(ok, err)
				}
			}
			mustCreate(t, ctx, s, "d", clk.now.Add(time.Hour))
			if mustLoad(t, s, "a") == nil {
				t.Errorf("the session just used (a) was evicted")
			}
			if mustLoad(t, s, "b") != nil {
				t.Errorf("the least recently used session (b) was kept")
			}
			// The most recently used being used again changes nothing.
			mustLoad(t, s, "d")
			mustLoad(t, s, "d")
			mustCreate(t, ctx, s, "e", clk.now.Add(time.Hour))
			if mustLoad(t, s, "c") != nil {
				t.Errorf("c, least recently used, was kept")
			}
			for _, id := range []string{"a", "d", "e"} {
				if mustLoad(t, s, id) == nil {
					t.Errorf("%s was evicted", id)
				}
			}
		})
	}
}

// A Create on a full store drops a session that expires exactly now at the
// front of the renewed queue, and then evicts nothing else: the anonymous
// session stays.
func TestMemoryStoreFullDropsExpiredAtNow(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(2)
	mustCreate(t, ctx, s, "anon", clk.now.Add(time.Hour))
	mustCreate(t, withRenewed(ctx), s, "renewed", clk.now.Add(time.Minute))
	clk.now = clk.now.Add(time.Minute) // "renewed" expires exactly now
	mustCreate(t, ctx, s, "new", clk.now.Add(time.Hour))
	if s.Len() != 2 {
		t.Errorf("len %d, want 2", s.Len())
	}
	if mustLoad(t, s, "anon") == nil {
		t.Errorf("the live anonymous session was evicted although an expired one made room")
	}
	if mustLoad(t, s, "new") == nil {
		t.Errorf("the new session is missing")
	}

	// Not expired (one nanosecond left): the anonymous one is evicted and
	// the renewed one stays.
	s, clk = newBoundMemoryStore(2)
	mustCreate(t, ctx, s, "anon", clk.now.Add(time.Hour))
	mustCreate(t, withRenewed(ctx), s, "renewed", clk.now.Add(time.Minute))
	clk.now = clk.now.Add(time.Minute - time.Nanosecond)
	mustCreate(t, ctx, s, "new", clk.now.Add(time.Hour))
	if mustLoad(t, s, "renewed") == nil {
		t.Errorf("a live renewed session was evicted while an anonymous one was held")
	}
	if mustLoad(t, s, "anon") != nil {
		t.Errorf("the anonymous session was kept in a full store")
	}

	// Only renewed sessions: the least recently used renewed one goes.
	s, clk = newBoundMemoryStore(2)
	mustCreate(t, withRenewed(ctx), s, "r1", clk.now.Add(time.Hour))
	mustCreate(t, withRenewed(ctx), s, "r2", clk.now.Add(time.Hour))
	mustLoad(t, s, "r1")
	mustCreate(t, withRenewed(ctx), s, "r3", clk.now.Add(time.Hour))
	if mustLoad(t, s, "r2") != nil || mustLoad(t, s, "r1") == nil || mustLoad(t, s, "r3") == nil {
		t.Errorf("with renewed sessions only, the least recently used one must go")
	}
}

// Delete removes exactly the session named, from the middle of a queue too,
// and the queue stays linked: later evictions take the right ones.
func TestMemoryStoreDeleteKeepsOrder(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(3)
	for _, id := range []string{"a", "b", "c"} {
		mustCreate(t, ctx, s, id, clk.now.Add(time.Hour))
	}
	if err := s.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "missing"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, ctx, s, "d", clk.now.Add(time.Hour))
	mustCreate(t, ctx, s, "e", clk.now.Add(time.Hour)) // evicts a
	if mustLoad(t, s, "a") != nil {
		t.Errorf("a should have been evicted")
	}
	for _, id := range []string{"c", "d", "e"} {
		if mustLoad(t, s, id) == nil {
			t.Errorf("%s missing", id)
		}
	}
	if err := s.Delete(ctx, "e"); err != nil { // the back of the queue
		t.Fatal(err)
	}
	mustCreate(t, ctx, s, "f", clk.now.Add(time.Hour))
	mustCreate(t, ctx, s, "g", clk.now.Add(time.Hour)) // evicts c (d, e used after it; e gone)
	if mustLoad(t, s, "c") != nil || mustLoad(t, s, "d") == nil || mustLoad(t, s, "g") == nil {
		t.Errorf("eviction order broken after deleting the back of the queue")
	}
}

// The work counter that TestMemoryStoreConstantWork reads counts each
// session looked at to make room: two expired ones dropped, or one evicted.
// (A counter that did not count would make that test pass vacuously.)
func TestMemoryStoreWorkCounterCounts(t *testing.T) {
	ctx := context.Background()
	s, clk := newBoundMemoryStore(2)
	mustCreate(t, ctx, s, "a", clk.now.Add(time.Minute))
	mustCreate(t, ctx, s, "b", clk.now.Add(time.Minute))
	clk.now = clk.now.Add(time.Minute)
	before := s.work
	mustCreate(t, ctx, s, "c", clk.now.Add(time.Hour))
	if got := s.work - before; got != 2 {
		t.Errorf("two expired sessions dropped: work %d, want 2", got)
	}
	mustCreate(t, ctx, s, "d", clk.now.Add(time.Hour))
	before = s.work
	mustCreate(t, ctx, s, "e", clk.now.Add(time.Hour))
	if got := s.work - before; got != 1 {
		t.Errorf("one session evicted: work %d, want 1", got)
	}
	if s.Len() != 2 || mustLoad(t, s, "c") != nil {
		t.Errorf("len %d; c (least recently used) should be gone", s.Len())
	}
}
