package jobs

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MinEvery is the shortest period Every accepts.
const MinEvery = time.Second

// periodicEnqueueTimeout bounds one tick's enqueue.
const periodicEnqueueTimeout = 10 * time.Second

// periodic is one registered schedule.
type periodic struct {
	sched schedule
	args  func() Args
	opts  EnqueueOpts // as given; UniqueKey replaced at each tick
}

// Every registers a periodic job: args' result is enqueued (with opts, nil
// for the defaults) at every multiple of d since the Unix epoch, so that
// every instance agrees on the ticks whenever it started. The job is
// enqueued once per tick across instances: each instance enqueues it with
// the unique key "<schedule>@<tick time>" (EnqueueOpts.UniqueKey, which
// replaces the one of opts), and the backend keeps one job per kind and key. Ticks run
// only in processes with workers (RoleWorker, RoleAll), from the App's
// start (Attach) or RunPeriodic; a tick missed while no instance ran is
// not made up. d is at least MinEvery (1s). Register before the App
// starts.
func (c *Client) Every(d time.Duration, args func() Args, opts *EnqueueOpts) error {
	if d < MinEvery {
		return fmt.Errorf("jobs: Every(%s): the period is at least %s", d, MinEvery)
	}
	return c.addPeriodic(every(d), args, opts)
}

// Cron is Every on a cron schedule, in UTC: five fields (minute, hour,
// day of month, month, day of week), each *, a number, a range (1-5), a
// list (1,15), any of them with a step (*/5, 0-30/10); months and weekdays
// may be named (jan, mon; Sunday is 0 or 7); or one of @hourly, @daily
// (@midnight), @weekly, @monthly, @yearly (@annually). When both day
// fields are restricted, a day matching either runs, as in Vixie cron. A
// bad spec, or one that never fires ("0 0 30 2 *"), is an error here.
func (c *Client) Cron(spec string, args func() Args, opts *EnqueueOpts) error {
	s, err := parseCron(spec, time.UTC)
	if err != nil {
		return err
	}
	return c.addPeriodic(s, args, opts)
}

func (c *Client) addPeriodic(s schedule, args func() Args, opts *EnqueueOpts) error {
	if args == nil {
		return fmt.Errorf("jobs: periodic job %s: nil arguments function", s)
	}
	if _, err := resolve(opts); err != nil {
		return fmt.Errorf("jobs: periodic job %s: %w", s, err)
	}
	p := &periodic{sched: s, args: args}
	if opts != nil {
		p.opts = *opts
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.periodic = append(c.periodic, p)
	return nil
}

// checkPeriodic reports a periodic job whose kind is not registered, by
// calling each arguments function once.
func (c *Client) checkPeriodic() error {
	c.mu.RLock()
	ps := c.periodic
	c.mu.RUnlock()
	for _, p := range ps {
		a := p.args()
		if a == nil {
			return fmt.Errorf("jobs: periodic job %s: the arguments function returned nil", p.sched)
		}
		c.mu.RLock()
		_, ok := c.kinds[a.Kind()]
		c.mu.RUnlock()
		if !ok {
			return fmt.Errorf("%w %q of periodic job %s: register it with jobs.Handle", ErrUnknownKind, a.Kind(), p.sched)
		}
	}
	return nil
}

// periodicCount returns the number of registered schedules.
func (c *Client) periodicCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.periodic)
}

// tickKey is the unique key of a schedule's tick.
func tickKey(s schedule, tick time.Time) string {
	return s.String() + "@" + tick.UTC().Format(time.RFC3339Nano)
}

// RunPeriodic enqueues the registered periodic jobs at their ticks until
// ctx ends; it returns at once when none is registered. Attach runs it in
// processes with workers; call it yourself only without Attach. A failed
// enqueue is logged and the schedule goes on with the next tick.
func (c *Client) RunPeriodic(ctx context.Context) {
	c.mu.RLock()
	ps := c.periodic
	c.mu.RUnlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Go(func() { c.runSchedule(ctx, p) })
	}
	wg.Wait()
}

func (c *Client) runSchedule(ctx context.Context, p *periodic) {
	for {
		tick := p.sched.next(time.Now())
		if tick.IsZero() {
			return
		}
		t := time.NewTimer(time.Until(tick))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		c.enqueueTick(ctx, p, tick)
	}
}

// enqueueTick enqueues p's job for tick, unique by the tick.
func (c *Client) enqueueTick(ctx context.Context, p *periodic, tick time.Time) {
	args := p.args()
	if args == nil {
		c.logger().Error("jobs: periodic job: the arguments function returned nil", "schedule", p.sched.String(), "tick", tick)
		return
	}
	opts := p.opts
	opts.UniqueKey = tickKey(p.sched, tick)
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), periodicEnqueueTimeout)
	defer cancel()
	res, err := c.Enqueue(ectx, args, &opts)
	if err != nil {
		c.logger().Error("jobs: periodic job not enqueued", "schedule", p.sched.String(), "kind", args.Kind(), "tick", tick, "error", err)
		return
	}
	c.logger().Debug("jobs: periodic job", "schedule", p.sched.String(), "kind", args.Kind(), "tick", tick, "job_id", res.ID, "duplicate", res.Duplicate)
}
