package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/cache"
	"github.com/plinth-go/plinth/redisstore"
)

// TestCacheOutage: Redis stopped mid-run: Remember keeps answering (computed,
// bypassed) and the check fails; Redis back: the check passes again and
// Remember stores and hits once the fail-fast pause is over.
func TestCacheOutage(t *testing.T) {
	srv := startRedis(t, 0)
	store, err := cache.Open(cache.OpenConfig{URL: "redis://" + srv.addr() + "/0", Openers: redisstore.CacheOpeners()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	check := cache.Check(store)
	o := cache.New[string](store, cache.Config[string]{Tags: []string{"t"}})
	var calls atomic.Int32
	fn := func(context.Context) (string, error) { calls.Add(1); return "v", nil }
	ctx := t.Context()
	fetch := func() cache.Outcome {
		t.Helper()
		v, out, err := o.Fetch(ctx, "k", time.Minute, fn)
		if err != nil || v != "v" {
			t.Fatalf("Fetch = %q, %v", v, err)
		}
		return out
	}
	if out := fetch(); out != cache.Miss {
		t.Fatalf("first Fetch: %v", out)
	}
	if out := fetch(); out != cache.Hit {
		t.Fatalf("second Fetch: %v", out)
	}
	if err := check(ctx); err != nil {
		t.Fatal(err)
	}

	srv.stop()
	for range 3 {
		if out := fetch(); out != cache.Bypassed {
			t.Fatalf("Fetch with Redis stopped: %v, want bypassed", out)
		}
	}
	if err := check(ctx); err == nil {
		t.Fatal("the check passed with Redis stopped")
	}

	startRedis(t, srv.port) // empty: persistence is off
	deadline := time.Now().Add(20 * time.Second)
	for check(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the check still fails 20s after Redis came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A successful Ping ends the fail-fast pause: the next Fetch stores.
	if out := fetch(); out != cache.Miss {
		t.Fatalf("Fetch after Redis came back: %v, want a miss (stored)", out)
	}
	if out := fetch(); out != cache.Hit {
		t.Fatalf("then: %v, want a hit", out)
	}
}
