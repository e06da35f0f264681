package jobstest

import (
	"encoding/json"
	"testing"

	"github.com/plinth-go/plinth/jobs"
)

// Count returns the number of stored jobs of the kind (committed, in any
// state).
func (b *Backend) Count(kind string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, j := range b.jobs {
		if j.info.Kind == kind {
			n++
		}
	}
	return n
}

// Enqueued returns the decoded arguments of every stored job of T's kind,
// in insert order.
func Enqueued[T jobs.Args](b *Backend) ([]T, error) {
	var zero T
	kind := zero.Kind()
	b.mu.Lock()
	var raws []json.RawMessage
	for _, j := range b.jobs {
		if j.info.Kind == kind {
			raws = append(raws, j.info.Args)
		}
	}
	b.mu.Unlock()
	out := make([]T, 0, len(raws))
	for _, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// AssertEnqueued fails t unless a job of T's kind is stored whose
// arguments satisfy every match (none: any job of the kind), and returns
// the first such arguments.
func AssertEnqueued[T jobs.Args](t testing.TB, b *Backend, match ...func(T) bool) T {
	t.Helper()
	all, err := Enqueued[T](b)
	if err != nil {
		t.Fatalf("jobstest: decoding %T: %v", *new(T), err)
	}
next:
	for _, v := range all {
		for _, m := range match {
			if !m(v) {
				continue next
			}
		}
		return v
	}
	var zero T
	if len(all) == 0 {
		t.Fatalf("jobstest: no %s job (%T) was enqueued; kinds enqueued: %v", zero.Kind(), zero, b.kinds())
	} else {
		t.Fatalf("jobstest: none of the %d %s jobs matches: %+v", len(all), zero.Kind(), all)
	}
	return zero
}

// AssertCount fails t unless exactly n jobs of T's kind are stored.
func AssertCount[T jobs.Args](t testing.TB, b *Backend, n int) {
	t.Helper()
	var zero T
	if got := b.Count(zero.Kind()); got != n {
		t.Fatalf("jobstest: %d %s jobs enqueued, want %d", got, zero.Kind(), n)
	}
}

// AssertNotEnqueued fails t if a job of T's kind is stored.
func AssertNotEnqueued[T jobs.Args](t testing.TB, b *Backend) {
	t.Helper()
	AssertCount[T](t, b, 0)
}

// AssertNone fails t if any job is stored.
func (b *Backend) AssertNone(t testing.TB) {
	t.Helper()
	if k := b.kinds(); len(k) > 0 {
		t.Fatalf("jobstest: jobs were enqueued, want none: %v", k)
	}
}

// kinds returns the stored jobs' kinds with their counts.
func (b *Backend) kinds() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := map[string]int{}
	for _, j := range b.jobs {
		m[j.info.Kind]++
	}
	return m
}
