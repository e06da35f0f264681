package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// reportTag tags every cached report, so that POST
// /cache/invalidate?tag=report drops them all at once.
const reportTag = "report"

// reportTTL is how long a computed report is served from the cache.
const reportTTL = 10 * time.Minute

// report is GET /report/{k}'s body.
type report struct {
	Key         string    `json:"key"`
	Value       string    `json:"value"`
	Computation int64     `json:"computation"` // which computation of the key made it, from 1
	ComputedAt  time.Time `json:"computed_at"`
}

// reportCache is what the reports need of the cache (cache.go adapts the
// cache module to it).
type reportCache interface {
	// remember returns the report cached under key, or computes it with fn
	// (once for concurrent callers), caches it for reportTTL tagged
	// reportTag, and returns it. When the cache cannot be reached it
	// returns fn's result (fails open).
	remember(ctx context.Context, key string, fn func(context.Context) (report, error)) (report, error)
	// invalidateTag drops every entry tagged tag.
	invalidateTag(ctx context.Context, tag string) error
	// incr adds one to the counter named key and returns its new value;
	// get returns it (0 when unset). On Redis the counter is shared by
	// every instance.
	incr(ctx context.Context, key string) (int64, error)
	get(ctx context.Context, key string) (int64, error)
}

// reports computes and caches reports.
type reports struct {
	cache reportCache
	// local counts computations in this process, for when the shared
	// counter cannot be reached (Redis down): the count then says what
	// this instance did.
	local sync.Map // key -> *atomic.Int64
}

func newReports(c reportCache) *reports { return &reports{cache: c} }

// get returns k's report, whether this call computed it, and how many
// times k has been computed so far.
func (r *reports) get(ctx context.Context, k string) (rep report, computed bool, count int64, err error) {
	rep, err = r.cache.remember(ctx, "report:"+k, func(ctx context.Context) (report, error) {
		computed = true
		t := time.NewTimer(reportCost) // the expensive part
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return report{}, context.Cause(ctx)
		}
		n := r.count(ctx, k, true)
		sum := sha256.Sum256([]byte(k))
		return report{Key: k, Value: hex.EncodeToString(sum[:8]), Computation: n, ComputedAt: time.Now().UTC()}, nil
	})
	if err != nil {
		return report{}, false, 0, err
	}
	if computed {
		return rep, true, rep.Computation, nil
	}
	return rep, false, r.count(ctx, k, false), nil
}

// count reads (or, with add, increments) k's computation counter in the
// cache, falling back to this process's own count when the cache fails.
func (r *reports) count(ctx context.Context, k string, add bool) int64 {
	v, _ := r.local.LoadOrStore(k, new(atomic.Int64))
	local := v.(*atomic.Int64)
	n := local.Load()
	if add {
		n = local.Add(1)
	}
	var shared int64
	var err error
	if add {
		shared, err = r.cache.incr(ctx, "report-count:"+k)
	} else {
		shared, err = r.cache.get(ctx, "report-count:"+k)
	}
	if err != nil {
		return n
	}
	return shared
}

// invalidate drops every cached report.
func (r *reports) invalidate(ctx context.Context) error {
	return r.cache.invalidateTag(ctx, reportTag)
}
