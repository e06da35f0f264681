package jobs

import (
	"errors"
	"fmt"
	"time"
)

// The defaults of an enqueued job.
const (
	// DefaultQueue is the queue a job goes to when EnqueueOpts.Queue is
	// empty.
	DefaultQueue = "default"
	// DefaultMaxAttempts is a job's attempt limit when
	// EnqueueOpts.MaxAttempts is 0: with the backend's exponential
	// backoff, 25 attempts span about three weeks, time to fix and
	// redeploy a worker.
	DefaultMaxAttempts = 25
	// DefaultPriority is a job's priority when EnqueueOpts.Priority is 0.
	DefaultPriority = 1
	// MaxPriority is the lowest priority (the largest number).
	MaxPriority = 4
	// MaxArgsBytes bounds a job's encoded arguments (1 MiB): a queue row
	// is not the place for a file; store it and enqueue its key.
	MaxArgsBytes = 1 << 20
	// MaxUniqueKeyBytes bounds EnqueueOpts.UniqueKey.
	MaxUniqueKeyBytes = 256
)

// EnqueueOpts are one enqueue's options, as River's InsertOpts: passed by
// pointer as the last argument of Client.Enqueue (in Batch for
// EnqueueMany, and to Every and Cron for each tick's job), nil for all
// the defaults. The zero value of each field means its default.
//
//	client.Enqueue(ctx, WelcomeMail{Email: email}, &jobs.EnqueueOpts{Queue: "mail", ScheduledAt: time.Now().Add(time.Minute)})
type EnqueueOpts struct {
	// Queue is the queue's name: 1 to 128 letters, digits, '_', '-' or
	// '.'. Default DefaultQueue ("default").
	Queue string
	// ScheduledAt is the earliest time the job runs. Default (zero): now.
	ScheduledAt time.Time
	// MaxAttempts is the attempt limit, at least 1. Default
	// DefaultMaxAttempts (25).
	MaxAttempts int
	// Priority orders available jobs within a queue, 1 (first) to
	// MaxPriority (4). Default DefaultPriority (1).
	Priority int
	// UniqueKey, when set, makes the job unique by kind and key: enqueueing
	// the same kind and key again, while the first job is kept by the
	// backend (in any state, until its retention ends), returns the first
	// job with Result.Duplicate set instead of inserting another. At most
	// MaxUniqueKeyBytes (256). Default none: every enqueue inserts a job.
	UniqueKey string
}

// resolve returns opts (nil: the zero value) with the defaults filled in,
// or the error naming every bad field.
func resolve(opts *EnqueueOpts) (EnqueueOpts, error) {
	var p EnqueueOpts
	if opts != nil {
		p = *opts
	}
	if p.Queue == "" {
		p.Queue = DefaultQueue
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.Priority == 0 {
		p.Priority = DefaultPriority
	}
	var errs []error
	if !validName(p.Queue) {
		errs = append(errs, fmt.Errorf("jobs: EnqueueOpts.Queue %q: use 1 to 128 letters, digits, '_', '-' or '.'", p.Queue))
	}
	if p.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("jobs: EnqueueOpts.MaxAttempts %d: at least 1", p.MaxAttempts))
	}
	if p.Priority < 1 || p.Priority > MaxPriority {
		errs = append(errs, fmt.Errorf("jobs: EnqueueOpts.Priority %d: 1 to %d", p.Priority, MaxPriority))
	}
	if len(p.UniqueKey) > MaxUniqueKeyBytes {
		errs = append(errs, fmt.Errorf("jobs: EnqueueOpts.UniqueKey of %d bytes: at most %d", len(p.UniqueKey), MaxUniqueKeyBytes))
	}
	return p, errors.Join(errs...)
}

// validName reports whether s is a usable kind or queue name.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}
