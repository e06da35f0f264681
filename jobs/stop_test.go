package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// stopRecorder is the test backend with its Stop observed: the deadlines
// Attach gave the soft and the hard stop, and an error Stop returns.
type stopRecorder struct {
	*jobstest.Backend

	mu         sync.Mutex
	soft, hard time.Time // the contexts' deadlines
	calledAt   time.Time
	err        error // returned by Stop, after the real stop
}

func (r *stopRecorder) Stop(soft, hard context.Context) error {
	r.mu.Lock()
	r.soft, _ = soft.Deadline()
	r.hard, _ = hard.Deadline()
	r.calledAt = time.Now()
	stopErr := r.err
	r.mu.Unlock()
	if err := r.Backend.Stop(soft, hard); err != nil {
		return err
	}
	return stopErr
}

// serveRecorded serves an App with a Client over a stopRecorder until its
// workers run a job, and returns the recorder, the App's log, the
// function that starts the drain and Serve's result.
func serveRecorded(t *testing.T, drainDelay, shutdown time.Duration, stopErr error) (*stopRecorder, *syncbuf.Buffer, func() error) {
	t.Helper()
	rec := &stopRecorder{Backend: jobstest.New(), err: stopErr}
	log := &syncbuf.Buffer{}
	app := plinth.New()
	app.Config.Addr = "127.0.0.1:0"
	app.Config.DrainDelay = drainDelay
	app.Config.ShutdownTimeout = shutdown
	app.Config.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := jobs.NewClient(jobs.Config{Backend: rec})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{}, 1)
	jobs.Handle(c, func(context.Context, *jobs.Job[sleep]) error { ran <- struct{}{}; return nil })
	c.Attach(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cancel()
			<-done
		}
	})
	if _, err := c.Enqueue(context.Background(), sleep{}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran: // the workers run
	case err := <-done:
		stopped = true
		t.Fatalf("Serve returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the workers did not run the job")
	}
	return rec, log, func() error {
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not return")
			return nil
		}
	}
}

// The stop's deadlines fall within the grace period, which is the App's
// DrainDelay plus its ShutdownTimeout: the soft stop runs until the end of
// the grace less StopMargin, the hard stop comes at most half the margin
// later, and the log gives the soft stop's end.
func TestAttachStopDeadlines(t *testing.T) {
	const drainDelay, shutdown = 300 * time.Millisecond, time.Second
	grace := drainDelay + shutdown
	margin := jobs.StopMargin(shutdown)
	rec, log, stop := serveRecorded(t, drainDelay, shutdown, nil)
	before := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	rec.mu.Lock()
	soft, hard, calledAt := rec.soft, rec.hard, rec.calledAt
	rec.mu.Unlock()
	if soft.IsZero() || hard.IsZero() {
		t.Fatalf("Stop got no deadlines: soft %v, hard %v", soft, hard)
	}
	// The drain began after before and before Stop was called.
	if earliest := before.Add(grace - margin); soft.Before(earliest) {
		t.Errorf("the soft stop ends %s after the drain began, want at least the grace %s less the margin %s",
			soft.Sub(before), grace, margin)
	}
	if latest := calledAt.Add(grace); soft.After(latest) {
		t.Errorf("the soft stop ends %s after Stop was called, beyond the grace of %s", soft.Sub(calledAt), grace)
	}
	if d := hard.Sub(soft); d <= 0 || d > margin/2 {
		t.Errorf("the hard stop comes %s after the soft one, want within (0, %s]", d, margin/2)
	}
	m := regexp.MustCompile(`msg="jobs: stopping the workers" running_until=(\S+)`).FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("the log does not announce the stop:\n%s", log)
	}
	if until, err := time.Parse(time.RFC3339Nano, m[1]); err != nil || !until.Equal(soft) {
		t.Errorf("the log says running_until=%s (%v), want the soft stop's end %s", m[1], err, soft.Format(time.RFC3339Nano))
	}
}

// A backend's failed Stop is logged as such and is Serve's error.
func TestAttachStopError(t *testing.T) {
	_, log, stop := serveRecorded(t, 0, time.Second, errors.New("lost the queue's connection"))
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "lost the queue's connection") {
		t.Errorf("Serve: %v, want the Stop's error", err)
	}
	out := log.String()
	if !strings.Contains(out, "jobs: workers stopped with an error") || strings.Contains(out, `msg="jobs: workers stopped" `) {
		t.Errorf("the log does not report the failed stop:\n%s", out)
	}
}
