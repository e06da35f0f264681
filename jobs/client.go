package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// Client enqueues jobs on a Backend and runs the registered workers.
// Register every kind with Handle before the App starts, in every role
// (a web-only process declares the kinds it enqueues, so that Enqueue can
// refuse an unknown one).
type Client struct {
	backend Backend

	mu    sync.RWMutex
	kinds map[string]*kind
}

// kind is one registered job kind.
type kind struct {
	name  string
	typ   reflect.Type
	queue string // informational: the queue Handle was told, if any
	run   func(ctx context.Context, e *Execution) error
}

// NewClient returns a Client over b.
func NewClient(b Backend) *Client {
	if b == nil {
		panic("jobs: NewClient needs a Backend")
	}
	return &Client{backend: b, kinds: make(map[string]*kind)}
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
// backend recognises one (the data layer's, for jobs/river): the job then
// exists if and only if that transaction commits, and Result.InTx says so.
// Outside a transaction the job is committed before Enqueue returns and
// Result.InTx is false. It fails, storing nothing, with an error wrapping
// ErrUnknownKind, ErrEncode or ErrTooLarge, or an option's error.
func (c *Client) Enqueue(ctx context.Context, args Args, opts ...Option) (Result, error) {
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
	Args Args
	Opts []Option
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
func (c *Client) prepare(args Args, opts []Option) (Insert, error) {
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
	return Insert{Kind: name, Args: raw, Params: p}, nil
}

// Work is the Worker the Client hands its Backend: it runs the execution's
// kind, or discards a job whose kind this process does not know.
func (c *Client) Work(ctx context.Context, e *Execution) error {
	c.mu.RLock()
	k, ok := c.kinds[e.Kind]
	c.mu.RUnlock()
	if !ok {
		return Discard(fmt.Errorf("%w %q in this process", ErrUnknownKind, e.Kind))
	}
	return k.run(ctx, e)
}

// Job returns the stored job with the ID.
func (c *Client) Job(ctx context.Context, id int64) (Info, error) { return c.backend.Job(ctx, id) }
