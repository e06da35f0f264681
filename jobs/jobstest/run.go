package jobstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/plinth-go/plinth/jobs"
)

// Backoff is the wait before a failed job's next attempt: attempt⁴
// seconds, as River's default (1s, 16s, 81s, ...), without the jitter.
func Backoff(attempt int) time.Duration {
	a := time.Duration(attempt)
	return a * a * a * a * time.Second
}

// nextLocked returns the job to run next: the first by priority, then
// scheduled time, then ID, among the jobs waiting on one of queues (nil:
// any) whose time has come (all: whatever their time). It also returns
// the earliest time a waiting job becomes due, for a worker to sleep on.
func (b *Backend) nextLocked(queues map[string]int, now time.Time, all bool) (*job, time.Time) {
	var best *job
	var wake time.Time
	for _, j := range b.jobs {
		switch j.info.State {
		case jobs.StateAvailable, jobs.StateScheduled, jobs.StateRetryable:
		default:
			continue
		}
		if queues != nil {
			if _, ok := queues[j.info.Queue]; !ok {
				continue
			}
		}
		if !all && j.info.ScheduledAt.After(now) {
			if wake.IsZero() || j.info.ScheduledAt.Before(wake) {
				wake = j.info.ScheduledAt
			}
			continue
		}
		if best == nil || j.info.Priority < best.info.Priority ||
			j.info.Priority == best.info.Priority && (j.info.ScheduledAt.Before(best.info.ScheduledAt) ||
				j.info.ScheduledAt.Equal(best.info.ScheduledAt) && j.info.ID < best.info.ID) {
			best = j
		}
	}
	return best, wake
}

// beginLocked marks j running and returns its execution, its context and
// the execution's generation.
func (b *Backend) beginLocked(parent context.Context, j *job) (*jobs.Execution, context.Context, int) {
	j.info.State = jobs.StateRunning
	j.info.Attempt++
	j.gen++
	ctx, cancel := context.WithCancelCause(parent)
	j.cancel = cancel
	e := &jobs.Execution{
		ID: j.info.ID, Kind: j.info.Kind, Args: slices.Clone(j.info.Args), Attempt: j.info.Attempt,
		MaxAttempts: j.info.MaxAttempts, Queue: j.info.Queue, CreatedAt: j.info.CreatedAt, Errors: slices.Clone(j.info.Errors),
	}
	return e, ctx, j.gen
}

// run runs j's execution with work and records the outcome.
func (b *Backend) run(ctx context.Context, j *job, e *jobs.Execution, gen int, work jobs.Worker) {
	err := work(ctx, e)
	b.finish(j, gen, err)
}

// finish records an execution's outcome, River's way: nil completes;
// Cancel cancels and Discard discards (the error recorded); Snooze
// schedules it again, the attempt not counted; another error is recorded
// and retried after Backoff, or discards the job at its last attempt. A
// job cancelled while running ends cancelled; one handed back by the hard
// stop is available again, its error recorded (unless it returned nil:
// then it completed).
func (b *Backend) finish(j *job, gen int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j.gen != gen || j.info.State != jobs.StateRunning {
		return // an execution the hard stop abandoned: its job was handed back already
	}
	now := b.now()
	j.cancel(nil)
	j.cancel = nil
	record := func(e error) {
		j.info.Errors = append(j.info.Errors, jobs.AttemptError{Attempt: j.info.Attempt, At: now, Error: e.Error()})
	}
	final := func(s jobs.State) { j.info.State, j.info.FinalizedAt = s, now }
	handBack := j.handBack
	j.handBack = false
	switch ce, control := errors.AsType[*jobs.ControlError](err); {
	case j.cancelReq:
		j.cancelReq = false
		if err != nil {
			record(err)
		}
		final(jobs.StateCancelled)
	case handBack && err != nil:
		record(fmt.Errorf("jobstest: handed back at shutdown: %w", err))
		j.info.State, j.info.ScheduledAt = jobs.StateAvailable, now
	case err == nil:
		final(jobs.StateCompleted)
	case control && ce.Outcome == jobs.OutcomeSnooze:
		j.info.Attempt--
		j.info.State, j.info.ScheduledAt = jobs.StateScheduled, now.Add(ce.After)
	case control && ce.Outcome == jobs.OutcomeCancel:
		record(err)
		final(jobs.StateCancelled)
	case control && ce.Outcome == jobs.OutcomeDiscard:
		record(err)
		final(jobs.StateDiscarded)
	default:
		record(err)
		if j.info.Attempt >= j.info.MaxAttempts {
			final(jobs.StateDiscarded)
		} else {
			j.info.State, j.info.ScheduledAt = jobs.StateRetryable, now.Add(Backoff(j.info.Attempt))
		}
	}
}

