package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Client enqueues jobs on a Backend and runs the registered workers.
// Register every kind with Handle before the App starts, in every role
// (a web-only process declares the kinds it enqueues, so that Enqueue can
// refuse an unknown one).
type Client struct {
	backend Backend
	cfg     Config // resolved by NewClient

	mu       sync.RWMutex
	kinds    map[string]*kind
	periodic []*periodic

	log     atomic.Pointer[slog.Logger] // nil: slog.Default()
	timeout atomic.Int64                // one execution's bound (Config.JobTimeout)
}

// kind is one registered job kind.
type kind struct {
	name string
	typ  reflect.Type
	run  func(ctx context.Context, e *Execution) error
}

// NewClient returns a Client over cfg.Backend, with cfg resolved (see
// Config: the defaults filled in, PLINTH_JOB_TIMEOUT and PLINTH_ROLE read
// from the environment); a bad value, of a field or a variable, is an
// error naming it. It panics when cfg.Backend is nil. Attach installs the
// Client on an App.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Backend == nil {
		panic("jobs: NewClient: Config.Backend is nil")
	}
	rc, err := cfg.resolve(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	c := &Client{backend: cfg.Backend, cfg: rc, kinds: make(map[string]*kind)}
	c.timeout.Store(int64(rc.JobTimeout))
	return c, nil
}

// Config returns the Client's configuration as NewClient resolved it.
func (c *Client) Config() Config { return c.cfg }

// logger is the logger Attach gave c, else slog.Default().
func (c *Client) logger() *slog.Logger {
	if l := c.log.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// Backend returns the Client's Backend.
func (c *Client) Backend() Backend { return c.backend }

// Handle registers the worker for T's kind on c. It panics when the kind
// is empty, not a valid name, or already registered: a registration bug
// surfaces at start, not at work time.
func Handle[T Args](c *Client, work func(ctx context.Context, job *Job[T]) error) {
	var zero T
	name := zero.Kind()
	if !validName(name) {
		panic(fmt.Sprintf("jobs: Handle: kind %q of %T: use 1 to 128 letters, digits, '_', '-' or '.'", name, zero))
	}
	if work == nil {
		panic("jobs: Handle: nil worker for kind " + name)
	}
	k := &kind{name: name, typ: reflect.TypeFor[T]()}
	k.run = func(ctx context.Context, e *Execution) error {
		job := &Job[T]{ID: e.ID, Attempt: e.Attempt, MaxAttempts: e.MaxAttempts, Queue: e.Queue, CreatedAt: e.CreatedAt, Errors: e.Errors}
		if err := json.Unmarshal(e.Args, &job.Args); err != nil {
			// Enqueue encoded it; a change of T that no longer decodes
			// old rows cannot be cured by retrying.
			return Discard(fmt.Errorf("jobs: decoding %s arguments: %w", name, err))
		}
		return work(ctx, job)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.kinds[name]; dup {
		panic("jobs: Handle: kind " + name + " registered twice")
	}
	c.kinds[name] = k
}

// Kinds returns the registered kinds, sorted.
func (c *Client) Kinds() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.kinds))
	for n := range c.kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Enqueue stores one job. It joins the transaction ctx carries when the
// backend recognises one (the data layer's, for jobs/riverjobs): the job then
// exists if and only if that transaction commits, and Result.InTx says so.
// Outside a transaction the job is committed before Enqueue returns and
// Result.InTx is false. opts are the job's options (nil: the defaults;
// see EnqueueOpts). It fails, storing nothing, with an error wrapping
// ErrUnknownKind, ErrEncode or ErrTooLarge, or one naming a bad field of
// opts.
func (c *Client) Enqueue(ctx context.Context, args Args, opts *EnqueueOpts) (Result, error) {
	ins, err := c.prepare(args, opts)
	if err != nil {
		return Result{}, err
	}
	res, err := c.backend.Insert(ctx, []Insert{ins})
	if err != nil {
		return Result{}, err
	}
	if len(res) != 1 {
		return Result{}, fmt.Errorf("jobs: backend returned %d results for 1 job", len(res))
	}
	return res[0], nil
}

// Batch is one job of EnqueueMany.
type Batch struct {
	// Args are the job's arguments.
	Args Args
	// Opts are the job's options. Default (nil): the defaults of
	// EnqueueOpts.
	Opts *EnqueueOpts
}

