package middleware

import (
	"context"
	"testing"
	"time"
)

// TestMemoryStoreRefund checks that Refund gives one token back, never
// fills a bucket past Burst, and forgets a key whose bucket it fills.
func TestMemoryStoreRefund(t *testing.T) {
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})
	lim := mustLimit(t, Limit{Rate: 1, Per: time.Second, Burst: 3})
	ctx := context.Background()
	take := func(at time.Duration) Result {
		t.Helper()
		r, err := s.Take(ctx, "k", t0.Add(at), lim)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	refund := func(at time.Duration) {
		t.Helper()
		if err := s.Refund(ctx, "k", t0.Add(at), lim); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		take(0)
	}
	if r := take(0); r.Allowed {
		t.Fatal("a fourth token from a bucket of 3")
	}
	refund(0)
	if r := take(0); !r.Allowed || r.Remaining != 0 || r.Reset != 3*time.Second {
		t.Fatalf("take after a refund: %+v, want allowed with 0 left", r)
	}
	// Refunds beyond what was taken leave a full bucket, not a bigger one.
	for range 10 {
		refund(0)
	}
	if n := s.Len(); n != 0 {
		t.Errorf("a refilled bucket is still held (%d keys)", n)
	}
	for i := range 3 {
		if r := take(0); !r.Allowed {
			t.Fatalf("take %d after refunds: refused", i)
		}
	}
	if r := take(0); r.Allowed {
		t.Fatal("over-refunding made the bucket bigger than Burst")
	}
	// A refund later, after part of the bucket refilled, is one token.
	refund(1500 * time.Millisecond)
	if r := take(1500 * time.Millisecond); !r.Allowed || r.Remaining != 1 {
		t.Fatalf("take at +1.5s after a refund: %+v, want allowed with 1 left", r)
	}
	// A refund for a key that has none taken is nothing.
	if err := s.Refund(ctx, "never", t0, lim); err != nil || s.Len() != 1 {
		t.Errorf("refund of an unknown key: %v, %d keys", err, s.Len())
	}
}

// TestMemoryStoreRefundAllocs checks that Refund allocates nothing.
func TestMemoryStoreRefundAllocs(t *testing.T) {
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})
	lim := mustLimit(t, Limit{Rate: 1, Per: time.Hour, Burst: 1000})
	ctx := context.Background()
	for range 500 {
		_, _ = s.Take(ctx, "k", t0, lim)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Refund(ctx, "k", t0, lim) }); n != 0 {
		t.Errorf("Refund allocates %v times, want 0", n)
	}
}
