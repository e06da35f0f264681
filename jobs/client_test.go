package jobs_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type welcome struct {
	Email string `json:"email"`
	Name  string `json:"name"`
}

func (welcome) Kind() string { return "welcome" }

type unregistered struct{}

func (unregistered) Kind() string { return "unregistered" }

type withChan struct{ C chan int }

func (withChan) Kind() string { return "with_chan" }

type withFunc struct{ F func() }

func (withFunc) Kind() string { return "with_func" }

type withFloat struct{ F float64 }

func (withFloat) Kind() string { return "with_float" }

type big struct{ S string }

func (big) Kind() string { return "big" }

func newClient(t *testing.T) (*jobs.Client, *jobstest.Backend) {
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	jobs.Handle(c, func(context.Context, *jobs.Job[welcome]) error { return nil })
	jobs.Handle(c, func(context.Context, *jobs.Job[withChan]) error { return nil })
	jobs.Handle(c, func(context.Context, *jobs.Job[withFunc]) error { return nil })
	jobs.Handle(c, func(context.Context, *jobs.Job[withFloat]) error { return nil })
	jobs.Handle(c, func(context.Context, *jobs.Job[big]) error { return nil })
	return c, b
}

// Enqueue refuses, storing nothing and with an error naming the cause, an
// unknown kind, arguments that do not encode, arguments over MaxArgsBytes
// and bad options; it stores a good job with the defaults.
func TestEnqueueRefusals(t *testing.T) {
	c, b := newClient(t)
	ctx := context.Background()
	cases := []struct {
		name string
		args jobs.Args
		opts *jobs.EnqueueOpts
		is   error
		msg  string
	}{
		{"unknown kind", unregistered{}, nil, jobs.ErrUnknownKind, `"unregistered"`},
		{"nil arguments", nil, nil, jobs.ErrUnknownKind, "nil arguments"},
		{"a channel", withChan{C: make(chan int)}, nil, jobs.ErrEncode, "chan int"},
		{"a func", withFunc{F: func() {}}, nil, jobs.ErrEncode, "func()"},
		{"NaN", withFloat{F: math.NaN()}, nil, jobs.ErrEncode, "NaN"},
		{"+Inf", withFloat{F: math.Inf(1)}, nil, jobs.ErrEncode, "+Inf"},
		{"over 1 MiB", big{S: strings.Repeat("x", jobs.MaxArgsBytes)}, nil, jobs.ErrTooLarge, "at most 1048576"},
		{"bad queue", welcome{}, &jobs.EnqueueOpts{Queue: "no spaces"}, nil, `EnqueueOpts.Queue "no spaces"`},
		{"MaxAttempts 0 is the default, -1 is not", welcome{}, &jobs.EnqueueOpts{MaxAttempts: -1}, nil, "EnqueueOpts.MaxAttempts -1"},
		{"priority 5", welcome{}, &jobs.EnqueueOpts{Priority: 5}, nil, "EnqueueOpts.Priority 5: 1 to 4"},
		{"priority -1", welcome{}, &jobs.EnqueueOpts{Priority: -1}, nil, "EnqueueOpts.Priority -1"},
		{"long unique key", welcome{}, &jobs.EnqueueOpts{UniqueKey: strings.Repeat("k", jobs.MaxUniqueKeyBytes+1)}, nil, "EnqueueOpts.UniqueKey of 257 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Enqueue(ctx, tc.args, tc.opts)
			if err == nil {
				t.Fatal("enqueued")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
	b.Count(t, 0)

	// Just under the limit is fine ({"S":"..."} is 8 bytes more).
	if _, err := c.Enqueue(ctx, big{S: strings.Repeat("x", jobs.MaxArgsBytes-8)}, nil); err != nil {
		t.Errorf("1 MiB exactly: %v", err)
	}
	res, err := c.Enqueue(ctx, welcome{Email: "a@example.com"}, nil)
	if err != nil || res.ID == 0 || res.Duplicate || res.InTx {
		t.Fatalf("enqueue: %+v %v", res, err)
	}
	info, err := c.Job(ctx, res.ID)
	if err != nil || info.Queue != jobs.DefaultQueue || info.MaxAttempts != jobs.DefaultMaxAttempts ||
		info.Priority != jobs.DefaultPriority || info.State != jobs.StateAvailable || string(info.Args) != `{"email":"a@example.com","name":""}` {
		t.Errorf("stored: %+v %v", info, err)
	}
	if _, err := c.Job(ctx, 999); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("Job(999): %v", err)
	}
}

// Options land in the stored job; ScheduledAt schedules it; the caller's
// EnqueueOpts are not changed (the defaults are filled in a copy).
func TestEnqueueOptions(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	at := time.Now().Add(time.Hour).Round(0)
	opts := &jobs.EnqueueOpts{Queue: "mail", ScheduledAt: at, MaxAttempts: 3, Priority: 4}
	res, err := c.Enqueue(ctx, welcome{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := c.Job(ctx, res.ID)
	if info.Queue != "mail" || !info.ScheduledAt.Equal(at) || info.MaxAttempts != 3 || info.Priority != 4 || info.State != jobs.StateScheduled {
		t.Errorf("stored: %+v", info)
	}
	defaults := &jobs.EnqueueOpts{}
	res, _ = c.Enqueue(ctx, welcome{}, defaults)
	if info, _ := c.Job(ctx, res.ID); info.Queue != jobs.DefaultQueue || info.MaxAttempts != jobs.DefaultMaxAttempts || info.Priority != jobs.DefaultPriority {
		t.Errorf("zero EnqueueOpts: %+v", info)
	}
	if *defaults != (jobs.EnqueueOpts{}) {
		t.Errorf("Enqueue changed the caller's EnqueueOpts: %+v", *defaults)
	}
}

// EnqueueMany checks every job first: one bad job fails the batch, naming
// it, and nothing is stored; a good batch is stored in order.
func TestEnqueueMany(t *testing.T) {
	c, b := newClient(t)
	ctx := context.Background()
	_, err := c.EnqueueMany(ctx, []jobs.Batch{{Args: welcome{}}, {Args: unregistered{}}, {Args: welcome{}, Opts: &jobs.EnqueueOpts{Priority: 9}}})
	if err == nil || !strings.Contains(err.Error(), "job 1:") || !strings.Contains(err.Error(), "job 2:") || !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("bad batch: %v", err)
	}
	b.Count(t, 0)
	res, err := c.EnqueueMany(ctx, []jobs.Batch{{Args: welcome{Name: "a"}}, {Args: welcome{Name: "b"}}})
	if err != nil || len(res) != 2 || res[0].ID >= res[1].ID {
		t.Fatalf("batch: %+v %v", res, err)
	}
	got := jobstest.Count[welcome](t, b, 2)
	if got[0].Name != "a" || got[1].Name != "b" {
		t.Errorf("stored: %+v", got)
	}
}

// Handle panics at registration on a bad kind name, a nil worker, or a
// kind registered twice.
func TestHandlePanics(t *testing.T) {
	mustPanic := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), want) {
				t.Errorf("%s: panic %v, want one saying %q", name, r, want)
			}
		}()
		f()
	}
	c := jobstest.NewClient(t, jobstest.New())
	mustPanic("empty kind", `kind ""`, func() { jobs.Handle(c, func(context.Context, *jobs.Job[emptyKind]) error { return nil }) })
	mustPanic("bad kind", `kind "a b"`, func() { jobs.Handle(c, func(context.Context, *jobs.Job[spaceKind]) error { return nil }) })
	mustPanic("nil worker", "nil worker", func() { jobs.Handle[welcome](c, nil) })
	jobs.Handle(c, func(context.Context, *jobs.Job[welcome]) error { return nil })
	mustPanic("twice", "registered twice", func() { jobs.Handle(c, func(context.Context, *jobs.Job[welcome]) error { return nil }) })
	mustPanic("nil backend", "Config.Backend is nil", func() { _, _ = jobs.NewClient(jobs.Config{}) })
	if k := c.Kinds(); len(k) != 1 || k[0] != "welcome" {
		t.Errorf("Kinds: %v", k)
	}
}

