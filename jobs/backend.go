package jobs

import (
	"context"
	"encoding/json"
	"time"
)

// State is a job's state, with River's names.
type State string

// The states of a job.
const (
	StateAvailable State = "available"
	StateScheduled State = "scheduled"
	StateRunning   State = "running"
	StateRetryable State = "retryable"
	StateCompleted State = "completed"
	StateDiscarded State = "discarded"
	StateCancelled State = "cancelled"
)

// Insert is one job for Backend.Insert: the kind, its encoded arguments and
// its options resolved (every default filled in, every field checked).
type Insert struct {
	Kind string
	Args json.RawMessage
	EnqueueOpts
}

// Result is what an enqueue made.
type Result struct {
	// ID is the job's ID (the existing job's, when Duplicate).
	ID int64 `json:"id"`
	// Duplicate is set when a unique job with the same kind and key
	// already existed and no job was inserted.
	Duplicate bool `json:"duplicate"`
	// InTx is set when the insert joined the transaction the context
	// carried: the job exists if and only if that transaction commits.
	// Unset, the job was committed on its own before Enqueue returned.
	InTx bool `json:"in_tx"`
}

// Info describes a stored job.
type Info struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"`
	Queue       string          `json:"queue"`
	State       State           `json:"state"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	Priority    int             `json:"priority"`
	Args        json.RawMessage `json:"args"`
	Errors      []AttemptError  `json:"errors"`
	CreatedAt   time.Time       `json:"created_at"`
	ScheduledAt time.Time       `json:"scheduled_at"`
	FinalizedAt time.Time       `json:"finalized_at,omitzero"`
}

// ListParams selects jobs for Backend.List.
type ListParams struct {
	// States filters by state; empty means every state.
	States []State
	// Kinds filters by kind; empty means every kind.
	Kinds []string
	// Limit bounds the result: default DefaultListLimit (100), at most
	// MaxListLimit.
	Limit int
}

// The bounds of ListParams.Limit.
const (
	DefaultListLimit = 100
	MaxListLimit     = 10000
)

// Worker is what the Client hands a Backend to run jobs: it decodes the
// execution's arguments and calls the kind's worker.
type Worker func(ctx context.Context, e *Execution) error

// Backend stores and runs jobs. The jobs/riverjobs module implements it on
// PostgreSQL and SQLite; jobstest has an inline one for tests.
type Backend interface {
	// Insert stores the batch (one transaction), joining the transaction
	// ctx carries when the backend recognises one (the data layer's:
	// data.TxFrom, data.PgxTxFrom), and returns one Result per Insert, in
	// order, with InTx set when it joined one.
	//
	// Uniqueness: an Insert with a UniqueKey is a duplicate when the
	// backend holds a job of the same kind and key in any state
	// (available, scheduled, running, retryable, completed, discarded,
	// cancelled) until the job's retention ends; it then returns that
	// job's ID with Duplicate set and inserts nothing. The periodic jobs
	// (Every, Cron) rely on this: instances that enqueue the same tick
	// must get one job, even when the first has already completed.
	Insert(ctx context.Context, batch []Insert) ([]Result, error)
	// Start begins working the named queues (name to concurrency) with
	// kinds, the registered kinds, calling work for each job; it returns
	// once the workers run.
	Start(ctx context.Context, queues map[string]int, kinds []string, work Worker) error
	// Stop stops fetching jobs and waits for the running ones until soft
	// ends; then it cancels their contexts and hands them back to the
	// queue (to run again, attempt not lost) and returns by hard's end.
	Stop(soft, hard context.Context) error
	// Job returns the job with the ID, or an error wrapping ErrNotFound.
	Job(ctx context.Context, id int64) (Info, error)
	// List returns jobs, newest first.
	List(ctx context.Context, p ListParams) ([]Info, error)
	// Retry makes a finished or waiting job available now.
	Retry(ctx context.Context, id int64) (Info, error)
	// Cancel cancels a job that has not finished: a waiting one at once;
	// a running one has its context cancelled and ends cancelled when its
	// worker returns (the Info then says running). A job that had already
	// finished (completed, discarded, or cancelled before the call) is
	// left as it is and refused with an error wrapping ErrFinished, which
	// names the job and its state; an unknown ID is an error wrapping
	// ErrNotFound. A job that ends cancelled while the call runs (its
	// worker returned Cancel, another Cancel came first) is a success:
	// what the caller asked for holds. `plinth jobs cancel` exits 1 with
	// the reason on either error.
	Cancel(ctx context.Context, id int64) (Info, error)
	// Ping reports whether the backend's store answers.
	Ping(ctx context.Context) error
}
