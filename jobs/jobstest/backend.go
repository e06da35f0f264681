// Package jobstest is an in-memory jobs.Backend for tests: it records
// every enqueued job, runs them inline (Drain, RunAll) or with workers
// like a real backend (through jobs.Client.Attach), reports River's states
// (available, scheduled, running, retryable, completed, discarded,
// cancelled) from Job and List, honours the workers' control errors
// (Cancel, Discard, Snooze) and attempts, and asserts what was enqueued
// (Count, Last, Has). Begin gives a transaction, so
// that a test sees a job exist if and only if it commits. It is
// goroutine-safe, and keeps everything in memory: for tests only.
//
//	b := jobstest.New()
//	c := jobstest.NewClient(t, b)
//	jobs.Handle(c, sendWelcome)
//	... // the code under test enqueues
//	jobstest.Has(t, b, func(w Welcome) bool { return w.Email == "a@b.c" })
//	b.Drain(ctx, c) // runs the due jobs inline
package jobstest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/plinth-go/plinth/jobs"
)

// MaxRuns bounds the executions of one Drain or RunAll, so that a job that
// snoozes for ever cannot hang a test.
const MaxRuns = 10000

// Backend is the in-memory jobs.Backend. The zero value is not usable:
// call New.
type Backend struct {
	mu      sync.Mutex
	jobs    []*job // in insert order
	byID    map[int64]*job
	nextID  int64
	now     func() time.Time
	pingErr error
	insErr  error
	wake    chan struct{} // closed and replaced when a job may have become runnable

	// Start's workers.
	work     jobs.Worker
	started  bool
	stopping bool
	workers  sync.WaitGroup
}

// job is one stored job.
type job struct {
	info      jobs.Info
	unique    string
	cancel    context.CancelCauseFunc // set while running
	cancelReq bool                    // Cancel while running: cancelled when it returns
	handBack  bool                    // the hard stop: available again when it returns
	gen       int                     // executions begun: a result of an older one is ignored
}

// New returns an empty Backend on the real clock.
func New() *Backend {
	return &Backend{byID: make(map[int64]*job), now: time.Now, wake: make(chan struct{})}
}

// SetClock makes the backend read the time from now (a test's fake
// clock): scheduled times, retry backoffs and Drain's "due" follow it.
// Start's workers wait on real timers, so use Drain with a fake clock.
func (b *Backend) SetClock(now func() time.Time) {
	b.mu.Lock()
	b.now = now
	b.mu.Unlock()
	b.notify()
}

// SetPingError makes Ping fail with err (nil: answer again), for a test of
// the queue's readiness check.
func (b *Backend) SetPingError(err error) {
	b.mu.Lock()
	b.pingErr = err
	b.mu.Unlock()
}

// SetInsertError makes Insert fail with err (nil: store again).
func (b *Backend) SetInsertError(err error) {
	b.mu.Lock()
	b.insErr = err
	b.mu.Unlock()
}

