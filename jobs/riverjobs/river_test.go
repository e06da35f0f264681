package riverjobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
	"github.com/plinth-go/plinth/plinthtest"
)

// echoArgs is a job kind of the tests.
type echoArgs struct {
	Msg string `json:"msg"`
}

func (echoArgs) Kind() string { return "test.echo" }

// ctlArgs asks its worker for an outcome.
type ctlArgs struct {
	Do string `json:"do"` // "discard", "cancel", "snooze-once", "fail-once", "block"
}

func (ctlArgs) Kind() string { return "test.ctl" }

// blocked records the "block" jobs that ran, by database and ID.
var blocked sync.Map

// quietLogger sends River's logs to t.Log at warning level and above.
func quietLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tlogWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tlogWriter struct{ t testing.TB }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// fixture is a Backend with a Client whose workers record what they ran.
type fixture struct {
	url     string
	db      *data.DB
	backend *Backend
	client  *jobs.Client

	mu      sync.Mutex
	ran     map[int64][]int // job ID -> attempts seen
	snoozed sync.Map
	started chan int64
}

func newFixture(t *testing.T, url string, cfg Config) *fixture {
	t.Helper()
	db := openDB(t, url)
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = 50 * time.Millisecond
	}
	if cfg.Lookup == nil {
		cfg.Lookup = noEnv
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger(t)
	}
	b, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{url: url, db: db, backend: b, client: jobstest.NewClient(t, b), ran: map[int64][]int{}, started: make(chan int64, 16)}
	jobs.Handle(f.client, func(ctx context.Context, j *jobs.Job[echoArgs]) error {
		f.record(j.ID, j.Attempt)
		return nil
	})
	jobs.Handle(f.client, func(ctx context.Context, j *jobs.Job[ctlArgs]) error {
		f.record(j.ID, j.Attempt)
		switch j.Args.Do {
		case "discard":
			return jobs.Discard(errors.New("permanent: 550 no such user"))
		case "cancel":
			return jobs.Cancel(errors.New("not wanted any more"))
		case "snooze-once":
			if _, again := f.snoozed.LoadOrStore(j.ID, true); !again {
				return jobs.Snooze(10 * time.Millisecond)
			}
		case "fail-once":
			if j.Attempt == 1 {
				return errors.New("transient: 451 try later")
			}
		case "ignore-cancel":
			// Ignores its context for 3s on its first run.
			if _, again := blocked.LoadOrStore(fmt.Sprint(f.url, j.ID), true); again {
				return nil
			}
			f.started <- j.ID
			time.Sleep(3 * time.Second)
			return nil
		case "block", "block-own-error":
			// Blocks on its first run in the test's database, until
			// cancelled.
			if _, again := blocked.LoadOrStore(fmt.Sprint(f.url, j.ID), true); again {
				return nil
			}
			f.started <- j.ID
			<-ctx.Done()
			if j.Args.Do == "block" {
				return ctx.Err()
			}
			return errors.New("interrupted")
		}
		return nil
	})
	return f
}

func (f *fixture) record(id int64, attempt int) {
	f.mu.Lock()
	f.ran[id] = append(f.ran[id], attempt)
	f.mu.Unlock()
}

func (f *fixture) attempts(id int64) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.ran[id]...)
}

func (f *fixture) start(t *testing.T) {
	t.Helper()
	if err := f.backend.Start(context.Background(), nil, f.client.Kinds(), f.client.Work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.backend.Stop(ctx, ctx)
	})
}

