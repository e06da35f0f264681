package jobstest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type task struct {
	N    int    `json:"n"`
	Mode string `json:"mode"`
}

func (task) Kind() string { return "task" }

// clock is a fake clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// setup returns a client whose task worker acts by the mode: ok, fail,
// cancel, discard, snooze, or fail-twice (fails its first two attempts).
func setup(t *testing.T) (*jobs.Client, *jobstest.Backend, *clock, *atomic.Int64) {
	b := jobstest.New()
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b.SetClock(clk.Now)
	c := jobstest.NewClient(t, b)
	var runs atomic.Int64
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error {
		runs.Add(1)
		switch j.Args.Mode {
		case "fail":
			return errors.New("failed")
		case "fail-twice":
			if j.Attempt <= 2 {
				return errors.New("not yet")
			}
		case "cancel":
			return jobs.Cancel(errors.New("no longer wanted"))
		case "discard":
			return jobs.Discard(errors.New("550 no such user"))
		case "snooze":
			if j.Attempt == 1 && len(j.Errors) == 0 && j.Args.N == 0 {
				return jobs.Snooze(time.Minute)
			}
		}
		return nil
	})
	return c, b, clk, &runs
}

func state(t *testing.T, c *jobs.Client, id int64) jobs.Info {
	t.Helper()
	info, err := c.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func enqueue(t *testing.T, c *jobs.Client, a jobs.Args, opts *jobs.EnqueueOpts) int64 {
	t.Helper()
	res, err := c.Enqueue(context.Background(), a, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// Each outcome ends in River's state, with the attempt and errors
// recorded; failures wait their backoff as retryable, then run again.
func TestStates(t *testing.T) {
	c, b, clk, _ := setup(t)
	ctx := context.Background()
	ok := enqueue(t, c, task{Mode: "ok"}, nil)
	cancelled := enqueue(t, c, task{Mode: "cancel"}, nil)
	discarded := enqueue(t, c, task{Mode: "discard"}, nil)
	flaky := enqueue(t, c, task{Mode: "fail-twice"}, nil)
	exhausted := enqueue(t, c, task{Mode: "fail"}, &jobs.EnqueueOpts{MaxAttempts: 2})
	later := enqueue(t, c, task{Mode: "ok"}, &jobs.EnqueueOpts{ScheduledAt: clk.Now().Add(time.Hour)})
	if s := state(t, c, later).State; s != jobs.StateScheduled {
		t.Errorf("delayed: %s", s)
	}
	if n := b.Drain(ctx, c); n != 5 {
		t.Errorf("first drain ran %d, want 5 (the delayed job waits)", n)
	}
	check := func(id int64, want jobs.State, attempt, errs int) {
		t.Helper()
		info := state(t, c, id)
		if info.State != want || info.Attempt != attempt || len(info.Errors) != errs {
			t.Errorf("job %d: %s attempt %d with %d errors, want %s attempt %d with %d: %+v", id, info.State, info.Attempt, len(info.Errors), want, attempt, errs, info.Errors)
		}
		if final := want == jobs.StateCompleted || want == jobs.StateCancelled || want == jobs.StateDiscarded; final == info.FinalizedAt.IsZero() {
			t.Errorf("job %d (%s): FinalizedAt %v", id, want, info.FinalizedAt)
		}
	}
	check(ok, jobs.StateCompleted, 1, 0)
	check(cancelled, jobs.StateCancelled, 1, 1)
	check(discarded, jobs.StateDiscarded, 1, 1)
	check(flaky, jobs.StateRetryable, 1, 1)
	check(exhausted, jobs.StateRetryable, 1, 1)
	if e := state(t, c, discarded).Errors[0]; e.Attempt != 1 || !strings.Contains(e.Error, "550 no such user") {
		t.Errorf("recorded error: %+v", e)
	}
	if n := b.Drain(ctx, c); n != 0 {
		t.Errorf("nothing is due yet, ran %d", n)
	}
	clk.Advance(jobstest.Backoff(1))
	check(flaky, jobs.StateAvailable, 1, 1)
	if n := b.Drain(ctx, c); n != 2 {
		t.Errorf("second drain ran %d, want 2", n)
	}
	check(flaky, jobs.StateRetryable, 2, 2)
	check(exhausted, jobs.StateDiscarded, 2, 2)
	clk.Advance(jobstest.Backoff(2))
	b.Drain(ctx, c)
	check(flaky, jobs.StateCompleted, 3, 2)
	clk.Advance(time.Hour)
	b.Drain(ctx, c)
	check(later, jobs.StateCompleted, 1, 0)

	// List filters by state, newest first; Retry and Cancel.
	failed, _ := b.List(ctx, jobs.ListParams{States: []jobs.State{jobs.StateDiscarded}})
	if len(failed) != 2 || failed[0].ID != exhausted || failed[1].ID != discarded {
		t.Errorf("discarded: %+v", failed)
	}
	if info, err := b.Retry(ctx, exhausted); err != nil || info.State != jobs.StateAvailable || info.MaxAttempts != 3 {
		t.Errorf("retry: %+v %v", info, err)
	}
	if _, err := b.Cancel(ctx, ok); !errors.Is(err, jobs.ErrFinished) || !strings.Contains(err.Error(), fmt.Sprintf("job %d is completed", ok)) {
		t.Errorf("cancel of a completed job: %v, want an error wrapping jobs.ErrFinished naming it", err)
	}
	if info, err := b.Cancel(ctx, exhausted); err != nil || info.State != jobs.StateCancelled {
		t.Errorf("cancel: %+v %v", info, err)
	}
	for _, id := range []int64{discarded, exhausted} { // discarded; cancelled by the call above
		before := state(t, c, id)
		if _, err := b.Cancel(ctx, id); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("cancel of finished job %d (%s): %v, want jobs.ErrFinished", id, before.State, err)
		}
		if after := state(t, c, id); after.State != before.State || !after.FinalizedAt.Equal(before.FinalizedAt) {
			t.Errorf("job %d changed by a refused cancel: %+v, was %+v", id, after, before)
		}
	}
	if _, err := b.Cancel(ctx, 99); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("cancel of no job: %v", err)
	}
	if _, err := b.Retry(ctx, 99); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("retry of no job: %v", err)
	}
}

