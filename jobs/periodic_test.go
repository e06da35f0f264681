package jobs_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type tick struct {
	Instance int `json:"instance"`
}

func (tick) Kind() string { return "tick" }

type cronTick struct{}

func (cronTick) Kind() string { return "cron_tick" }

// Two instances with the same schedules on one backend, for 10 periods:
// one job per tick, whichever instance enqueued it, with the tick's unique
// key.
func TestPeriodicOncePerTickAcrossInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := jobstest.New()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{}, 2)
		for i := range 2 {
			c := jobstest.NewClient(t, b)
			jobs.Handle(c, func(context.Context, *jobs.Job[tick]) error { return nil })
			jobs.Handle(c, func(context.Context, *jobs.Job[cronTick]) error { return nil })
			if err := c.Every(2*time.Second, func() jobs.Args { return tick{Instance: i} }, &jobs.EnqueueOpts{Queue: "periodic"}); err != nil {
				t.Fatal(err)
			}
			if err := c.Cron("* * * * *", func() jobs.Args { return cronTick{} }, nil); err != nil {
				t.Fatal(err)
			}
			go func() { c.RunPeriodic(ctx); done <- struct{}{} }()
		}
		// synctest's clock starts at 2000-01-01 00:00:00 UTC, a tick of
		// both: the first ticks come 2s and 60s later.
		time.Sleep(20*time.Second + time.Millisecond)
		synctest.Wait()
		jobstest.Count[tick](t, b, 10) // after 10 periods
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		cancel()
		<-done
		<-done
		jobstest.Count[tick](t, b, 160)   // after 160 periods
		jobstest.Count[cronTick](t, b, 5) // after 5 minutes
		list, _ := b.List(context.Background(), jobs.ListParams{Kinds: []string{"tick"}, Limit: 1})
		if len(list) != 1 || list[0].Queue != "periodic" {
			t.Errorf("newest tick job: %+v", list)
		}
		// The ticks' jobs are unique by tick: enqueueing the last tick
		// again is a duplicate.
		c := jobstest.NewClient(t, b)
		jobs.Handle(c, func(context.Context, *jobs.Job[tick]) error { return nil })
		last := time.Date(2000, 1, 1, 0, 5, 20, 0, time.UTC)
		res, err := c.Enqueue(context.Background(), tick{}, &jobs.EnqueueOpts{UniqueKey: "every 2s@" + last.Format(time.RFC3339Nano)})
		if err != nil || !res.Duplicate || res.ID != list[0].ID {
			t.Errorf("the last tick again: %+v %v (newest %d)", res, err, list[0].ID)
		}
	})
}

// Registration refuses a short period, a bad spec, a nil function and bad
// options.
func TestPeriodicRegistration(t *testing.T) {
	c := jobstest.NewClient(t, jobstest.New())
	f := func() jobs.Args { return tick{} }
	for name, err := range map[string]error{
		"period":  c.Every(time.Millisecond, f, nil),
		"spec":    c.Cron("* * *", f, nil),
		"nil":     c.Every(time.Second, nil, nil),
		"options": c.Cron("@hourly", f, &jobs.EnqueueOpts{Priority: 9}),
	} {
		if err == nil {
			t.Errorf("%s: registered", name)
		}
	}
	if err := c.Every(time.Second, f, nil); err != nil {
		t.Error(err)
	}
	if err := c.Cron("@hourly", f, nil); err != nil {
		t.Error(err)
	}
	if err := c.Cron("0 0 30 2 *", f, nil); err == nil || !strings.Contains(err.Error(), "never fires") {
		t.Errorf("February 30th: %v", err)
	}
}