type emptyKind struct{}

func (emptyKind) Kind() string { return "" }

type spaceKind struct{}

func (spaceKind) Kind() string { return "a b" }

// Work hands the worker the decoded arguments and the execution's facts;
// arguments that no longer decode discard the job; an unknown kind
// discards it; a panic becomes the attempt's error.
func TestWork(t *testing.T) {
	c := jobstest.NewClient(t, jobstest.New())
	var got *jobs.Job[welcome]
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[welcome]) error {
		if j.Args.Name == "panic" {
			panic("worker bug")
		}
		got = j
		return nil
	})
	ctx := context.Background()
	created := time.Now()
	e := &jobs.Execution{ID: 7, Kind: "welcome", Args: []byte(`{"email":"e","name":"n"}`), Attempt: 2, MaxAttempts: 5, Queue: "q", CreatedAt: created,
		Errors: []jobs.AttemptError{{Attempt: 1, Error: "first"}}}
	if err := c.Work(ctx, e); err != nil || got == nil || got.ID != 7 || got.Args != (welcome{"e", "n"}) || got.Attempt != 2 ||
		got.MaxAttempts != 5 || got.Queue != "q" || !got.CreatedAt.Equal(created) || len(got.Errors) != 1 {
		t.Fatalf("Work: %v %+v", err, got)
	}
	err := c.Work(ctx, &jobs.Execution{ID: 8, Kind: "welcome", Args: []byte(`{"email":5}`), Attempt: 1, MaxAttempts: 5})
	if ce, ok := errors.AsType[*jobs.ControlError](err); !ok || ce.Outcome != jobs.OutcomeDiscard || !strings.Contains(err.Error(), "decoding welcome arguments") {
		t.Errorf("undecodable: %v", err)
	}
	err = c.Work(ctx, &jobs.Execution{ID: 9, Kind: "gone", Args: []byte(`{}`), Attempt: 1, MaxAttempts: 5})
	if ce, ok := errors.AsType[*jobs.ControlError](err); !ok || ce.Outcome != jobs.OutcomeDiscard || !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	err = c.Work(ctx, &jobs.Execution{ID: 10, Kind: "welcome", Args: []byte(`{"name":"panic"}`), Attempt: 1, MaxAttempts: 5})
	if err == nil || !strings.Contains(err.Error(), "worker panicked: worker bug") {
		t.Errorf("panic: %v", err)
	}
	if _, ok := errors.AsType[*jobs.ControlError](err); ok {
		t.Error("a panic is a control error; want a plain, retried failure")
	}
}

// The control errors say what they ask, and unwrap to the reason.
func TestControlErrors(t *testing.T) {
	reason := errors.New("bounced")
	for _, tc := range []struct {
		err  error
		out  jobs.Outcome
		text string
	}{
		{jobs.Cancel(reason), jobs.OutcomeCancel, "jobs: cancelled: bounced"},
		{jobs.Discard(reason), jobs.OutcomeDiscard, "jobs: discarded: bounced"},
		{jobs.Discard(nil), jobs.OutcomeDiscard, "jobs: discarded: no reason given"},
		{jobs.Snooze(time.Minute), jobs.OutcomeSnooze, "jobs: snoozed for 1m0s"},
	} {
		ce, ok := errors.AsType[*jobs.ControlError](tc.err)
		if !ok || ce.Outcome != tc.out || tc.err.Error() != tc.text {
			t.Errorf("%v: %+v", tc.err, ce)
		}
	}
	if !errors.Is(jobs.Cancel(reason), reason) {
		t.Error("Cancel does not unwrap to its reason")
	}
}
