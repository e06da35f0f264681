package suite

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// AllocStats are the allocations of one framework on one scenario, per
// request (a github-* op is a whole table, so its figures are divided by the
// number of requests).
type AllocStats struct {
	Allocs float64 // allocations per request
	Bytes  float64 // bytes allocated per request
}

// MeasureAllocs serves the scenario's requests with fw ops times (after one
// warm-up op) through a non-allocating writer, in this goroutine, and
// returns the allocations per request. Allocation counts are deterministic;
// bytes may vary slightly with the runtime's size classes.
func MeasureAllocs(fw Framework, sc Scenario, ops int) (AllocStats, error) {
	h, err := fw.BuildScenario(sc)
	if err != nil {
		return AllocStats{}, err
	}
	reqs := make([]*http.Request, len(sc.Requests))
	for i, rq := range sc.Requests {
		reqs[i] = httptest.NewRequest(rq.Method, rq.Path, nil)
	}
	w := NewResponseWriter(false)
	op := func() {
		for _, r := range reqs {
			w.Reset()
			h.ServeHTTP(w, r)
		}
	}
	op()
	if last := sc.Requests[len(sc.Requests)-1]; w.Status() != last.Status {
		return AllocStats{}, fmt.Errorf("%s %s: %s %s answered %d, want %d", sc.Name, fw.Name, last.Method, last.Path, w.Status(), last.Status)
	}
	allocs := testing.AllocsPerRun(ops, op)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range ops {
		op()
	}
	runtime.ReadMemStats(&after)
	n := float64(len(reqs))
	return AllocStats{
		Allocs: allocs / n,
		Bytes:  float64(after.TotalAlloc-before.TotalAlloc) / float64(ops) / n,
	}, nil
}
