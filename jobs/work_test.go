package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type timed struct {
	Mode string `json:"mode"`
}

func (timed) Kind() string { return "timed" }

// A worker that returns its context's error when the job timeout passes
// gets an error that still is context.DeadlineExceeded and names the
// timeout; a deadline of the worker's own (an HTTP client's) is returned
// as it is.
func TestWorkTimeoutNamed(t *testing.T) {
	c, err := jobs.NewClient(jobs.Config{Backend: jobstest.New(), JobTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	own := fmt.Errorf("fetching the feed: %w", context.DeadlineExceeded)
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[timed]) error {
		if j.Args.Mode == "own" {
			return own
		}
		<-ctx.Done()
		return ctx.Err()
	})
	ctx := context.Background()
	err = c.Work(ctx, &jobs.Execution{ID: 1, Kind: "timed", Args: []byte(`{"mode":"wait"}`), Attempt: 1, MaxAttempts: 3})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "job timeout of 20ms passed") {
		t.Errorf("the job timeout: %v, want context.DeadlineExceeded naming the timeout", err)
	}
	err = c.Work(ctx, &jobs.Execution{ID: 2, Kind: "timed", Args: []byte(`{"mode":"own"}`), Attempt: 1, MaxAttempts: 3})
	if err == nil || err.Error() != own.Error() || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the worker's own deadline: %v, want %v as it is", err, own)
	}
}

// A failed attempt is logged through the App's logger as a warning while
// attempts remain, and as an error on the last one (the job is then
// discarded), with the job's id, kind, attempt and the error.
func TestWorkFailureLogLevel(t *testing.T) {
	s := newServer(t, jobs.Config{}, 5*time.Second)
	jobs.Handle(s.c, func(context.Context, *jobs.Job[timed]) error { return errors.New("451 try later") })
	s.start(t)
	s.wait(t, s.enqueue(t, sleep{}), jobs.StateCompleted) // Attach gave the Client the App's logger
	ctx := context.Background()
	for _, tc := range []struct {
		id           int64
		attempt, max int
		level        string
	}{
		{101, 1, 3, "WARN"},
		{102, 2, 3, "WARN"},
		{103, 3, 3, "ERROR"},
		{104, 4, 3, "ERROR"}, // past the limit (a lowered MaxAttempts)
	} {
		err := s.c.Work(ctx, &jobs.Execution{ID: tc.id, Kind: "timed", Args: []byte(`{}`), Attempt: tc.attempt, MaxAttempts: tc.max})
		if err == nil || err.Error() != "451 try later" {
			t.Errorf("attempt %d: %v", tc.attempt, err)
		}
		want := fmt.Sprintf(`level=%s msg="jobs: job failed" job_id=%d kind=timed attempt=%d max_attempts=%d error="451 try later"`, tc.level, tc.id, tc.attempt, tc.max)
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, s.log)
		}
	}
}

// Each option's limit is inclusive: one attempt, priority 4, a unique key
// of MaxUniqueKeyBytes and a queue name of 128 characters are accepted;
// one past each is refused.
func TestEnqueueLimitsInclusive(t *testing.T) {
	c, b := newClient(t)
	ctx := context.Background()
	ok := &jobs.EnqueueOpts{MaxAttempts: 1, Priority: jobs.MaxPriority, UniqueKey: strings.Repeat("k", jobs.MaxUniqueKeyBytes), Queue: strings.Repeat("q", 128)}
	res, err := c.Enqueue(ctx, welcome{}, ok)
	if err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	if info, _ := c.Job(ctx, res.ID); info.MaxAttempts != 1 || info.Priority != jobs.MaxPriority || len(info.Queue) != 128 {
		t.Errorf("stored: %+v", info)
	}
	for name, opts := range map[string]*jobs.EnqueueOpts{
		"a queue name of 129": {Queue: strings.Repeat("q", 129)},
		"a unique key of 257": {UniqueKey: strings.Repeat("k", jobs.MaxUniqueKeyBytes+1)},
	} {
		if _, err := c.Enqueue(ctx, welcome{}, opts); err == nil {
			t.Errorf("%s: enqueued", name)
		}
	}
	b.Count(t, 1)
}
