package jobs

import (
	"encoding/json"
	"time"
)

// Args is a job's arguments: a Go value encoded as JSON, whose Kind names
// the worker that runs it. Kind is stored with the job, so it must not
// change once jobs of the kind exist; use a short stable name ("welcome_mail").
type Args interface {
	Kind() string
}

// Job is what a worker receives: the decoded arguments and the execution's
// facts.
type Job[T Args] struct {
	// ID is the job's identifier in its backend.
	ID int64
	// Args is the decoded arguments.
	Args T
	// Attempt counts executions from 1; a retried job sees 2, 3, ...
	Attempt int
	// MaxAttempts is the job's attempt limit.
	MaxAttempts int
	// Queue is the queue the job was enqueued on.
	Queue string
	// CreatedAt is when the job was enqueued.
	CreatedAt time.Time
	// Errors holds the errors of the earlier attempts, oldest first.
	Errors []AttemptError
}

// AttemptError is the error an attempt ended with.
type AttemptError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
}

// Execution is a job as a Backend hands it to the Client to run: its
// arguments still encoded.
type Execution struct {
	ID          int64
	Kind        string
	Args        json.RawMessage
	Attempt     int
	MaxAttempts int
	Queue       string
	CreatedAt   time.Time
	Errors      []AttemptError
}