// waitState waits until job id is in one of states, and returns it.
func (f *fixture) waitState(t *testing.T, id int64, states ...jobs.State) jobs.Info {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		in, err := f.backend.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if in.State == s {
				return in
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: state %s after 20s, want %v (errors %v)", id, in.State, states, in.Errors)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countKind counts the stored jobs of a kind, outside any transaction.
func (f *fixture) countKind(t *testing.T, kind string) int {
	t.Helper()
	var n int
	if err := f.db.SQL().QueryRowContext(context.Background(), "SELECT count(*) FROM river_job WHERE kind = $1", kind).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEnqueueAndRun(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			f.start(t)
			ctx := context.Background()
			res, err := f.client.Enqueue(ctx, echoArgs{Msg: "hi"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.ID == 0 || res.InTx || res.Duplicate {
				t.Fatalf("result %+v: want an ID, not in a transaction, not a duplicate", res)
			}
			in := f.waitState(t, res.ID, jobs.StateCompleted)
			if in.Attempt != 1 || in.Kind != "test.echo" || in.Queue != jobs.DefaultQueue || !sameJSON(in.Args, `{"msg":"hi"}`) || in.FinalizedAt.IsZero() {
				t.Fatalf("info %+v", in)
			}
			if got := f.attempts(res.ID); len(got) != 1 || got[0] != 1 {
				t.Fatalf("attempts seen %v, want [1]", got)
			}
			// A batch, with options.
			rs, err := f.client.EnqueueMany(ctx, []jobs.Batch{
				{Args: echoArgs{Msg: "a"}},
				{Args: echoArgs{Msg: "b"}, Opts: &jobs.EnqueueOpts{Priority: 3, MaxAttempts: 7, ScheduledAt: time.Now().Add(time.Hour)}},
			})
			if err != nil || len(rs) != 2 {
				t.Fatal(rs, err)
			}
			f.waitState(t, rs[0].ID, jobs.StateCompleted)
			in, err = f.backend.Job(ctx, rs[1].ID)
			if err != nil {
				t.Fatal(err)
			}
			if in.State != jobs.StateScheduled || in.Priority != 3 || in.MaxAttempts != 7 || time.Until(in.ScheduledAt) < 50*time.Minute {
				t.Fatalf("scheduled job %+v", in)
			}
			// List, newest first, by state and kind.
			list, err := f.backend.List(ctx, jobs.ListParams{States: []jobs.State{jobs.StateCompleted}, Kinds: []string{"test.echo"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].ID != rs[0].ID || list[1].ID != res.ID {
				t.Fatalf("list %+v", list)
			}
			// Retry of the scheduled job runs it now; Cancel of a new one.
			if _, err := f.backend.Retry(ctx, rs[1].ID); err != nil {
				t.Fatal(err)
			}
			f.waitState(t, rs[1].ID, jobs.StateCompleted)
			later, err := f.client.Enqueue(ctx, echoArgs{Msg: "later"}, &jobs.EnqueueOpts{ScheduledAt: time.Now().Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if in, err := f.backend.Cancel(ctx, later.ID); err != nil || in.State != jobs.StateCancelled {
				t.Fatalf("cancel: %+v %v", in, err)
			}
			if _, err := f.backend.Job(ctx, 1<<40); !errors.Is(err, jobs.ErrNotFound) {
				t.Fatalf("unknown job: %v, want ErrNotFound", err)
			}
			if _, err := f.backend.Retry(ctx, 1<<40); !errors.Is(err, jobs.ErrNotFound) {
				t.Fatalf("retry unknown job: %v, want ErrNotFound", err)
			}
			if err := f.backend.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// sameJSON reports whether raw and want encode the same value (PostgreSQL
// stores arguments as jsonb, which respaces them).
func sameJSON(raw []byte, want string) bool {
	var a, b any
	return json.Unmarshal(raw, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && reflect.DeepEqual(a, b)
}

func TestTransactionJoin(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			ctx := context.Background()
			boom := errors.New("roll back")
			var inTx jobs.Result
			err := f.db.InTx(ctx, func(ctx context.Context) error {
				var err error
				inTx, err = f.client.Enqueue(ctx, echoArgs{Msg: "rolled back"}, nil)
				if err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatal(err)
			}
			if !inTx.InTx {
				t.Fatalf("result %+v: want InTx", inTx)
			}
			if n := f.countKind(t, "test.echo"); n != 0 {
				t.Fatalf("after rollback: %d jobs, want 0", n)
			}
			err = f.db.InTx(ctx, func(ctx context.Context) error {
				var err error
				inTx, err = f.client.Enqueue(ctx, echoArgs{Msg: "committed"}, nil)
				return err
			})
			if err != nil || !inTx.InTx {
				t.Fatal(inTx, err)
			}
			if n := f.countKind(t, "test.echo"); n != 1 {
				t.Fatalf("after commit: %d jobs, want 1", n)
			}
			if f.db.Dialect() != data.Postgres {
				return
			}
			// pgx transactions too.
			err = f.db.InPgxTx(ctx, pgx.TxOptions{}, func(ctx context.Context) error {
				res, err := f.client.EnqueueMany(ctx, []jobs.Batch{{Args: echoArgs{Msg: "x"}}, {Args: echoArgs{Msg: "y"}}})
				if err != nil {
					return err
				}
				if !res[0].InTx || !res[1].InTx {
					t.Errorf("pgx results %+v: want InTx", res)
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatal(err)
			}
			if n := f.countKind(t, "test.echo"); n != 1 {
				t.Fatalf("after pgx rollback: %d jobs, want 1", n)
			}
			err = f.db.InPgxTx(ctx, pgx.TxOptions{}, func(ctx context.Context) error {
				_, err := f.client.Enqueue(ctx, echoArgs{Msg: "z"}, nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := f.countKind(t, "test.echo"); n != 2 {
				t.Fatalf("after pgx commit: %d jobs, want 2", n)
			}
		})
	}
}

func TestUnique(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			ctx := context.Background()
			first, err := f.client.Enqueue(ctx, echoArgs{Msg: "one"}, &jobs.EnqueueOpts{UniqueKey: "tick-1"})
			if err != nil || first.Duplicate {
				t.Fatal(first, err)
			}
			// Same kind and key, other arguments: the same job.
			again, err := f.client.Enqueue(ctx, echoArgs{Msg: "two"}, &jobs.EnqueueOpts{UniqueKey: "tick-1"})
			if err != nil || !again.Duplicate || again.ID != first.ID {
				t.Fatalf("same key: %+v %v, want duplicate of %d", again, err, first.ID)
			}
			// Another key: another job; no key: never unique.
			other, err := f.client.Enqueue(ctx, echoArgs{Msg: "one"}, &jobs.EnqueueOpts{UniqueKey: "tick-2"})
			if err != nil || other.Duplicate || other.ID == first.ID {
				t.Fatalf("other key: %+v %v", other, err)
			}
			plain, err := f.client.Enqueue(ctx, echoArgs{Msg: "one"}, nil)
			if err != nil || plain.Duplicate {
				t.Fatal(plain, err)
			}
			// Another kind with the same key: another job.
			ctl, err := f.client.Enqueue(ctx, ctlArgs{}, &jobs.EnqueueOpts{UniqueKey: "tick-1"})
			if err != nil || ctl.Duplicate {
				t.Fatalf("other kind: %+v %v", ctl, err)
			}
			// Still unique once the job completed, and in a batch.
			f.start(t)
			f.waitState(t, first.ID, jobs.StateCompleted)
			rs, err := f.client.EnqueueMany(ctx, []jobs.Batch{{Args: echoArgs{}, Opts: &jobs.EnqueueOpts{UniqueKey: "tick-1"}}, {Args: echoArgs{}, Opts: &jobs.EnqueueOpts{UniqueKey: "tick-3"}}})
			if err != nil || !rs[0].Duplicate || rs[0].ID != first.ID || rs[1].Duplicate {
				t.Fatalf("after completion: %+v %v", rs, err)
			}
			// Inside a transaction too.
			err = f.db.InTx(ctx, func(ctx context.Context) error {
				r, err := f.client.Enqueue(ctx, echoArgs{}, &jobs.EnqueueOpts{UniqueKey: "tick-1"})
				if err == nil && (!r.Duplicate || r.ID != first.ID || !r.InTx) {
					t.Errorf("in a transaction: %+v", r)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestControlErrors(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			f.start(t)
			ctx := context.Background()
			enq := func(do string) int64 {
				r, err := f.client.Enqueue(ctx, ctlArgs{Do: do}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return r.ID
			}
			discard, cancel, snooze, fail := enq("discard"), enq("cancel"), enq("snooze-once"), enq("fail-once")

			in := f.waitState(t, discard, jobs.StateDiscarded)
			if in.Attempt != 1 || len(in.Errors) != 1 || !strings.Contains(in.Errors[0].Error, "550 no such user") || in.Errors[0].Attempt != 1 {
				t.Fatalf("discarded job %+v: want attempt 1 and its error recorded", in)
			}
			in = f.waitState(t, cancel, jobs.StateCancelled)
			if in.Attempt != 1 || len(in.Errors) != 1 || !strings.Contains(in.Errors[0].Error, "not wanted any more") {
				t.Fatalf("cancelled job %+v", in)
			}
			in = f.waitState(t, snooze, jobs.StateCompleted)
			if got := f.attempts(snooze); len(got) != 2 || got[0] != 1 || got[1] != 1 || in.Attempt != 1 || len(in.Errors) != 0 {
				t.Fatalf("snoozed job: attempts seen %v, info %+v: want [1 1], no error", got, in)
			}
			// An ordinary error is retried (River's backoff: about 1s for
			// the first retry), the error recorded.
			in = f.waitState(t, fail, jobs.StateCompleted)
			if in.Attempt != 2 || len(in.Errors) != 1 || !strings.Contains(in.Errors[0].Error, "451") {
				t.Fatalf("retried job %+v", in)
			}
			for id, want := range map[int64]int{discard: 1, cancel: 1} {
				if got := f.attempts(id); len(got) != want {
					t.Fatalf("job %d ran %d times, want %d", id, len(got), want)
				}
			}
		})
	}
}

// TestStopHandsBack: a job running past the soft stop is cancelled at the
// hard stop and handed back (available, attempt not counted), and a
// restarted backend runs it as attempt 1.
func TestStopHandsBack(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			url := e.url(t)
			for _, do := range []string{"block", "block-own-error"} {
				f := newFixture(t, url, Config{})
				if err := f.backend.Start(context.Background(), nil, f.client.Kinds(), f.client.Work); err != nil {
					t.Fatal(err)
				}
				r, err := f.client.Enqueue(context.Background(), ctlArgs{Do: do}, nil)
				if err != nil {
					t.Fatal(err)
				}
				select {
				case <-f.started:
				case <-time.After(20 * time.Second):
					t.Fatal("job did not start")
				}
				soft, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				hard, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
				t0 := time.Now()
				err = f.backend.Stop(soft, hard)
				cancel()
				cancel2()
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: Stop took %v (soft 200ms)", do, time.Since(t0))
				if d := time.Since(t0); d > 5*time.Second {
					t.Fatalf("Stop took %v", d)
				}
				in, err := f.backend.Job(context.Background(), r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if in.State != jobs.StateAvailable || in.Attempt != 0 || len(in.Errors) != 0 {
					t.Fatalf("%s: after the hard stop: %+v, want available, attempt 0, no error", do, in)
				}
				f.db.Close()
			}
			// A restarted backend runs both, as attempt 1, to completion.
			f := newFixture(t, url, Config{})
			f.start(t)
			for id := int64(1); id <= 2; id++ {
				in := f.waitState(t, id, jobs.StateCompleted)
				if in.Attempt != 1 {
					t.Fatalf("job %d after the restart: %+v, want attempt 1", id, in)
				}
			}
		})
	}
}

// TestStopHandsBackStuckWorker: a worker that ignores its cancelled
// context past the hard stop does not hold Stop, and its job is handed back
// by Stop itself.
func TestStopHandsBackStuckWorker(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			url := e.url(t)
			f := newFixture(t, url, Config{})
			if err := f.backend.Start(context.Background(), nil, f.client.Kinds(), f.client.Work); err != nil {
				t.Fatal(err)
			}
			r, err := f.client.Enqueue(context.Background(), ctlArgs{Do: "ignore-cancel"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-f.started:
			case <-time.After(20 * time.Second):
				t.Fatal("job did not start")
			}
			soft, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			hard, cancel2 := context.WithTimeout(context.Background(), time.Second)
			defer cancel2()
			t0 := time.Now()
			if err := f.backend.Stop(soft, hard); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); d > 1500*time.Millisecond {
				t.Fatalf("Stop took %v with a hard stop of 1s", d)
			}
			in, err := f.backend.Job(context.Background(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if in.State != jobs.StateAvailable || in.Attempt != 0 {
				t.Fatalf("after the hard stop: %+v, want available, attempt 0", in)
			}
			time.Sleep(2500 * time.Millisecond) // the stuck worker returns meanwhile
			f2 := newFixture(t, url, Config{})
			f2.start(t)
			if in := f2.waitState(t, r.ID, jobs.StateCompleted); in.Attempt != 1 {
				t.Fatalf("after the restart: %+v, want completed at attempt 1", in)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	db := openDB(t, "sqlite:"+t.TempDir()+"/c.db")
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == "PLINTH_JOB_TIMEOUT" {
				return v, true
			}
			return "", false
		}
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string // error substring, "" for none
		to   time.Duration
	}{
		{"default", Config{Lookup: noEnv}, "", DefaultJobTimeout},
		{"field", Config{JobTimeout: 5 * time.Second, Lookup: noEnv}, "", 5 * time.Second},
		{"env wins", Config{JobTimeout: 5 * time.Second, Lookup: env("90s")}, "", 90 * time.Second},
		{"no timeout refused", Config{JobTimeout: -1, Lookup: noEnv}, "Config.JobTimeout -1ns: a job timeout cannot be switched off", 0},
		{"env -1 refused", Config{Lookup: env("-1s")}, "PLINTH_JOB_TIMEOUT", 0},
		{"env 0 refused", Config{Lookup: env("0")}, `PLINTH_JOB_TIMEOUT="0": a job timeout cannot be switched off`, 0},
		{"env off refused", Config{Lookup: env("off")}, `PLINTH_JOB_TIMEOUT="off": a job timeout cannot be switched off`, 0},
		{"env garbage", Config{Lookup: env("soon")}, "not a duration", 0},
		{"over a day", Config{JobTimeout: 25 * time.Hour, Lookup: noEnv}, "at most", 0},
		{"negative margin", Config{RescueMargin: -time.Second, Lookup: noEnv}, "RescueMargin", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := New(db, c.cfg)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one containing %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := b.Config()
			if got.JobTimeout != c.to || got.RescueMargin != DefaultRescueMargin {
				t.Fatalf("config %+v", got)
			}
			rc := b.riverConfig(nil, nil)
			if rc.JobTimeout != c.to || rc.RescueStuckJobsAfter != c.to+DefaultRescueMargin {
				t.Fatalf("River's JobTimeout %v, RescueStuckJobsAfter %v", rc.JobTimeout, rc.RescueStuckJobsAfter)
			}
		})
	}
	if _, err := New(nil, Config{}); err == nil {
		t.Fatal("New(nil) did not fail")
	}
}

// shortKind is a kind jobs accepts and River's own check would refuse.
type shortKind struct{}

func (shortKind) Kind() string { return "k" }

func TestShortKind(t *testing.T) {
	f := newFixture(t, "sqlite:"+t.TempDir()+"/k.db", Config{})
	done := make(chan int, 1)
	jobs.Handle(f.client, func(_ context.Context, j *jobs.Job[shortKind]) error { done <- j.Attempt; return nil })
	f.start(t)
	r, err := f.client.Enqueue(context.Background(), shortKind{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.waitState(t, r.ID, jobs.StateCompleted)
}

func TestStartErrors(t *testing.T) {
	f := newFixture(t, "sqlite:"+t.TempDir()+"/s.db", Config{})
	if err := f.backend.Start(context.Background(), map[string]int{"default": 0}, f.client.Kinds(), f.client.Work); err == nil {
		t.Fatal("concurrency 0 accepted")
	}
	if err := f.backend.Start(context.Background(), nil, f.client.Kinds(), nil); err == nil {
		t.Fatal("nil worker accepted")
	}
	f.start(t)
	if err := f.backend.Start(context.Background(), nil, f.client.Kinds(), f.client.Work); err == nil {
		t.Fatal("second Start accepted")
	}
}

// TestCancelRunning: Backend.Cancel of a running job cancels its context
// in the process that runs it (River's remote cancel), and the job ends
// cancelled.
func TestCancelRunning(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t, e.url(t), Config{})
			f.start(t)
			r, err := f.client.Enqueue(context.Background(), ctlArgs{Do: "block"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-f.started:
			case <-time.After(20 * time.Second):
				t.Fatal("job did not start")
			}
			t0 := time.Now()
			if _, err := f.backend.Cancel(context.Background(), r.ID); err != nil {
				t.Fatal(err)
			}
			if in := f.waitState(t, r.ID, jobs.StateCancelled); in.Attempt != 1 {
				t.Fatalf("cancelled job %+v", in)
			}
			t.Logf("running job cancelled in %v", time.Since(t0).Round(time.Millisecond))
		})
	}
}

// TestJobTimeoutOneParser: New and jobs.ResolveConfig (what jobs.NewClient
// resolves) read PLINTH_JOB_TIMEOUT with one parser: the same value, and
// for a bad value or field the same error text.
func TestJobTimeoutOneParser(t *testing.T) {
	db := openDB(t, "sqlite:"+t.TempDir()+"/p.db")
	for _, c := range []struct {
		env   string
		field time.Duration
	}{
		{"soon", 0}, {"0", 0}, {"off", 0}, {"-5s", 0}, {"25h", 0}, {"", -time.Second}, {"", 25 * time.Hour}, {"soon", -1},
		{"90s", 0}, {"", 5 * time.Second}, {"", 0},
	} {
		t.Run(fmt.Sprintf("%q,%v", c.env, c.field), func(t *testing.T) {
			t.Setenv("PLINTH_JOB_TIMEOUT", c.env) // blank is unset
			t.Setenv("PLINTH_ROLE", "")
			jc, jerr := jobs.ResolveConfig(jobs.Config{JobTimeout: c.field})
			b, rerr := New(db, Config{JobTimeout: c.field, Logger: quietLogger(t)}) // Lookup nil: the environment
			if (jerr == nil) != (rerr == nil) {
				t.Fatalf("jobs: %v; jobs/riverjobs: %v", jerr, rerr)
			}
			if jerr != nil {
				if jerr.Error() != rerr.Error() {
					t.Fatalf("different errors:\njobs:       %v\njobs/riverjobs: %v", jerr, rerr)
				}
				return
			}
			if got := b.Config().JobTimeout; got != jc.JobTimeout {
				t.Fatalf("jobs/riverjobs's JobTimeout %v, jobs' %v", got, jc.JobTimeout)
			}
		})
	}
}

// TestUniqueTwinWaits (PostgreSQL): a unique job's twin enqueued outside
// the transaction that holds the first waits for it (River's ON CONFLICT
// on the unique index) and, once it commits, is a duplicate of its job:
// what jobstest's Commit documents, where it fails with ErrUniqueConflict
// instead, as it cannot wait.
func TestUniqueTwinWaits(t *testing.T) {
	base := plinthtest.PostgresURL(t)
	f := newFixture(t, tempPostgres(t, base), Config{})
	ctx := context.Background()
	var held jobs.Result
	twin := make(chan jobs.Result, 1)
	err := f.db.InTx(ctx, func(tctx context.Context) error {
		var err error
		if held, err = f.client.Enqueue(tctx, echoArgs{Msg: "held"}, &jobs.EnqueueOpts{UniqueKey: "twin"}); err != nil {
			return err
		}
		go func() {
			r, err := f.client.Enqueue(ctx, echoArgs{Msg: "twin"}, &jobs.EnqueueOpts{UniqueKey: "twin"})
			if err != nil {
				t.Error(err)
			}
			twin <- r
		}()
		// Commit once the twin's insert waits on the held row's lock.
		for {
			var waiting int
			if err := f.db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(&waiting); err != nil {
				return err
			}
			if waiting > 0 {
				return nil
			}
			select {
			case r := <-twin:
				t.Fatalf("the twin's insert returned before the commit: %+v", r)
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := <-twin; !r.Duplicate || r.ID != held.ID {
		t.Fatalf("twin %+v, want a duplicate of job %d", r, held.ID)
	}
	if n := f.countKind(t, "test.echo"); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
}
