package main

import (
	"context"
	"fmt"
	"time"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
)

// The example's job kinds. Each is registered in every role (so that a
// web-only process can enqueue it, and refuses a kind it does not know);
// workers run in the worker and all roles only.

// sleepJob sleeps MS milliseconds, then writes one effects row tagged Tag.
type sleepJob struct {
	MS  int    `json:"ms"`
	Tag string `json:"tag"`
}

func (sleepJob) Kind() string { return "sleep" }

// uniqueJob is enqueued unique by its key; it writes one effects row tagged
// "unique:" and the key.
type uniqueJob struct {
	Key string `json:"key"`
}

func (uniqueJob) Kind() string { return "unique" }

// tickJob is the periodic job: every tickEvery, one instance of the
// deployment enqueues it, and it writes one effects row tagged "tick".
type tickJob struct{}

func (tickJob) Kind() string { return "tick" }

// tickEvery is the periodic job's period.
const tickEvery = 2 * time.Second

// registerWorkers registers every kind's worker on c.
// (The welcome mail's kind is the mail module's, registered by
// openMailer.)
func registerWorkers(c *jobs.Client, db *data.DB) {
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[sleepJob]) error {
		// The sleep ends early when the worker is stopped past the grace:
		// the job is handed back and runs again from the start, so the
		// effect is written once, by the attempt that finishes.
		t := time.NewTimer(time.Duration(j.Args.MS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("sleep %q interrupted: %w", j.Args.Tag, context.Cause(ctx))
		}
		return recordEffect(ctx, db, j.Args.Tag, j.Attempt, j.ID)
	})
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[uniqueJob]) error {
		return recordEffect(ctx, db, "unique:"+j.Args.Key, j.Attempt, j.ID)
	})
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[tickJob]) error {
		return recordEffect(ctx, db, "tick", j.Attempt, j.ID)
	})
}
