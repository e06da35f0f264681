package middleware

import (
	"context"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/plinth-go/plinth/racetest"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func mustLimit(t *testing.T, l Limit) Limit {
	t.Helper()
	n, err := l.normalize()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMemoryStoreTokenBucket(t *testing.T) {
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})
	lim := mustLimit(t, Limit{Rate: 1, Per: time.Second, Burst: 3})
	ctx := context.Background()
	steps := []struct {
		at   time.Duration // since t0
		want Result
	}{
		{0, Result{Allowed: true, Remaining: 2, Reset: 1 * time.Second}},
		{0, Result{Allowed: true, Remaining: 1, Reset: 2 * time.Second}},
		{0, Result{Allowed: true, Remaining: 0, Reset: 3 * time.Second}},
		{0, Result{RetryAfter: time.Second, Reset: 3 * time.Second}},
		{500 * time.Millisecond, Result{RetryAfter: 500 * time.Millisecond, Reset: 2500 * time.Millisecond}},
		{time.Second, Result{Allowed: true, Remaining: 0, Reset: 3 * time.Second}},
		{3 * time.Second, Result{Allowed: true, Remaining: 1, Reset: 2 * time.Second}},
		{time.Hour, Result{Allowed: true, Remaining: 2, Reset: time.Second}}, // refilled, capped at Burst
	}
	for i, st := range steps {
		got, err := s.Take(ctx, "k", t0.Add(st.at), lim)
		if err != nil || got != st.want {
			t.Fatalf("step %d at +%v: got %+v, %v; want %+v", i, st.at, got, err, st.want)
		}
	}
}

func TestMemoryStoreKeysIndependent(t *testing.T) {
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{})
	a := mustLimit(t, Limit{Rate: 1, Per: time.Hour})
	b := mustLimit(t, Limit{Name: "other", Rate: 1, Per: time.Hour})
	ctx := context.Background()
	take := func(key string, lim Limit) bool {
		r, _ := s.Take(ctx, key, t0, lim)
		return r.Allowed
	}
	if !take("x", a) || take("x", a) {
		t.Fatal("x: want one allowed, then refused")
	}
	if !take("y", a) {
		t.Error("y shares x's bucket")
	}
	if !take("x", b) {
		t.Error("policy \"other\" shares \"default\"'s bucket for x")
	}
	ip := netip.MustParseAddr("192.0.2.1")
	if !s.takeAddr(ip, t0, a).Allowed || s.takeAddr(ip, t0, a).Allowed {
		t.Error("address key: want one allowed, then refused")
	}
	if !take("192.0.2.1", a) {
		t.Error("the string key \"192.0.2.1\" shares the address key's bucket")
	}
	if !s.takeAddr(netip.MustParseAddr("2001:db8::1"), t0, a).Allowed {
		t.Error("another address shares the bucket")
	}
}

// TestMemoryStoreBounded feeds a million distinct client addresses, all
// active (none of their buckets refills within the test), and checks that
// the number of entries never passes the bound. Under -race, which adds
// nothing to this single-goroutine test but time, it feeds 200 000.
func TestMemoryStoreBounded(t *testing.T) {
	const maxKeys = 6400
	keys := 1_000_000
	if racetest.Enabled {
		keys = 200_000
	}
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{MaxKeys: maxKeys})
	lim := mustLimit(t, Limit{Rate: 1, Per: time.Hour, Burst: 5})
	for i := range keys {
		ip := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		if !s.takeAddr(ip, t0.Add(time.Duration(i)), lim).Allowed {
			t.Fatalf("key %d: a new key was refused", i)
		}
		if i%100_000 == 0 {
			if n := s.Len(); n > maxKeys {
				t.Fatalf("after %d keys: %d entries, bound %d", i+1, n, maxKeys)
			}
		}
	}
	if n := s.Len(); n > maxKeys || n < maxKeys*9/10 {
		t.Fatalf("%d entries after %d keys, want at most %d (and close to it)", n, keys, maxKeys)
	}
	// String keys share the bound.
	for i := range 100_000 {
		_, _ = s.Take(context.Background(), "user-"+strconv.Itoa(i), t0, lim)
	}
	if n := s.Len(); n > maxKeys {
		t.Fatalf("%d entries with string keys, bound %d", n, maxKeys)
	}
}

// TestMemoryStoreEvictsRefilledFirst checks the eviction policy: entries
// whose bucket is full again go before an active one.
func TestMemoryStoreEvictsRefilledFirst(t *testing.T) {
	s := NewMemoryRateLimitStore(MemoryRateLimitStoreConfig{MaxKeys: 10 * memShards})
	slow := mustLimit(t, Limit{Rate: 1, Per: time.Hour})                    // an abuser's bucket, empty for an hour
	fast := mustLimit(t, Limit{Name: "fast", Rate: 1000, Per: time.Second}) // refills in 1ms
	ctx := context.Background()
	if r, _ := s.Take(ctx, "abuser", t0, slow); !r.Allowed {
		t.Fatal("first request refused")
	}
	now := t0
	for i := range 50_000 {
		now = now.Add(time.Millisecond)
		_, _ = s.Take(ctx, "passer-by-"+strconv.Itoa(i), now, fast)
	}
	if r, _ := s.Take(ctx, "abuser", now, slow); r.Allowed {
		t.Fatal("the active bucket was evicted in favour of refilled ones")
	}
	if n := s.Len(); n > 10*memShards {
		t.Fatalf("%d entries, bound %d", n, 10*memShards)
	}
}

func TestLimitNormalize(t *testing.T) {
	good, err := Limit{Rate: 10}.normalize()
	if err != nil || good.Name != "default" || good.Per != time.Second || good.Burst != 10 || good.Interval() != 100*time.Millisecond {
		t.Errorf("defaults: %+v, %v", good, err)
	}
	for _, l := range []Limit{
		{},
		{Rate: -1},
		{Rate: 1, Per: -time.Second},
		{Rate: 1, Burst: -1},
		{Rate: 1, Name: `a"b`},
		{Rate: 1, Name: "a\nb"},
		{Rate: 1, Per: 1 << 62, Burst: 1 << 40},
	} {
		if _, err := l.normalize(); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}