// Snooze schedules the job again without counting the attempt.
func TestSnooze(t *testing.T) {
	c, b, clk, runs := setup(t)
	ctx := context.Background()
	id := enqueue(t, c, task{Mode: "snooze"}, &jobs.EnqueueOpts{MaxAttempts: 1})
	b.Drain(ctx, c)
	if info := state(t, c, id); info.State != jobs.StateScheduled || info.Attempt != 0 || len(info.Errors) != 0 {
		t.Errorf("snoozed: %+v", info)
	}
	clk.Advance(time.Minute)
	if n := b.Drain(ctx, c); n != 1 || runs.Load() != 2 {
		t.Errorf("ran %d, %d runs", n, runs.Load())
	}
	// The worker snoozes on attempt 1 without errors: the second run is
	// attempt 1 again, and snoozes again; RunAll ignores the time, and
	// MaxRuns bounds it.
	if info := state(t, c, id); info.State != jobs.StateScheduled {
		t.Errorf("after the second run: %+v", info)
	}
	if n := b.RunAll(ctx, c); n != jobstest.MaxRuns {
		t.Errorf("RunAll of an endless snooze ran %d, want MaxRuns", n)
	}
}

// A unique job is unique by kind and key in every state, completed
// included; another kind with the same key is another job.
func TestUnique(t *testing.T) {
	c, b, _, _ := setup(t)
	ctx := context.Background()
	jobs.Handle(c, func(context.Context, *jobs.Job[other]) error { return nil })
	first, err := c.Enqueue(ctx, task{N: 1}, &jobs.EnqueueOpts{UniqueKey: "k"})
	if err != nil || first.Duplicate {
		t.Fatal(first, err)
	}
	second, _ := c.Enqueue(ctx, task{N: 2}, &jobs.EnqueueOpts{UniqueKey: "k"})
	if !second.Duplicate || second.ID != first.ID {
		t.Errorf("second: %+v", second)
	}
	b.Drain(ctx, c)
	third, _ := c.Enqueue(ctx, task{N: 3}, &jobs.EnqueueOpts{UniqueKey: "k"})
	if !third.Duplicate || third.ID != first.ID {
		t.Errorf("after completion: %+v", third)
	}
	o, _ := c.Enqueue(ctx, other{}, &jobs.EnqueueOpts{UniqueKey: "k"})
	if o.Duplicate {
		t.Error("another kind's key counted")
	}
	res, err := c.EnqueueMany(ctx, []jobs.Batch{{Args: task{}, Opts: &jobs.EnqueueOpts{UniqueKey: "m"}}, {Args: task{}, Opts: &jobs.EnqueueOpts{UniqueKey: "m"}}})
	if err != nil || res[0].Duplicate || !res[1].Duplicate || res[1].ID != res[0].ID {
		t.Errorf("within a batch: %+v %v", res, err)
	}
	jobstest.Count[task](t, b, 2)
}

