package riverjobs

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/plinth-go/plinth/jobs"
)

// TestInsertParamsAllocs: mapping a jobs.Insert to River's costs two
// allocations (River's InsertOpts and the arguments boxed as JobArgs),
// with or without a unique key; River's insert itself is measured beside
// raw River in bench/services.
func TestInsertParamsAllocs(t *testing.T) {
	for _, key := range []string{"", "tick-1"} {
		in := jobs.Insert{Kind: "k", Args: []byte(`{}`), EnqueueOpts: jobs.EnqueueOpts{Queue: "default", MaxAttempts: 25, Priority: 1, UniqueKey: key}}
		var sink river.InsertManyParams
		if n := testing.AllocsPerRun(100, func() { sink = insertParams(&in) }); n > 2 {
			t.Errorf("unique key %q: %v allocations, budget 2", key, n)
		}
		_ = sink
	}
}

// countingMiddleware counts the jobs it sees inserted and worked.
type countingMiddleware struct {
	river.MiddlewareDefaults
	inserted, worked atomic.Int64
}

func (m *countingMiddleware) InsertMany(ctx context.Context, ps []*rivertype.JobInsertParams, next func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	m.inserted.Add(int64(len(ps)))
	return next(ctx)
}

func (m *countingMiddleware) Work(ctx context.Context, job *rivertype.JobRow, next func(context.Context) error) error {
	m.worked.Add(1)
	return next(ctx)
}

// TestMiddleware: Config.Middleware (where otelriver's goes) sees every
// insert and every execution.
func TestMiddleware(t *testing.T) {
	m := &countingMiddleware{}
	f := newFixture(t, "sqlite:"+t.TempDir()+"/m.db", Config{Middleware: []rivertype.Middleware{m}})
	f.start(t)
	r, err := f.client.Enqueue(context.Background(), echoArgs{Msg: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.waitState(t, r.ID, jobs.StateCompleted)
	if m.inserted.Load() != 1 || m.worked.Load() != 1 {
		t.Fatalf("middleware saw %d inserts and %d executions, want 1 and 1", m.inserted.Load(), m.worked.Load())
	}
}
