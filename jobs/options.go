package jobs

import (
	"errors"
	"fmt"
	"time"
)

// The defaults of an enqueued job.
const (
	// DefaultQueue is the queue a job goes to without the Queue option.
	DefaultQueue = "default"
	// DefaultMaxAttempts is a job's attempt limit without the MaxAttempts
	// option: with the backend's exponential backoff, 25 attempts span
	// about three weeks, time to fix and redeploy a worker.
	DefaultMaxAttempts = 25
	// DefaultPriority is a job's priority without the Priority option.
	DefaultPriority = 1
	// MaxPriority is the lowest priority (the largest number).
	MaxPriority = 4
	// MaxArgsBytes bounds a job's encoded arguments (1 MiB): a queue row
	// is not the place for a file; store it and enqueue its key.
	MaxArgsBytes = 1 << 20
	// MaxUniqueKeyBytes bounds the Unique option's key.
	MaxUniqueKeyBytes = 256
)

// Params are an enqueue's options, resolved. The zero value means the
// defaults above.
type Params struct {
	// Queue is the queue's name. Default DefaultQueue.
	Queue string
	// ScheduledAt is the earliest time the job runs; zero means now.
	ScheduledAt time.Time
	// MaxAttempts is the attempt limit. Default DefaultMaxAttempts.
	MaxAttempts int
	// Priority orders available jobs within a queue, 1 (first, the
	// default) to MaxPriority.
	Priority int
	// UniqueKey, when set, makes the job unique by kind and key: enqueueing
	// the same kind and key again, while the first job is kept by the
	// backend (in any state, until its retention ends), returns the first
	// job with Result.Duplicate set instead of inserting another.
	UniqueKey string
}

// Option sets an enqueue's Params.
type Option func(*Params)

// Queue puts the job on the named queue instead of DefaultQueue.
func Queue(name string) Option { return func(p *Params) { p.Queue = name } }

// Delay runs the job no sooner than d from now.
func Delay(d time.Duration) Option {
	return func(p *Params) { p.ScheduledAt = time.Now().Add(d) }
}

// At runs the job no sooner than t.
func At(t time.Time) Option { return func(p *Params) { p.ScheduledAt = t } }

// MaxAttempts sets the job's attempt limit (default DefaultMaxAttempts).
func MaxAttempts(n int) Option { return func(p *Params) { p.MaxAttempts = n } }

// Priority sets the job's priority, 1 (first) to MaxPriority.
func Priority(n int) Option { return func(p *Params) { p.Priority = n } }

// Unique makes the job unique by its kind and key (see Params.UniqueKey).
func Unique(key string) Option { return func(p *Params) { p.UniqueKey = key } }

// resolve applies opts over the defaults and checks the result.
func resolve(opts []Option) (Params, error) {
	var p Params
	if len(opts) > 0 {
		// Options get a heap copy (they are called through pointers, so
		// what they write to escapes): an enqueue without options does
		// not pay for it.
		pp := new(Params)
		for _, o := range opts {
			if o != nil {
				o(pp)
			}
		}
		p = *pp
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
		errs = append(errs, fmt.Errorf("jobs: queue name %q: use 1 to 128 letters, digits, '_', '-' or '.'", p.Queue))
	}
	if p.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("jobs: MaxAttempts %d: at least 1", p.MaxAttempts))
	}
	if p.Priority < 1 || p.Priority > MaxPriority {
		errs = append(errs, fmt.Errorf("jobs: Priority %d: 1 to %d", p.Priority, MaxPriority))
	}
	if len(p.UniqueKey) > MaxUniqueKeyBytes {
		errs = append(errs, fmt.Errorf("jobs: unique key of %d bytes: at most %d", len(p.UniqueKey), MaxUniqueKeyBytes))
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
