package jobstest

import (
	"encoding/json"
	"testing"

	"github.com/plinth-go/plinth/jobs"
)

// The assertions below are jobstest's part of the test helpers' one
// vocabulary (docs/testing.md): Count, Last and Has, as mailtest's, the
// kind given by the type parameter.

// Count fails t unless exactly n jobs of T's kind are stored (committed,
// in any state), and returns their decoded arguments, in insert order.
// Count[T](t, b, 0) asserts that no job of the kind was enqueued.
func Count[T jobs.Args](t testing.TB, b *Backend, n int) []T {
	t.Helper()
	all := decode[T](t, b)
	if len(all) != n {
		var zero T
		t.Fatalf("jobstest: %d %s jobs enqueued, want %d; kinds enqueued: %v", len(all), zero.Kind(), n, b.kinds())
	}
	return all
}

// Last fails t when no job of T's kind is stored, and returns the
// arguments of the last one enqueued.
func Last[T jobs.Args](t testing.TB, b *Backend) T {
	t.Helper()
	all := decode[T](t, b)
	if len(all) == 0 {
		var zero T
		t.Fatalf("jobstest: no %s job (%T) was enqueued; kinds enqueued: %v", zero.Kind(), zero, b.kinds())
		return zero
	}
	return all[len(all)-1]
}

// Has fails t unless a job of T's kind is stored whose arguments satisfy
// every match (none: any job of the kind), and returns the first such
// arguments, in insert order.
func Has[T jobs.Args](t testing.TB, b *Backend, match ...func(T) bool) T {
	t.Helper()
	all := decode[T](t, b)
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

// Count fails t unless exactly n jobs, of any kind, are stored (committed,
// in any state), and returns them, in insert order: b.Count(t, 0) asserts
// that nothing was enqueued (or committed).
func (b *Backend) Count(t testing.TB, n int) []jobs.Info {
	t.Helper()
	all := b.Jobs()
	if len(all) != n {
		t.Fatalf("jobstest: %d jobs enqueued, want %d; kinds enqueued: %v", len(all), n, b.kinds())
	}
	return all
}

// decode returns the decoded arguments of every stored job of T's kind, in
// insert order, failing t when one does not decode into T.
func decode[T jobs.Args](t testing.TB, b *Backend) []T {
	t.Helper()
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
			t.Fatalf("jobstest: decoding a %s job into %T: %v", kind, zero, err)
		}
		out = append(out, v)
	}
	return out
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