// Drain runs, inline and one at a time, the jobs due now on the backend's
// clock (available, and scheduled or retryable ones whose time has come),
// with c's workers, until none is due; a job a worker enqueues runs too
// when it is due. It returns the number of executions (at most MaxRuns).
func (b *Backend) Drain(ctx context.Context, c *jobs.Client) int { return b.drain(ctx, c, false) }

// RunAll is Drain ignoring scheduled times: it runs every job that has not
// finished, retries and snoozes included, until every job has finished or
// MaxRuns executions were made.
func (b *Backend) RunAll(ctx context.Context, c *jobs.Client) int { return b.drain(ctx, c, true) }

func (b *Backend) drain(ctx context.Context, c *jobs.Client, all bool) int {
	n := 0
	for ; n < MaxRuns && ctx.Err() == nil; n++ {
		b.mu.Lock()
		j, _ := b.nextLocked(nil, b.now(), all)
		if j == nil {
			b.mu.Unlock()
			break
		}
		e, jctx, gen := b.beginLocked(ctx, j)
		b.mu.Unlock()
		b.run(jctx, j, e, gen, c.Work)
	}
	return n
}

// Start runs work for the jobs of queues with their number of workers
// each, in goroutines, until Stop. kinds is not needed: the Client's
// Work discards a job of an unknown kind.
func (b *Backend) Start(_ context.Context, queues map[string]int, _ []string, work jobs.Worker) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return errors.New("jobstest: Start called twice")
	}
	if len(queues) == 0 {
		return errors.New("jobstest: Start with no queue")
	}
	b.started, b.work = true, work
	qs := map[string]int{}
	for q, n := range queues {
		qs[q] = n
	}
	for q, n := range qs {
		one := map[string]int{q: n}
		for range n {
			b.workers.Go(func() { b.worker(one) })
		}
	}
	return nil
}

// worker fetches and runs jobs of its queue until the stop.
func (b *Backend) worker(queues map[string]int) {
	for {
		b.mu.Lock()
		if b.stopping {
			b.mu.Unlock()
			return
		}
		now := b.now()
		j, due := b.nextLocked(queues, now, false)
		wake := b.wake
		if j != nil {
			e, ctx, gen := b.beginLocked(context.Background(), j)
			b.mu.Unlock()
			b.run(ctx, j, e, gen, b.work)
			continue
		}
		b.mu.Unlock()
		var timer *time.Timer
		var fire <-chan time.Time
		if !due.IsZero() {
			timer = time.NewTimer(due.Sub(now))
			fire = timer.C
		}
		select {
		case <-wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Stop stops fetching, waits for the running jobs until soft ends, then
// cancels them and hands them back (available again, the error recorded)
// and waits for their workers until hard ends; a job whose worker has not
// returned by then is handed back at once, its worker abandoned, so that
// Stop returns by hard's end.
func (b *Backend) Stop(soft, hard context.Context) error {
	b.mu.Lock()
	if !b.started {
		b.mu.Unlock()
		return nil
	}
	b.stopping = true
	b.mu.Unlock()
	b.notify()
	done := make(chan struct{})
	go func() { b.workers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-soft.Done():
	}
	b.mu.Lock()
	for _, j := range b.jobs {
		if j.info.State == jobs.StateRunning && j.cancel != nil {
			j.handBack = true
			j.cancel(errors.New("jobstest: hard stop"))
		}
	}
	b.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-hard.Done():
	}
	// The hard stop's end: a worker that has not returned yet is
	// abandoned, its job handed back now (its result, when it comes, is
	// ignored), so that Stop returns in time, as a real backend must.
	b.mu.Lock()
	now := b.now()
	for _, j := range b.jobs {
		if j.info.State == jobs.StateRunning {
			j.info.Errors = append(j.info.Errors, jobs.AttemptError{Attempt: j.info.Attempt, At: now,
				Error: "jobstest: handed back at shutdown: the worker had not returned by the hard stop's end"})
			j.info.State, j.info.ScheduledAt = jobs.StateAvailable, now
			j.handBack, j.cancelReq = false, false
			j.gen++
		}
	}
	b.mu.Unlock()
	return nil
}
