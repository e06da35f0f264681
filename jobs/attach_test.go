package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"

	"github.com/plinth-go/plinth/racetest"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

type sleep struct {
	Mode string `json:"mode"`
}

func (sleep) Kind() string { return "sleep" }

// server is an App with a jobs Client attached, served on a local port.
type server struct {
	app     *plinth.App
	c       *jobs.Client
	b       *jobstest.Backend
	log     *syncbuf.Buffer
	started chan int64 // a job's ID when its worker starts
	cancel  context.CancelFunc
	done    chan error
	stopped bool
}

func newServer(t *testing.T, cfg jobs.Config, grace time.Duration) *server {
	t.Helper()
	s := &server{b: jobstest.New(), log: &syncbuf.Buffer{}, started: make(chan int64, 16), done: make(chan error, 1)}
	s.app = plinth.New()
	s.app.Config.Addr = "127.0.0.1:0"
	s.app.Config.ShutdownTimeout = grace
	s.app.Config.Logger = slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Backend = s.b
	c, err := jobs.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.c = c
	jobs.Handle(s.c, func(ctx context.Context, j *jobs.Job[sleep]) error {
		s.started <- j.ID
		switch j.Args.Mode {
		case "block": // until cancelled
			<-ctx.Done()
			return context.Cause(ctx)
		case "panic":
			panic("worker bug")
		case "short":
			time.Sleep(100 * time.Millisecond)
		case "log":
			jobs.Logger(ctx).Info("from the worker")
		}
		return nil
	})
	s.c.Attach(s.app)
	return s
}

func (s *server) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- s.app.Serve(ctx, ln) }()
	t.Cleanup(func() {
		if s.stopped {
			return
		}
		cancel()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
		}
	})
}

func (s *server) wait(t *testing.T, id int64, want jobs.State) jobs.Info {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := s.c.Job(context.Background(), id)
		if err == nil && info.State == want {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: %+v %v, want %s", id, info, err, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *server) enqueue(t *testing.T, a jobs.Args) int64 {
	t.Helper()
	res, err := s.c.Enqueue(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// stop cancels Serve's context (the drain starts) and returns how long
// the stop took and Serve's error.
func (s *server) stop(t *testing.T) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	s.stopped = true
	s.cancel()
	select {
	case err := <-s.done:
		return time.Since(start), err
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return")
		return 0, nil
	}
}

// A job shorter than the grace, running when the drain starts, completes
// on its first attempt, and Serve returns nil.
func TestAttachSoftStop(t *testing.T) {
	s := newServer(t, jobs.Config{}, 5*time.Second)
	s.start(t)
	s.wait(t, s.enqueue(t, sleep{}), jobs.StateCompleted)
	id := s.enqueue(t, sleep{Mode: "short"})
	<-s.started
	<-s.started
	_, err := s.stop(t)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if info := s.wait(t, id, jobs.StateCompleted); info.Attempt != 1 {
		t.Errorf("%+v", info)
	}
	for _, want := range []string{"jobs: workers started", "jobs: stopping the workers", "jobs: workers stopped", "hard_stop=false"} {
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, s.log)
		}
	}
}

// A job longer than the grace is cancelled before the grace ends and
// handed back (available again, not running), and Serve returns nil
// within the grace.
func TestAttachHardStop(t *testing.T) {
	grace := time.Second
	s := newServer(t, jobs.Config{}, grace)
	s.start(t)
	id := s.enqueue(t, sleep{Mode: "block"})
	<-s.started
	took, err := s.stop(t)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// The hard stop's deadline is 0.95s; 250ms of slack covers a loaded
	// machine's scheduling (under -race only the outcome is checked).
	if took >= grace+250*time.Millisecond && !racetest.Enabled {
		t.Errorf("the stop took %s, beyond the grace of %s", took, grace)
	}
	info, _ := s.c.Job(context.Background(), id)
	if info.State != jobs.StateAvailable || len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "handed back") {
		t.Errorf("after the hard stop: %+v", info)
	}
	if !strings.Contains(s.log.String(), "hard_stop=true") {
		t.Errorf("the log does not report the hard stop:\n%s", s.log)
	}
}

// In role web nothing runs, Enqueue works (and refuses unknown kinds).
func TestAttachRoleWeb(t *testing.T) {
	t.Setenv("PLINTH_ROLE", "web")
	s := newServer(t, jobs.Config{}, time.Second)
	if err := s.c.Every(time.Second, func() jobs.Args { return sleep{} }, nil); err != nil {
		t.Fatal(err)
	}
	s.start(t)
	id := s.enqueue(t, sleep{})
	time.Sleep(1500 * time.Millisecond)
	if info, _ := s.c.Job(context.Background(), id); info.State != jobs.StateAvailable {
		t.Errorf("a web process ran a job: %+v", info)
	}
	jobstest.Count[sleep](t, s.b, 1) // the periodic schedule did not run in a web process
	if _, err := s.c.Enqueue(context.Background(), unregistered{}, nil); !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := s.stop(t); err != nil {
		t.Error(err)
	}
	if !strings.Contains(s.log.String(), "role web: no workers") {
		t.Errorf("log:\n%s", s.log)
	}
}

