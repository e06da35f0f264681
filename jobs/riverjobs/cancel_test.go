package riverjobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/plinth-go/plinth/jobs"
)

// TestCancelFinished: Cancel of a completed, discarded or cancelled job is
// refused with an error wrapping jobs.ErrFinished that names the job and
// its state, and leaves the job as it was (River's JobCancel returns such
// a job unchanged, with no error).
func TestCancelFinished(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			f.start(t)
			ctx := context.Background()
			enq := func(a jobs.Args, opts *jobs.EnqueueOpts) int64 {
				r, err := f.client.Enqueue(ctx, a, opts)
				if err != nil {
					t.Fatal(err)
				}
				return r.ID
			}
			completed, discarded := enq(echoArgs{Msg: "done"}, nil), enq(ctlArgs{Do: "discard"}, nil)
			later := enq(echoArgs{Msg: "later"}, &jobs.EnqueueOpts{ScheduledAt: time.Now().Add(time.Hour)})
			f.waitState(t, completed, jobs.StateCompleted)
			f.waitState(t, discarded, jobs.StateDiscarded)
			if in, err := f.backend.Cancel(ctx, later); err != nil || in.State != jobs.StateCancelled {
				t.Fatalf("cancel of a scheduled job: %+v %v", in, err)
			}
			for id, state := range map[int64]jobs.State{completed: jobs.StateCompleted, discarded: jobs.StateDiscarded, later: jobs.StateCancelled} {
				before, err := f.backend.Job(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				in, err := f.backend.Cancel(ctx, id)
				if !errors.Is(err, jobs.ErrFinished) || !strings.Contains(err.Error(), fmt.Sprintf("job %d is %s", id, state)) {
					t.Errorf("cancel of %s job %d: %+v, %v; want an error wrapping jobs.ErrFinished naming it", state, id, in, err)
				}
				after, err := f.backend.Job(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if after.State != state || !after.FinalizedAt.Equal(before.FinalizedAt) {
					t.Errorf("job %d after the refused cancel: %s finalized %v, want %s finalized %v", id, after.State, after.FinalizedAt, state, before.FinalizedAt)
				}
			}
			if _, err := f.backend.Cancel(ctx, 1<<40); !errors.Is(err, jobs.ErrNotFound) {
				t.Errorf("cancel of an unknown job: %v, want jobs.ErrNotFound", err)
			}
		})
	}
}

// TestFinishedBefore is Cancel's rule on the rows read before and
// returned by JobCancel, including the races: a job that finishes between
// the read and JobCancel is refused, one that ends cancelled meanwhile is
// not.
func TestFinishedBefore(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Second)
	row := func(s rivertype.JobState, fin *time.Time) *rivertype.JobRow {
		return &rivertype.JobRow{State: s, FinalizedAt: fin}
	}
	for _, c := range []struct {
		name          string
		before, after *rivertype.JobRow
		refused       bool
	}{
		{"available, cancelled by the call", row(rivertype.JobStateAvailable, nil), row(rivertype.JobStateCancelled, &t1), false},
		{"running, cancellation marked", row(rivertype.JobStateRunning, nil), row(rivertype.JobStateRunning, nil), false},
		{"completed already", row(rivertype.JobStateCompleted, &t0), row(rivertype.JobStateCompleted, &t0), true},
		{"discarded already", row(rivertype.JobStateDiscarded, &t0), row(rivertype.JobStateDiscarded, &t0), true},
		{"cancelled already", row(rivertype.JobStateCancelled, &t0), row(rivertype.JobStateCancelled, &t0), true},
		{"completed between the read and the call", row(rivertype.JobStateRunning, nil), row(rivertype.JobStateCompleted, &t1), true},
		{"discarded between the read and the call", row(rivertype.JobStateRetryable, nil), row(rivertype.JobStateDiscarded, &t1), true},
		{"ended cancelled between the read and the call", row(rivertype.JobStateRunning, nil), row(rivertype.JobStateCancelled, &t1), false},
		{"cancelled, retried and cancelled again meanwhile", row(rivertype.JobStateCancelled, &t0), row(rivertype.JobStateCancelled, &t1), false},
	} {
		if got := finishedBefore(c.before, c.after); got != c.refused {
			t.Errorf("%s: refused %v, want %v", c.name, got, c.refused)
		}
	}
}