type other struct{}

func (other) Kind() string { return "other" }

// badTask is task's kind with arguments its JSON does not decode into.
type badTask struct{ N string }

func (badTask) Kind() string { return "task" }

// A job enqueued in a transaction exists if and only if it commits, and
// Result.InTx says it joined.
func TestTransaction(t *testing.T) {
	c, b, _, _ := setup(t)
	ctx := context.Background()
	tctx, tx := b.Begin(ctx)
	res, err := c.Enqueue(tctx, task{N: 1}, nil)
	if err != nil || !res.InTx {
		t.Fatalf("%+v %v", res, err)
	}
	b.Count(t, 0)
	if _, err := c.Job(ctx, res.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("visible before commit: %v", err)
	}
	tx.Rollback()
	b.Count(t, 0)
	if _, err := c.Enqueue(tctx, task{}, nil); err == nil {
		t.Error("enqueued in an ended transaction")
	}
	tctx, tx = b.Begin(ctx)
	res, _ = c.Enqueue(tctx, task{N: 2}, nil)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := jobstest.Has(t, b, func(a task) bool { return a.N == 2 }); got.N != 2 {
		t.Errorf("Has returned %+v", got)
	}
	if got := jobstest.Last[task](t, b); got.N != 2 {
		t.Errorf("Last returned %+v", got)
	}
	if all := b.Count(t, 1); all[0].Kind != "task" {
		t.Errorf("Count returned %+v", all)
	}
	if err := tx.Commit(); err == nil {
		t.Error("committed twice")
	}
	if plain, _ := c.Enqueue(ctx, task{}, nil); plain.InTx {
		t.Error("InTx outside a transaction")
	}
}

// A unique job inserted in a transaction whose twin is stored before the
// commit (outside a transaction, or by a transaction that commits first)
// fails the Commit with ErrUniqueConflict, and the transaction stores
// nothing: the job its Enqueue reported is never silently missing.
func TestTransactionUniqueConflict(t *testing.T) {
	c, b, _, _ := setup(t)
	ctx := context.Background()

	tctx, tx := b.Begin(ctx)
	held, err := c.Enqueue(tctx, task{N: 1}, &jobs.EnqueueOpts{UniqueKey: "u"})
	if err != nil || held.Duplicate || !held.InTx {
		t.Fatalf("%+v %v", held, err)
	}
	plain, err := c.Enqueue(tctx, task{N: 2}, nil) // not unique: rolled back with it
	if err != nil {
		t.Fatal(err)
	}
	twin, err := c.Enqueue(ctx, task{N: 3}, &jobs.EnqueueOpts{UniqueKey: "u"})
	if err != nil || twin.Duplicate || twin.InTx {
		t.Fatalf("twin outside the transaction: %+v %v", twin, err)
	}
	err = tx.Commit()
	if !errors.Is(err, jobstest.ErrUniqueConflict) || !strings.Contains(err.Error(), fmt.Sprintf("job %d", held.ID)) || !strings.Contains(err.Error(), fmt.Sprintf("job %d,", twin.ID)) {
		t.Fatalf("Commit: %v, want ErrUniqueConflict naming jobs %d and %d", err, held.ID, twin.ID)
	}
	for _, id := range []int64{held.ID, plain.ID} {
		if _, err := c.Job(ctx, id); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("job %d of the failed commit: %v, want ErrNotFound", id, err)
		}
	}
	if got := jobstest.Has(t, b, func(a task) bool { return a.N == 3 }); got.N != 3 {
		t.Errorf("the twin: %+v", got)
	}
	jobstest.Count[task](t, b, 1)
	if _, err := c.Enqueue(tctx, task{}, nil); err == nil {
		t.Error("enqueued in the failed transaction")
	}
	if err := tx.Commit(); err == nil || errors.Is(err, jobstest.ErrUniqueConflict) {
		t.Errorf("second Commit: %v, want the transaction ended", err)
	}

	// Two transactions: the first to commit wins.
	ctx1, tx1 := b.Begin(ctx)
	ctx2, tx2 := b.Begin(ctx)
	r1, _ := c.Enqueue(ctx1, task{N: 4}, &jobs.EnqueueOpts{UniqueKey: "v"})
	r2, _ := c.Enqueue(ctx2, task{N: 5}, &jobs.EnqueueOpts{UniqueKey: "v"})
	if r1.Duplicate || r2.Duplicate || r1.ID == r2.ID {
		t.Fatalf("%+v %+v", r1, r2)
	}
	if err := tx2.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx1.Commit(); !errors.Is(err, jobstest.ErrUniqueConflict) {
		t.Fatalf("the later Commit: %v, want ErrUniqueConflict", err)
	}
	if _, err := c.Job(ctx, r2.ID); err != nil {
		t.Errorf("the first commit's job: %v", err)
	}
	if _, err := c.Job(ctx, r1.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("the failed commit's job: %v", err)
	}

	// No twin: the commit stores the unique job; after it, a twin is a
	// duplicate of it.
	ctx3, tx3 := b.Begin(ctx)
	r3, _ := c.Enqueue(ctx3, task{N: 6}, &jobs.EnqueueOpts{UniqueKey: "w"})
	if err := tx3.Commit(); err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Enqueue(ctx, task{N: 7}, &jobs.EnqueueOpts{UniqueKey: "w"}); !d.Duplicate || d.ID != r3.ID {
		t.Errorf("after the commit: %+v, want a duplicate of %d", d, r3.ID)
	}
}