// A bad variable or field is NewClient's error, naming it; the Client's
// Config is the resolved one.
func TestNewClientBadEnv(t *testing.T) {
	t.Setenv("PLINTH_JOB_TIMEOUT", "off")
	t.Setenv("PLINTH_ROLE", "")
	_, err := jobs.NewClient(jobs.Config{Backend: jobstest.New(), Queues: map[string]int{"mail": 0}})
	if err == nil || !strings.Contains(err.Error(), `PLINTH_JOB_TIMEOUT="off": a job timeout cannot be switched off`) ||
		!strings.Contains(err.Error(), `Config.Queues["mail"] = 0`) {
		t.Errorf("NewClient: %v", err)
	}
	t.Setenv("PLINTH_JOB_TIMEOUT", "30s")
	t.Setenv("PLINTH_ROLE", "worker")
	c, err := jobs.NewClient(jobs.Config{Backend: jobstest.New()})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Config(); got.JobTimeout != 30*time.Second || got.Role != jobs.RoleWorker || got.Queues[jobs.DefaultQueue] != jobs.DefaultConcurrency {
		t.Errorf("Config: %+v", got)
	}
}

// A periodic job of a kind no worker handles fails the start.
func TestAttachPeriodicUnknownKind(t *testing.T) {
	s := newServer(t, jobs.Config{}, time.Second)
	if err := s.c.Every(time.Second, func() jobs.Args { return unregistered{} }, nil); err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	err := s.app.Serve(context.Background(), ln)
	if !errors.Is(err, jobs.ErrUnknownKind) {
		t.Errorf("Serve: %v", err)
	}
}

// The queue's check follows the backend's Ping, as a degraded check: a
// store every instance shares degrades readiness, never fails it.
func TestAttachReadiness(t *testing.T) {
	s := newServer(t, jobs.Config{}, time.Second)
	s.app.Config.ReadinessCacheTTL = time.Nanosecond
	s.app.Build()
	ctx := context.Background()
	if err := s.app.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	s.b.SetPingError(errors.New("connection refused"))
	if err := s.app.Ready(ctx); err != nil {
		t.Errorf("Ready with the queue's store down: %v, want nil (degraded)", err)
	}
	results, err := s.app.Readiness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range results {
		if r.Name == "queue" {
			found = true
			if r.Status != plinth.CheckDegraded || r.Err == nil || !strings.Contains(r.Err.Error(), "connection refused") {
				t.Errorf("queue check with the store down: %+v, want degraded with the Ping's error", r)
			}
		}
	}
	if !found {
		t.Errorf("no queue check among %+v", results)
	}
}

// A worker's panic is the attempt's error, logged with its stack and the
// job's id, kind and attempt; the process goes on working. The job
// timeout cancels a worker's context.
func TestAttachPanicAndTimeout(t *testing.T) {
	s := newServer(t, jobs.Config{JobTimeout: 50 * time.Millisecond}, 5*time.Second)
	s.start(t)
	id := s.enqueue(t, sleep{Mode: "panic"})
	info := s.wait(t, id, jobs.StateRetryable)
	if len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "worker panicked: worker bug") {
		t.Errorf("%+v", info)
	}
	log := s.log.String()
	for _, want := range []string{"jobs: worker panicked", "job_id=1", "kind=sleep", "attempt=1", "attach_test.go"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	id = s.enqueue(t, sleep{Mode: "block"})
	info = s.wait(t, id, jobs.StateRetryable)
	if len(info.Errors) != 1 || !strings.Contains(info.Errors[0].Error, "job timeout of 50ms passed") {
		t.Errorf("timeout: %+v", info)
	}
	s.wait(t, s.enqueue(t, sleep{}), jobs.StateCompleted)
	// jobs.Logger names the job in the worker's own records.
	id = s.enqueue(t, sleep{Mode: "log"})
	s.wait(t, id, jobs.StateCompleted)
	if want := fmt.Sprintf("msg=\"from the worker\" job_id=%d kind=sleep attempt=1", id); !strings.Contains(s.log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, s.log)
	}
	if jobs.Logger(context.Background()) != slog.Default() {
		t.Error("outside a worker, Logger is not slog.Default()")
	}
}

// When a later start-up hook fails, the OnStop hook stops the workers
// Attach started, and Serve returns the hook's error.
func TestAttachStartFailureStops(t *testing.T) {
	s := newServer(t, jobs.Config{}, 2*time.Second)
	s.app.OnStart(func(context.Context) error { return errors.New("cache unreachable") })
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	err := s.app.Serve(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "cache unreachable") {
		t.Fatalf("Serve: %v", err)
	}
	for _, want := range []string{"jobs: workers started", "jobs: workers stopped"} {
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, s.log)
		}
	}
	// Stopped: a job enqueued now stays available.
	id := s.enqueue(t, sleep{})
	time.Sleep(50 * time.Millisecond)
	if info, _ := s.c.Job(context.Background(), id); info.State != jobs.StateAvailable {
		t.Errorf("a stopped worker ran a job: %+v", info)
	}
}
