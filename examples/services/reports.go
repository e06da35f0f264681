package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/cache"
)

// reportTag tags every cached report, so that POST
// /cache/invalidate?tag=report drops them all at once (a generation
// counter: no scan, no prefix flush).
const reportTag = "report"

// reportTTL is how long a computed report is served from the cache.
const reportTTL = 10 * time.Minute

// reportCost is how long computing a report takes.
const reportCost = 200 * time.Millisecond

// reportLockTTL bounds how long an instance that died computing a report
// keeps the others waiting for it (then they compute it themselves).
const reportLockTTL = 2 * time.Second

// report is GET /report/{k}'s body.
type report struct {
	Key         string    `json:"key"`
	Value       string    `json:"value"`
	Computation int64     `json:"computation"` // which computation of the key made it, from 1
	ComputedAt  time.Time `json:"computed_at"`
}

// reports computes reports and caches them in the Store PLINTH_CACHE_URL
// names.
type reports struct {
	store cache.Store
	of    *cache.Of[report]
	// local counts computations in this process, for when the store's
	// counter cannot be reached (Redis down): the count then says what
	// this instance did.
	local sync.Map // key -> *atomic.Int64
}

func newReports(store cache.Store) *reports {
	// Config.Lock: instances sharing Redis compute a cold report once between
	// them (the holder computes, the others poll the Store for its value, up
	// to a second); in one process single flight does it already.
	return &reports{store: store, of: cache.New[report](store, cache.Config[report]{Tags: []string{reportTag}, Lock: true, LockTTL: reportLockTTL, LockWait: time.Second})}
}

// get returns k's report, whether this call computed it, and how many
// times k has been computed so far: by every instance sharing the store
// (its counter "report-count:k", Redis INCR on Redis). A key the cache
// refuses (over 1 KiB, a control character) is a 400 problem.
func (r *reports) get(ctx context.Context, k string) (rep report, computed bool, count int64, err error) {
	rep, out, err := r.of.Fetch(ctx, "report:"+k, reportTTL, func(ctx context.Context) (report, error) {
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
	if errors.Is(err, cache.ErrBadKey) {
		return report{}, false, 0, plinth.BadRequest("report key: " + err.Error())
	}
	if err != nil {
		return report{}, false, 0, err
	}
	switch out {
	case cache.Miss, cache.Bypassed: // computed by this call
		return rep, true, rep.Computation, nil
	}
	return rep, false, r.count(ctx, k, false), nil // cache.Hit, cache.Shared
}

// count reads (or, with add, increments) k's computation counter in the
// store, falling back to this process's own count when the store fails.
func (r *reports) count(ctx context.Context, k string, add bool) int64 {
	v, _ := r.local.LoadOrStore(k, new(atomic.Int64))
	local := v.(*atomic.Int64)
	n := local.Load()
	if add {
		n = local.Add(1)
	}
	name := "report-count:" + k
	if add {
		if shared, err := r.store.Incr(ctx, name); err == nil {
			return shared
		}
		return n
	}
	var shared [1]int64
	if err := r.store.Counters(ctx, []string{name}, shared[:]); err == nil {
		return shared[0]
	}
	return n
}

// invalidate drops every cached report.
func (r *reports) invalidate(ctx context.Context) error {
	return cache.Invalidate(ctx, r.store, reportTag)
}
