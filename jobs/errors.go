package jobs

import (
	"errors"
	"time"
)

// Errors Enqueue and the Backend's methods return, wrapped with the details.
var (
	// ErrUnknownKind: no worker was registered for the kind (Handle).
	ErrUnknownKind = errors.New("jobs: unknown job kind")
	// ErrEncode: the arguments do not encode as JSON.
	ErrEncode = errors.New("jobs: arguments do not encode")
	// ErrTooLarge: the encoded arguments exceed MaxArgsBytes.
	ErrTooLarge = errors.New("jobs: arguments too large")
	// ErrNotFound: no job has the ID.
	ErrNotFound = errors.New("jobs: no such job")
	// ErrFinished: Backend.Cancel refused a job that had already finished
	// (completed, discarded or cancelled); the wrapping error names the
	// job and its state, and the job is left as it was.
	ErrFinished = errors.New("jobs: job has finished")
)

// Outcome is what a worker's control error asks of the queue.
type Outcome int

const (
	// OutcomeCancel ends the job in state cancelled, not retried.
	OutcomeCancel Outcome = iota + 1
	// OutcomeDiscard ends the job in state discarded, as if its attempts
	// were exhausted: a permanent failure (an SMTP 5xx), recorded.
	OutcomeDiscard
	// OutcomeSnooze runs the job again after a delay, the attempt not
	// counted as a failure.
	OutcomeSnooze
)

// ControlError is the error Cancel, Discard and Snooze return; a Backend
// reads it with errors.As.
type ControlError struct {
	Outcome Outcome
	Err     error         // the reason (Cancel, Discard)
	After   time.Duration // Snooze's delay
}

func (e *ControlError) Error() string {
	switch e.Outcome {
	case OutcomeSnooze:
		return "jobs: snoozed for " + e.After.String()
	case OutcomeDiscard:
		return "jobs: discarded: " + errString(e.Err)
	default:
		return "jobs: cancelled: " + errString(e.Err)
	}
}

func (e *ControlError) Unwrap() error { return e.Err }

func errString(err error) string {
	if err == nil {
		return "no reason given"
	}
	return err.Error()
}

// Cancel returned by a worker ends the job in state cancelled with err
// recorded; it is not retried.
func Cancel(err error) error { return &ControlError{Outcome: OutcomeCancel, Err: err} }

// Discard returned by a worker ends the job in state discarded with err
// recorded, as a permanent failure; it is not retried.
func Discard(err error) error { return &ControlError{Outcome: OutcomeDiscard, Err: err} }

// Snooze returned by a worker runs the job again after d; the attempt does
// not count against MaxAttempts.
func Snooze(d time.Duration) error { return &ControlError{Outcome: OutcomeSnooze, After: d} }
