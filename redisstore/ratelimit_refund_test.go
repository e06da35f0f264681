package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/plinth-go/plinth/middleware"
	"github.com/plinth-go/plinth/redisstore"
)

// TestRefundSameAsMemoryStore runs one sequence of takes and refunds against
// Redis and a MemoryRateLimitStore and compares every result.
func TestRefundSameAsMemoryStore(t *testing.T) {
	rdb, prefix := testClient(t)
	rs := redisstore.NewRateLimitStore(redisstore.RateLimitStoreConfig{Client: rdb, Prefix: prefix, Timeout: -1})
	ms := middleware.NewMemoryRateLimitStore(middleware.MemoryRateLimitStoreConfig{})
	lim := normalized(middleware.Limit{Rate: 1, Per: time.Second, Burst: 3})
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 123456789, time.UTC)
	type step struct {
		at     time.Duration
		refund bool
	}
	steps := []step{
		{0, false}, {0, false}, {0, false}, {0, false}, // empty, then refused
		{0, true}, {0, false}, {0, false}, // one back, taken, refused
		{0, true}, {0, true}, {0, true}, {0, true}, {0, true}, // over-refund: full, not bigger
		{0, false}, {0, false}, {0, false}, {0, false},
		{1500 * time.Millisecond, true}, {1500 * time.Millisecond, false}, {1500 * time.Millisecond, false},
		{1500 * time.Millisecond, false}, {2 * time.Second, true}, {2*time.Second + 1, false},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		if st.refund {
			if err := rs.Refund(ctx, "k", now, lim); err != nil {
				t.Fatalf("step %d: Redis refund: %v", i, err)
			}
			_ = ms.Refund(ctx, "k", now, lim)
			continue
		}
		want, _ := ms.Take(ctx, "k", now, lim)
		got, err := rs.Take(ctx, "k", now, lim)
		if err != nil || got != want {
			t.Fatalf("step %d at +%v: Redis %+v, %v; MemoryRateLimitStore %+v", i, st.at, got, err, want)
		}
	}
	// A refund that fills the bucket deletes the key, as a full bucket has
	// none.
	for range 5 {
		_ = rs.Refund(ctx, "k", t0.Add(2*time.Second), lim)
	}
	if n, err := rdb.Exists(ctx, prefix+`"`+lim.Name+`":k`).Result(); err != nil || n != 0 {
		t.Errorf("key after refilling refunds: exists %d, %v", n, err)
	}
}