// The assertions fail with a message naming what was enqueued.
func TestAssertionsFail(t *testing.T) {
	c, b, _, _ := setup(t)
	enqueue(t, c, task{N: 1}, nil)
	for name, f := range map[string]func(tb testing.TB){
		"no match":    func(tb testing.TB) { jobstest.Has(tb, b, func(a task) bool { return a.N == 2 }) },
		"none":        func(tb testing.TB) { jobstest.Has[other](tb, b) },
		"no last":     func(tb testing.TB) { jobstest.Last[other](tb, b) },
		"count":       func(tb testing.TB) { jobstest.Count[task](tb, b, 2) },
		"not":         func(tb testing.TB) { jobstest.Count[task](tb, b, 0) },
		"none at all": func(tb testing.TB) { b.Count(tb, 0) },
		"undecodable": func(tb testing.TB) { jobstest.Count[badTask](tb, b, 1) },
	} {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); f(r) }()
		<-done
		if !r.failed {
			t.Errorf("%s: did not fail", name)
		}
	}
}

// recorder is a testing.TB whose Fatalf records the failure and ends the
// goroutine.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.TB.Logf("(expected) "+format, args...)
	runtimeGoexit()
}

// Workers started with Start run jobs as they come; Stop lets the running
// ones finish within soft; past soft, they are cancelled and handed back
// (available again, the error recorded).
func TestWorkers(t *testing.T) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	release := make(chan struct{})
	started := make(chan int64, 10)
	var completed atomic.Int64
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error {
		started <- j.ID
		if j.Args.Mode == "block" {
			select {
			case <-release:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		completed.Add(1)
		return nil
	})
	ctx := context.Background()
	if err := b.Start(ctx, map[string]int{"default": 2}, c.Kinds(), c.Work); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(ctx, map[string]int{"default": 2}, c.Kinds(), c.Work); err == nil {
		t.Error("started twice")
	}
	for i := range 20 {
		enqueue(t, c, task{N: i}, nil)
	}
	for range 20 {
		<-started
	}
	blocked := enqueue(t, c, task{Mode: "block"}, nil)
	<-started
	// A soft stop that ends first: the blocked job is handed back.
	soft, cancelSoft := context.WithCancel(ctx)
	cancelSoft()
	hard, cancelHard := context.WithTimeout(ctx, 5*time.Second)
	defer cancelHard()
	if err := b.Stop(soft, hard); err != nil {
		t.Fatal(err)
	}
	info := state(t, c, blocked)
	if info.State != jobs.StateAvailable || info.Attempt != 1 || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "handed back") {
		t.Errorf("handed back: %+v", info)
	}
	if completed.Load() != 20 {
		t.Errorf("%d completed, want 20", completed.Load())
	}
	// The next process runs it.
	close(release)
	if n := b.Drain(ctx, c); n != 1 || state(t, c, blocked).State != jobs.StateCompleted || state(t, c, blocked).Attempt != 2 {
		t.Errorf("after the restart: ran %d, %+v", n, state(t, c, blocked))
	}
}

