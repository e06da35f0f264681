package web

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestMemoryStoreConstantWork: a Create on a full store looks at a bounded
// number of sessions to make room (expired ones met at the front of the
// queues, and one to evict), whatever the store holds: never a scan. The
// store is filled with anonymous, renewed and expired sessions, then
// flooded with new ones; the work per Create is counted through s.work.
func TestMemoryStoreConstantWork(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	const size = 2000
	s := NewMemoryStore(MemoryStoreConfig{MaxSessions: size, Clock: clock})
	ctx := context.Background()
	renewed := withRenewed(ctx)
	for i := range size {
		c, exp := ctx, now.Add(time.Hour)
		switch i % 4 {
		case 0:
			c = renewed
		case 1:
			exp = now.Add(time.Minute) // expired once the clock moves
		}
		if err := s.Create(c, "s"+strconv.Itoa(i), []byte("x"), exp); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(2 * time.Minute)
	const creates = 5 * size
	worst := 0
	for i := range creates {
		before := s.work
		if err := s.Create(ctx, "n"+strconv.Itoa(i), []byte("y"), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, s.work-before)
	}
	// Two expired sessions per queue, and one evicted: 5 at most.
	if worst > 5 {
		t.Errorf("a Create on a full store of %d looked at up to %d sessions, want at most 5", size, worst)
	}
	if s.Len() != size {
		t.Errorf("len %d, want %d", s.Len(), size)
	}
	// The renewed sessions are all still there: the flood evicted only
	// anonymous and expired ones.
	for i := 0; i < size; i += 4 {
		if b, _ := s.Load(ctx, "s"+strconv.Itoa(i)); b == nil {
			t.Fatalf("renewed session s%d was evicted by anonymous creates", i)
		}
	}
}