// notify wakes the workers waiting for a job.
func (b *Backend) notify() {
	b.mu.Lock()
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// Insert stores the batch, or, when ctx carries a transaction of b
// (Begin), holds it until the transaction commits (Result.InTx set). A
// unique job is a duplicate of a job of the same kind and key in any
// state, or held by the same transaction.
func (b *Backend) Insert(ctx context.Context, batch []jobs.Insert) ([]jobs.Result, error) {
	tx, _ := ctx.Value(txKey{}).(*Tx)
	if tx != nil && tx.b != b {
		tx = nil
	}
	b.mu.Lock()
	if b.insErr != nil {
		err := b.insErr
		b.mu.Unlock()
		return nil, err
	}
	if tx != nil && tx.done {
		b.mu.Unlock()
		return nil, errors.New("jobstest: the transaction has ended")
	}
	now := b.now()
	res := make([]jobs.Result, len(batch))
	var held []*job
	for i, ins := range batch {
		if ins.UniqueKey != "" {
			if d := b.findUnique(ins.Kind, ins.UniqueKey, held, tx); d != nil {
				res[i] = jobs.Result{ID: d.info.ID, Duplicate: true, InTx: tx != nil}
				continue
			}
		}
		b.nextID++
		j := &job{unique: ins.UniqueKey, info: jobs.Info{
			ID: b.nextID, Kind: ins.Kind, Queue: ins.Queue, State: jobs.StateAvailable,
			MaxAttempts: ins.MaxAttempts, Priority: ins.Priority, Args: slices.Clone(ins.Args),
			CreatedAt: now, ScheduledAt: now,
		}}
		if ins.ScheduledAt.After(now) {
			j.info.State, j.info.ScheduledAt = jobs.StateScheduled, ins.ScheduledAt
		}
		held = append(held, j)
		res[i] = jobs.Result{ID: j.info.ID, InTx: tx != nil}
	}
	if tx != nil {
		tx.held = append(tx.held, held...)
	} else {
		b.storeLocked(held)
	}
	b.mu.Unlock()
	if tx == nil {
		b.notify()
	}
	return res, nil
}

func (b *Backend) storeLocked(js []*job) {
	for _, j := range js {
		b.jobs = append(b.jobs, j)
		b.byID[j.info.ID] = j
	}
}

// findUnique returns the job of kind and key stored, in batch, or held by
// tx.
func (b *Backend) findUnique(kind, key string, batch []*job, tx *Tx) *job {
	match := func(j *job) bool { return j.info.Kind == kind && j.unique == key }
	for _, set := range [][]*job{b.jobs, batch} {
		if i := slices.IndexFunc(set, match); i >= 0 {
			return set[i]
		}
	}
	if tx != nil {
		if i := slices.IndexFunc(tx.held, match); i >= 0 {
			return tx.held[i]
		}
	}
	return nil
}

// txKey is the context key of a Tx.
type txKey struct{}

// Tx is a transaction of the test backend: the jobs inserted with its
// context exist once it commits, and never if it rolls back.
type Tx struct {
	b    *Backend
	held []*job
	done bool
}

// Begin returns a context carrying a new transaction, and the transaction.
func (b *Backend) Begin(ctx context.Context) (context.Context, *Tx) {
	tx := &Tx{b: b}
	return context.WithValue(ctx, txKey{}, tx), tx
}

// ErrUniqueConflict is the error (wrapped, naming both jobs) Commit returns
// when a unique job the transaction inserted has a twin (same kind and
// key) that was stored after the insert: outside a transaction, or by
// another transaction that committed first.
var ErrUniqueConflict = errors.New("jobstest: a unique job's twin was committed first")

// Commit stores the transaction's jobs. It checks uniqueness again: if a
// unique job it holds has a twin stored since the insert, Commit stores
// none of them, ends the transaction (rolled back) and returns an error
// wrapping ErrUniqueConflict, as a database fails a commit that would
// break a unique constraint (PostgreSQL with a deferred constraint, or a
// serialization failure). River on a real database does not let it come
// to that: the twin's insert waits for this transaction's row lock and,
// once it commits, returns this job as a duplicate. Either way the job the
// transaction's Enqueue reported (Result.ID, not a duplicate) is never
// silently missing after a successful Commit.
func (tx *Tx) Commit() error {
	b := tx.b
	b.mu.Lock()
	if tx.done {
		b.mu.Unlock()
		return errors.New("jobstest: the transaction has ended")
	}
	tx.done = true
	for _, j := range tx.held {
		if j.unique == "" {
			continue
		}
		if twin := b.findUnique(j.info.Kind, j.unique, nil, nil); twin != nil {
			tx.held = nil
			b.mu.Unlock()
			return fmt.Errorf("%w: job %d (kind %q, unique key %q) and job %d, stored after it was inserted; the transaction is rolled back",
				ErrUniqueConflict, j.info.ID, j.info.Kind, j.unique, twin.info.ID)
		}
	}
	b.storeLocked(tx.held)
	tx.held = nil
	b.mu.Unlock()
	b.notify()
	return nil
}

// Rollback drops the transaction's jobs. After Commit it does nothing.
func (tx *Tx) Rollback() {
	tx.b.mu.Lock()
	tx.done = true
	tx.held = nil
	tx.b.mu.Unlock()
}

// Ping answers nil unless SetPingError set an error.
func (b *Backend) Ping(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pingErr
}

// promoteLocked makes the scheduled and retryable jobs whose time has come
// available, as River's scheduler does.
func (b *Backend) promoteLocked(now time.Time) {
	for _, j := range b.jobs {
		if (j.info.State == jobs.StateScheduled || j.info.State == jobs.StateRetryable) && !j.info.ScheduledAt.After(now) {
			j.info.State = jobs.StateAvailable
		}
	}
}

// Job returns the job with the ID.
func (b *Backend) Job(_ context.Context, id int64) (jobs.Info, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.promoteLocked(b.now())
	j, ok := b.byID[id]
	if !ok {
		return jobs.Info{}, fmt.Errorf("%w: %d", jobs.ErrNotFound, id)
	}
	return j.snapshot(), nil
}

func (j *job) snapshot() jobs.Info {
	i := j.info
	i.Args = slices.Clone(i.Args)
	i.Errors = slices.Clone(i.Errors)
	return i
}

// List returns the jobs, newest first.
func (b *Backend) List(_ context.Context, p jobs.ListParams) ([]jobs.Info, error) {
	limit := cmp.Or(p.Limit, jobs.DefaultListLimit)
	if limit < 0 || limit > jobs.MaxListLimit {
		return nil, fmt.Errorf("jobstest: List limit %d: 1 to %d", p.Limit, jobs.MaxListLimit)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.promoteLocked(b.now())
	var out []jobs.Info
	for _, j := range slices.Backward(b.jobs) {
		if len(out) == limit {
			break
		}
		if (len(p.States) == 0 || slices.Contains(p.States, j.info.State)) && (len(p.Kinds) == 0 || slices.Contains(p.Kinds, j.info.Kind)) {
			out = append(out, j.snapshot())
		}
	}
	return out, nil
}

// Jobs returns every stored job, in insert order.
func (b *Backend) Jobs() []jobs.Info {
	list, _ := b.List(context.Background(), jobs.ListParams{Limit: jobs.MaxListLimit})
	slices.Reverse(list)
	return list
}

// Retry makes a job that is not running available now (a finished job
// whose attempts were exhausted gets one more). A running job is an error.
func (b *Backend) Retry(_ context.Context, id int64) (jobs.Info, error) {
	b.mu.Lock()
	j, ok := b.byID[id]
	if !ok {
		b.mu.Unlock()
		return jobs.Info{}, fmt.Errorf("%w: %d", jobs.ErrNotFound, id)
	}
	if j.info.State == jobs.StateRunning {
		b.mu.Unlock()
		return jobs.Info{}, fmt.Errorf("jobstest: job %d is running", id)
	}
	j.info.State, j.info.ScheduledAt, j.info.FinalizedAt = jobs.StateAvailable, b.now(), time.Time{}
	if j.info.Attempt >= j.info.MaxAttempts {
		j.info.MaxAttempts = j.info.Attempt + 1
	}
	info := j.snapshot()
	b.mu.Unlock()
	b.notify()
	return info, nil
}

// Cancel cancels a job that has not finished: at once when it waits; when
// it runs, its context is cancelled and it ends cancelled when its worker
// returns. A finished job (completed, discarded, cancelled) is left as it
// is, with an error wrapping jobs.ErrFinished.
func (b *Backend) Cancel(_ context.Context, id int64) (jobs.Info, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	j, ok := b.byID[id]
	if !ok {
		return jobs.Info{}, fmt.Errorf("%w: %d", jobs.ErrNotFound, id)
	}
	switch j.info.State {
	case jobs.StateCompleted, jobs.StateDiscarded, jobs.StateCancelled:
		return jobs.Info{}, fmt.Errorf("%w: job %d is %s", jobs.ErrFinished, id, j.info.State)
	case jobs.StateRunning:
		j.cancelReq = true
		j.cancel(errors.New("jobstest: job cancelled"))
	default:
		j.info.State, j.info.FinalizedAt = jobs.StateCancelled, b.now()
	}
	return j.snapshot(), nil
}
