package riverjobs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
)

// DefaultQueueWorkers is the concurrency of jobs.DefaultQueue when Start is
// given no queue.
const DefaultQueueWorkers = 10

// Start works the queues (name to concurrency; none means
// jobs.DefaultQueue with DefaultQueueWorkers) for the kinds, calling work
// for each job. Its context only bounds the start: Stop stops the workers.
// It fails when called twice.
func (b *Backend) Start(ctx context.Context, queues map[string]int, kinds []string, work jobs.Worker) error {
	if work == nil {
		return errors.New("riverjobs: Start needs a jobs.Worker")
	}
	if len(queues) == 0 {
		queues = map[string]int{jobs.DefaultQueue: DefaultQueueWorkers}
	}
	qc := make(map[string]river.QueueConfig, len(queues))
	for name, n := range queues {
		if n < 1 {
			return fmt.Errorf("riverjobs: queue %q: concurrency %d, at least 1", name, n)
		}
		qc[name] = river.QueueConfig{MaxWorkers: n}
	}
	workers := river.NewWorkers()
	w := &worker{b: b, work: work}
	for _, k := range kinds {
		if err := addWorker(workers, k, w); err != nil {
			return err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.worker != nil {
		return errors.New("riverjobs: Start called twice")
	}
	var (
		client riverClient
		err    error
	)
	cfg := b.riverConfig(qc, workers)
	for _, k := range kinds {
		if !riverKind.MatchString(k) {
			// jobs allows kinds River's check refuses ("a", "-x"); River
			// stores and runs them all the same when told to skip it.
			//lint:ignore SA1019 the only way to run such kinds on River v0.51; TestShortKind fails when River removes it
			cfg.SkipJobKindValidation = true
		}
	}
	switch b.db.Dialect() {
	case data.Postgres:
		client, err = river.NewClient(riverpgxv5.New(b.db.Pgx()), cfg)
	default:
		client, err = river.NewClient(riversqlite.New(b.db.SQL()), cfg)
	}
	if err != nil {
		return fmt.Errorf("riverjobs: %w", err)
	}
	// River stops when Start's context ends; the App's start context is
	// not the workers' lifetime, Stop is.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("riverjobs: start: %w", err)
	}
	b.worker = client
	return nil
}

// riverKind is River's check of a kind (rivercommon.UserSpecifiedIDOrKindRE).
var riverKind = regexp.MustCompile(`\A[\w][\w\-\[\]<>\/.·:+]+\z`)

// addWorker registers w for kind, turning River's panic on a kind it
// refuses into an error.
func addWorker(workers *river.Workers, kind string, w *worker) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("riverjobs: kind %q: %v", kind, r)
		}
	}()
	river.AddWorkerArgs(workers, rawArgs{kind: kind}, river.Worker[rawArgs](w))
	return nil
}

// Stop stops fetching and waits for the running jobs until soft ends; then
// it cancels their contexts (River's StopAndCancel), and River hands each
// job whose worker returns the context's error back to the queue: state
// available, its attempt not counted. A worker that returns another error
// once cancelled is handed back the same way. A job whose worker has not
// returned a moment before hard ends is handed back by Stop itself (an
// UPDATE of its row, if still running), so that no job of this process is
// left running for the rescuer; such a worker may still finish later in the
// process, so its job can run twice (delivery is at least once).
func (b *Backend) Stop(soft, hard context.Context) error {
	b.mu.Lock()
	client := b.worker
	b.mu.Unlock()
	if client == nil {
		return nil
	}
	if err := client.Stop(soft); err == nil {
		return nil
	}
	b.stopping.Store(true)
	// Keep a moment of hard for the fix-up below.
	cancelCtx, cancel := hard, context.CancelFunc(func() {})
	if d, ok := hard.Deadline(); ok {
		margin := min(time.Second, time.Until(d)/4)
		cancelCtx, cancel = context.WithDeadline(hard, d.Add(-margin))
	}
	err := client.StopAndCancel(cancelCtx)
	cancel()
	if err == nil {
		return nil
	}
	if n, ferr := b.handBack(hard); ferr != nil {
		return fmt.Errorf("riverjobs: stop: %d jobs did not return: %w", n, errors.Join(err, ferr))
	}
	return nil
}

// handBack makes the jobs this process still runs available again, their
// attempt not counted, and returns how many it tried.
func (b *Backend) handBack(ctx context.Context) (int, error) {
	var ids []int64
	b.running.Range(func(k, _ any) bool {
		ids = append(ids, k.(int64))
		return true
	})
	if len(ids) == 0 {
		return 0, nil
	}
	var sb strings.Builder
	args := make([]any, len(ids))
	for i, id := range ids {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "$%d", i+1)
		args[i] = id
	}
	now := "now()"
	if b.db.Dialect() == data.SQLite {
		now = "datetime('now', 'subsec')"
	}
	_, err := b.db.SQL().ExecContext(ctx, "UPDATE river_job SET state = 'available', attempt = CASE WHEN attempt > 0 THEN attempt - 1 ELSE 0 END, scheduled_at = "+now+
		" WHERE state = 'running' AND id IN ("+sb.String()+")", args...)
	return len(ids), err
}

// worker runs every kind: it hands the job to the jobs.Client's Worker and
// maps the jobs control errors to River's.
type worker struct {
	river.WorkerDefaults[rawArgs]
	b    *Backend
	work jobs.Worker
}

func (w *worker) Work(ctx context.Context, job *river.Job[rawArgs]) error {
	row := job.JobRow
	e := &jobs.Execution{
		ID:          row.ID,
		Kind:        row.Kind,
		Args:        job.Args.raw,
		Attempt:     row.Attempt,
		MaxAttempts: row.MaxAttempts,
		Queue:       row.Queue,
		CreatedAt:   row.CreatedAt,
		Errors:      attemptErrors(row.Errors),
	}
	w.b.running.Store(row.ID, struct{}{})
	defer w.b.running.Delete(row.ID)
	err := w.work(ctx, e)
	if err == nil {
		return nil
	}
	if ce, ok := errors.AsType[*jobs.ControlError](err); ok {
		switch ce.Outcome {
		case jobs.OutcomeCancel:
			return river.JobCancel(err)
		case jobs.OutcomeSnooze:
			return river.JobSnooze(max(ce.After, 0))
		case jobs.OutcomeDiscard:
			// River discards a failed job whose attempt reached its
			// limit: this row is the one River's executor reads when the
			// worker returns, so the error is recorded and the job
			// discarded after this attempt.
			row.MaxAttempts = row.Attempt
			return err
		}
	}
	if ctx.Err() != nil && w.b.stopping.Load() && !errors.Is(err, context.Canceled) {
		// Stopped by the hard stop, the worker returned its own error:
		// hand the job back as River does for context.Canceled.
		return fmt.Errorf("%w: stopped: %w", context.Canceled, err)
	}
	return err
}