// EnqueueMany stores the jobs in one insert (one transaction, or the
// context's), checking every one first: one bad job fails the whole batch,
// storing nothing.
func (c *Client) EnqueueMany(ctx context.Context, batch []Batch) ([]Result, error) {
	ins := make([]Insert, len(batch))
	var errs []error
	for i, b := range batch {
		var err error
		if ins[i], err = c.prepare(b.Args, b.Opts); err != nil {
			errs = append(errs, fmt.Errorf("job %d: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c.backend.Insert(ctx, ins)
}

// prepare checks and encodes one job.
func (c *Client) prepare(args Args, opts *EnqueueOpts) (Insert, error) {
	if args == nil {
		return Insert{}, fmt.Errorf("%w: nil arguments", ErrUnknownKind)
	}
	name := args.Kind()
	c.mu.RLock()
	_, ok := c.kinds[name]
	c.mu.RUnlock()
	if !ok {
		return Insert{}, fmt.Errorf("%w %q (%T): register it with jobs.Handle", ErrUnknownKind, name, args)
	}
	p, err := resolve(opts)
	if err != nil {
		return Insert{}, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return Insert{}, fmt.Errorf("%w: %s: %w", ErrEncode, name, err)
	}
	if len(raw) > MaxArgsBytes {
		return Insert{}, fmt.Errorf("%w: %s encodes to %d bytes, at most %d", ErrTooLarge, name, len(raw), MaxArgsBytes)
	}
	return Insert{Kind: name, Args: raw, EnqueueOpts: p}, nil
}

// Work is the Worker the Client hands its Backend: it runs the execution's
// kind within the job timeout (Config.JobTimeout, default
// DefaultJobTimeout: the worker's context is cancelled when it passes),
// or discards a job whose kind this process does not know. A worker's
// panic is recovered into the attempt's error (retried like any other),
// its stack logged; the process goes on. Failures are logged with the
// job's id, kind and attempt through the App's logger (Attach); Logger
// gives the worker a logger that does the same.
func (c *Client) Work(ctx context.Context, e *Execution) (err error) {
	c.mu.RLock()
	k, ok := c.kinds[e.Kind]
	c.mu.RUnlock()
	if !ok {
		err = Discard(fmt.Errorf("%w %q in this process", ErrUnknownKind, e.Kind))
		c.logger().LogAttrs(ctx, slog.LevelError, "jobs: job discarded: its kind is not registered in this process",
			slog.Int64("job_id", e.ID), slog.String("kind", e.Kind), slog.Int("attempt", e.Attempt))
		return err
	}
	ctx = context.WithValue(ctx, execKey{}, &running{c: c, e: e})
	if d := time.Duration(c.timeout.Load()); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("jobs: job timeout of %s passed", d))
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jobs: worker panicked: %v", r)
			c.logger().LogAttrs(ctx, slog.LevelError, "jobs: worker panicked",
				slog.Int64("job_id", e.ID), slog.String("kind", e.Kind), slog.Int("attempt", e.Attempt),
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
		}
	}()
	err = k.run(ctx, e)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (%w)", err, cerr)
		}
		c.logWorkError(ctx, e, err)
	}
	return err
}

// logWorkError logs an attempt's failure, or a control error's outcome.
func (c *Client) logWorkError(ctx context.Context, e *Execution, err error) {
	attrs := []slog.Attr{slog.Int64("job_id", e.ID), slog.String("kind", e.Kind), slog.Int("attempt", e.Attempt), slog.Int("max_attempts", e.MaxAttempts)}
	if ce, ok := errors.AsType[*ControlError](err); ok {
		switch ce.Outcome {
		case OutcomeSnooze:
			c.logger().LogAttrs(ctx, slog.LevelDebug, "jobs: job snoozed", append(attrs, slog.Duration("after", ce.After))...)
		case OutcomeCancel:
			c.logger().LogAttrs(ctx, slog.LevelWarn, "jobs: job cancelled", append(attrs, slog.String("error", errString(ce.Err)))...)
		default:
			c.logger().LogAttrs(ctx, slog.LevelError, "jobs: job discarded", append(attrs, slog.String("error", errString(ce.Err)))...)
		}
		return
	}
	level := slog.LevelWarn
	if e.Attempt >= e.MaxAttempts {
		level = slog.LevelError // the last attempt: the job is discarded
	}
	c.logger().LogAttrs(ctx, level, "jobs: job failed", append(attrs, slog.String("error", err.Error()))...)
}

// Job returns the stored job with the ID.
func (c *Client) Job(ctx context.Context, id int64) (Info, error) { return c.backend.Job(ctx, id) }