// A stop whose soft deadline is not reached waits for the running job.
func TestWorkersSoftStop(t *testing.T) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	started := make(chan struct{})
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error {
		close(started)
		time.Sleep(50 * time.Millisecond)
		return nil
	})
	ctx := context.Background()
	if err := b.Start(ctx, map[string]int{"default": 1}, nil, c.Work); err != nil {
		t.Fatal(err)
	}
	id := enqueue(t, c, task{}, nil)
	<-started
	soft, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := b.Stop(soft, soft); err != nil {
		t.Fatal(err)
	}
	if info := state(t, c, id); info.State != jobs.StateCompleted || info.Attempt != 1 {
		t.Errorf("%+v", info)
	}
}

// Cancel of a running job cancels its context; it ends cancelled.
func TestCancelRunning(t *testing.T) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	started := make(chan struct{})
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	id := enqueue(t, c, task{}, nil)
	done := make(chan struct{})
	go func() { defer close(done); b.Drain(context.Background(), c) }()
	<-started
	if info, err := b.Cancel(context.Background(), id); err != nil || info.State != jobs.StateRunning {
		t.Errorf("cancel: %+v %v", info, err)
	}
	if _, err := b.Retry(context.Background(), id); err == nil {
		t.Error("retried a running job")
	}
	<-done
	if info := state(t, c, id); info.State != jobs.StateCancelled {
		t.Errorf("%+v", info)
	}
}

// Many goroutines enqueue while workers run: every job completes once
// (run with -race).
func TestConcurrent(t *testing.T) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	var runs atomic.Int64
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error { runs.Add(1); return nil })
	ctx := context.Background()
	if err := b.Start(ctx, map[string]int{"default": 4}, nil, c.Work); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				if _, err := c.Enqueue(ctx, task{N: g*100 + i}, nil); err != nil {
					t.Error(err)
				}
				_, _ = b.List(ctx, jobs.ListParams{Limit: 5})
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for runs.Load() < 400 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	soft, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Stop(soft, soft); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 400 {
		t.Errorf("%d runs, want 400", runs.Load())
	}
	done, _ := b.List(ctx, jobs.ListParams{States: []jobs.State{jobs.StateCompleted}, Limit: 1000})
	if len(done) != 400 {
		t.Errorf("%d completed", len(done))
	}
}

// Ping and Insert report the errors a test sets.
func TestInjectedErrors(t *testing.T) {
	c, b, _, _ := setup(t)
	down := errors.New("down")
	b.SetPingError(down)
	if err := b.Ping(context.Background()); err != down {
		t.Error(err)
	}
	b.SetInsertError(down)
	if _, err := c.Enqueue(context.Background(), task{}, nil); err != down {
		t.Error(err)
	}
	b.SetInsertError(nil)
	b.SetPingError(nil)
	if _, err := c.Enqueue(context.Background(), task{}, nil); err != nil || b.Ping(context.Background()) != nil {
		t.Error(err)
	}
}

// A worker that ignores its cancelled context past the hard stop is
// abandoned: Stop returns by hard's end with the job handed back, and the
// worker's late result is ignored.
func TestWorkersAbandonedAtHardStop(t *testing.T) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	started, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[task]) error {
		if j.Attempt == 1 {
			close(started)
			<-release // deaf to ctx
			defer close(returned)
		}
		return nil
	})
	ctx := context.Background()
	if err := b.Start(ctx, map[string]int{"default": 1}, nil, c.Work); err != nil {
		t.Fatal(err)
	}
	id := enqueue(t, c, task{}, nil)
	<-started
	soft, cancelSoft := context.WithCancel(ctx)
	cancelSoft()
	hard, cancelHard := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelHard()
	if err := b.Stop(soft, hard); err != nil {
		t.Fatal(err)
	}
	info := state(t, c, id)
	if info.State != jobs.StateAvailable || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "had not returned") {
		t.Errorf("abandoned: %+v", info)
	}
	close(release)
	<-returned
	time.Sleep(10 * time.Millisecond) // finish runs after the worker's return
	if info := state(t, c, id); info.State != jobs.StateAvailable {
		t.Errorf("the abandoned worker's result was applied: %+v", info)
	}
	if n := b.Drain(ctx, c); n != 1 || state(t, c, id).State != jobs.StateCompleted || state(t, c, id).Attempt != 2 {
		t.Errorf("after the restart: %d runs, %+v", n, state(t, c, id))
	}
}
