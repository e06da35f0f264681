package jobs_test

import (
	"context"
	"testing"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"

	"github.com/plinth-go/plinth/racetest"
)

// nopBackend stores nothing: AllocsPerRun then counts Enqueue's own work.
type nopBackend struct{ jobs.Backend }

func (nopBackend) Insert(_ context.Context, batch []jobs.Insert) ([]jobs.Result, error) {
	return results[:len(batch)], nil
}

var results = make([]jobs.Result, 16)

// Enqueue's prepare path (the kind's lookup, the options, the JSON
// encoding, the size check) and the call into the backend allocate the
// encoded arguments and the one-job batch, and the resolved Params when
// there are options, whatever their number. The budgets are exact;
// raising one is a decision.
func TestEnqueueAllocations(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	c := jobstest.NewClient(t, nopBackend{})
	jobs.Handle(c, func(context.Context, *jobs.Job[welcome]) error { return nil })
	ctx := context.Background()
	args := welcome{Email: "ada@example.com", Name: "Ada"}
	for _, tc := range []struct {
		name string
		opts *jobs.EnqueueOpts
		max  float64
	}{
		{"no options", nil, enqueueAllocs},
		{"two options", &jobs.EnqueueOpts{Queue: "mail", Priority: 2}, enqueueAllocs},
	} {
		n := testing.AllocsPerRun(200, func() {
			if _, err := c.Enqueue(ctx, args, tc.opts); err != nil {
				t.Fatal(err)
			}
		})
		if n != tc.max {
			t.Errorf("%s: %.0f allocations per Enqueue, want %.0f", tc.name, n, tc.max)
		}
	}
}

// enqueueAllocs is Enqueue's budget without options: the caller's boxing
// of the arguments into Args (the test's, as an application's), the
// encoded JSON, and the one-job batch handed to the backend. Options cost
// nothing more: Enqueue copies the EnqueueOpts it is given.
const enqueueAllocs = 3

func BenchmarkEnqueuePrepare(b *testing.B) {
	c := jobstest.NewClient(b, nopBackend{})
	jobs.Handle(c, func(context.Context, *jobs.Job[welcome]) error { return nil })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Enqueue(ctx, welcome{Email: "ada@example.com", Name: "Ada"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
