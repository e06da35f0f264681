package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/plinth-go/plinth"
)

// ReadinessTimeout bounds Attach's readiness check, the backend's Ping.
const ReadinessTimeout = 2 * time.Second

// MaxStopMargin bounds the part of the grace period Attach keeps for
// handing running jobs back and exiting (StopMargin).
const MaxStopMargin = 2 * time.Second

// StopMargin is how long before the end of the App's grace period Attach
// hard-stops the workers: a tenth of grace, at most MaxStopMargin (2s).
// With the default 30s ShutdownTimeout, running jobs get 28s to finish
// after the drain starts, then are cancelled and handed back.
func StopMargin(grace time.Duration) time.Duration { return min(grace/10, MaxStopMargin) }

// Attach installs c on app, before it is built, with the configuration
// NewClient resolved:
//
//   - it declares PLINTH_JOB_TIMEOUT and PLINTH_ROLE (App.DeclareEnv),
//     which NewClient read;
//   - in roles RoleWorker and RoleAll, an OnStart hook starts the
//     backend's workers on Config.Queues (for every kind registered with
//     Handle) and the periodic schedules (Every, Cron); in RoleWeb,
//     nothing runs, and Enqueue works for the registered kinds. The HTTP
//     server runs in every role;
//   - when the App's drain starts (App.Draining), the periodic schedules
//     stop and the workers' soft stop begins: no job is fetched and the
//     running ones may finish. At the end of the grace period less
//     StopMargin (the grace is the App's DrainDelay plus ShutdownTimeout),
//     the hard stop cancels the jobs still running and the backend hands
//     them back to the queue, to run again (in another instance, or after
//     the restart), so the process still exits, with status 0, within its
//     grace period. An OnStop hook waits for the stop;
//   - a degraded check named "queue" (the backend's Ping within
//     ReadinessTimeout, with App.DegradedCheck): /readyz names the queue
//     "degraded" while its store does not answer, and stays 200, since
//     every instance shares that store and a failing readiness check
//     would take them all out of rotation at once; an enqueue meanwhile
//     returns the store's error (503 through data.Attach's error
//     mapping), and the workers resume by themselves once it is back;
//   - the workers' failures and panics are logged through the App's
//     logger (Config.Logger, else App.Logger, else slog.Default()) with
//     the job's id, kind and attempt;
//   - the admin mode of `plinth jobs` (PLINTH_INSPECT=jobs, in a
//     plinth_inspect build) answers from c.
//
// Register the kinds (Handle) and the periodic jobs (Every, Cron) before
// the App starts. Attach one Client per App: a second Attach panics (the
// "jobs" admin mode is taken).
func (c *Client) Attach(app *plinth.App) {
	app.DeclareEnv(envNames()...)
	app.DegradedCheck("queue", ReadinessTimeout, c.backend.Ping)
	app.AddInspection("jobs", c.inspect)
	r := &runner{app: app, c: c, cfg: c.cfg, done: make(chan struct{})}
	app.OnStart(r.start)
	app.OnStop(r.stop)
}

// runner is Attach's lifecycle of the workers.
type runner struct {
	app *plinth.App
	c   *Client
	cfg Config // resolved by NewClient

	grace  time.Duration // the App's DrainDelay + ShutdownTimeout
	margin time.Duration // StopMargin(ShutdownTimeout)
	log    *slog.Logger
	cancel context.CancelFunc // stops the periodic schedules

	periodicDone chan struct{} // closed when RunPeriodic has returned

	once    sync.Once
	started bool
	done    chan struct{} // closed when the stop has ended
	err     error         // the stop's error, once done
}

func (r *runner) start(ctx context.Context) error {
	r.log = cmp.Or(r.app.Config.Logger, r.app.Logger)
	if r.log == nil {
		r.log = slog.Default()
	}
	r.c.log.Store(r.log)
	cfg := r.cfg
	pc, err := plinth.ResolveConfig(r.app.Config)
	if err != nil {
		return err
	}
	r.grace = pc.DrainDelay + pc.ShutdownTimeout
	r.margin = StopMargin(pc.ShutdownTimeout)
	kinds := r.c.Kinds()
	if !cfg.Role.Workers() {
		r.log.Info("jobs: role web: no workers in this process", "role", cfg.Role.String(), "kinds", kinds)
		return nil
	}
	if err := r.c.checkPeriodic(); err != nil {
		return err
	}
	// The backend outlives Serve's context, which ends when the drain
	// starts: the stop is ours to make, softly.
	bctx := context.WithoutCancel(ctx)
	if err := r.c.backend.Start(bctx, cfg.Queues, kinds, r.c.Work); err != nil {
		return fmt.Errorf("jobs: starting the workers: %w", err)
	}
	r.started = true
	pctx, cancel := context.WithCancel(bctx)
	r.cancel = cancel
	r.periodicDone = make(chan struct{})
	go func() {
		defer close(r.periodicDone)
		r.c.RunPeriodic(pctx)
	}()
	go func() {
		select {
		case <-r.app.Draining():
			r.beginStop(time.Now().Add(r.grace))
		case <-r.done:
		}
	}()
	r.log.Info("jobs: workers started", "role", cfg.Role.String(), "queues", cfg.Queues, "kinds", kinds,
		"job_timeout", cfg.JobTimeout, "periodic", r.c.periodicCount(), "stop_margin", r.margin)
	return nil
}

// beginStop stops the schedules and the workers, once: the soft stop
// until end less the margin, then the hard stop, done before end less
// half the margin.
func (r *runner) beginStop(end time.Time) {
	r.once.Do(func() { go r.stopWorkers(end) })
}

func (r *runner) stopWorkers(end time.Time) {
	defer close(r.done)
	r.cancel()
	margin := min(r.margin, StopMargin(time.Until(end)))
	soft, cancelSoft := context.WithDeadline(context.Background(), end.Add(-margin))
	defer cancelSoft()
	hard, cancelHard := context.WithDeadline(context.Background(), end.Add(-margin/2))
	defer cancelHard()
	r.log.Info("jobs: stopping the workers", "running_until", end.Add(-margin).Format(time.RFC3339Nano))
	start := time.Now()
	r.err = r.c.backend.Stop(soft, hard)
	<-r.periodicDone
	if r.err != nil {
		r.log.Error("jobs: workers stopped with an error", "took", time.Since(start).Round(time.Millisecond), "error", r.err)
		return
	}
	r.log.Info("jobs: workers stopped", "took", time.Since(start).Round(time.Millisecond), "hard_stop", soft.Err() != nil)
}

// stop is the OnStop hook: it waits for the stop the drain began (or,
// after a failed start, begins it within ctx) until ctx ends.
func (r *runner) stop(ctx context.Context) error {
	if !r.started {
		return nil
	}
	end, ok := ctx.Deadline()
	if !ok {
		end = time.Now().Add(r.grace)
	}
	r.beginStop(end)
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return errors.New("jobs: the workers did not stop within the grace period")
	}
}
