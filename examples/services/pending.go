package main

// The part whose branch has not landed yet: the jobs lifecycle
// (jobs.Attach: PLINTH_ROLE, the workers' soft and hard stop tied to the
// drain, periodic jobs). Until it does, a thin adapter here ties the River
// backend's Start and Stop to the App and enqueues the periodic job with a
// unique key per period; it goes once jobs.Attach is merged.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	riverjobs "github.com/plinth-go/plinth/jobs/river"
)

// role is PLINTH_ROLE: web, worker or all (the default).
func role() (string, error) {
	switch r := os.Getenv("PLINTH_ROLE"); r {
	case "":
		return "all", nil
	case "web", "worker", "all":
		return r, nil
	default:
		return "", fmt.Errorf("PLINTH_ROLE=%q: want web, worker or all", r)
	}
}

// grace is the drain's grace period (PLINTH_SHUTDOWN_TIMEOUT, default 30s).
func grace() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PLINTH_SHUTDOWN_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return plinth.DefaultShutdownTimeout
}

// attachJobs runs the workers in the worker and all roles: started before
// the App serves, stopped when the drain starts (soft: wait for the running
// jobs until the grace less a margin; hard: cancel them and hand them back
// to the queue), so the process exits 0 within the grace.
func attachJobs(app *plinth.App, client *jobs.Client) error {
	app.DeclareEnv(append([]string{"PLINTH_ROLE"}, riverjobs.EnvNames()...)...)
	r, err := role()
	if err != nil {
		return err
	}
	if r == "web" {
		return nil
	}
	b := client.Backend()
	done := make(chan error, 1)
	app.OnStart(func(ctx context.Context) error {
		if err := b.Start(ctx, nil, client.Kinds(), client.Work); err != nil {
			return err
		}
		go func() {
			<-app.Draining()
			g := grace()
			margin := min(time.Second, g/4)
			start := time.Now()
			soft, cancelSoft := context.WithDeadline(context.Background(), start.Add(g-2*margin))
			hard, cancelHard := context.WithDeadline(context.Background(), start.Add(g-margin))
			defer cancelSoft()
			defer cancelHard()
			done <- b.Stop(soft, hard)
		}()
		return nil
	})
	app.OnStop(func(ctx context.Context) error {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return nil
}

// periodic enqueues args every period from every instance, unique by the
// period's start: the first instance's insert wins, the others' are
// duplicates, so one job runs per period.
func periodic(app *plinth.App, client *jobs.Client, period time.Duration, args jobs.Args) error {
	app.OnStart(func(context.Context) error {
		go func() {
			for {
				next := time.Now().Truncate(period).Add(period)
				select {
				case <-time.After(time.Until(next)):
				case <-app.Draining():
					return
				}
				key := args.Kind() + "@" + strconv.FormatInt(next.Unix(), 10)
				if _, err := client.Enqueue(context.Background(), args, jobs.Unique(key)); err != nil {
					slog.Error("periodic job not enqueued", "kind", args.Kind(), "error", err)
				}
			}
		}()
		return nil
	})
	return nil
}

// redisPending makes the Redis checks skip until cache/redis is merged
// (PLINTH_CACHE_URL=redis://... is refused at start until then).
const redisPending = true
