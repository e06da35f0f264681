package riverjobs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

// The subprocess tests run this test binary as a worker process (childEnv
// set): an App with jobs.Client.Attach working the sleep kind on the database of
// RIVER_CHILD_DB until SIGTERM, then exiting 0 (childMain).
const childEnv = "RIVER_CHILD_DB"

func TestMain(m *testing.M) {
	if url := os.Getenv(childEnv); url != "" {
		os.Exit(childMain(url))
	}
	os.Exit(m.Run())
}

// sleepArgs sleeps, then records its effect in the effects table.
type sleepArgs struct {
	Ms int `json:"ms"`
}

func (sleepArgs) Kind() string { return "test.sleep" }

// effectsTable is where sleep jobs record what they did: one row per
// completed execution.
const effectsTable = "CREATE TABLE IF NOT EXISTS effects (job_id BIGINT NOT NULL, attempt INTEGER NOT NULL)"

// handleSleep registers the sleep kind on c; out, if not nil, is told
// "started ID ATTEMPT" as each execution starts.
func handleSleep(c *jobs.Client, db *data.DB, out io.Writer) {
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[sleepArgs]) error {
		if out != nil {
			fmt.Fprintf(out, "started %d %d\n", j.ID, j.Attempt)
		}
		t := time.NewTimer(time.Duration(j.Args.Ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		_, err := db.SQL().ExecContext(ctx, "INSERT INTO effects (job_id, attempt) VALUES ($1, $2)", j.ID, j.Attempt)
		return err
	})
}

// childMain is a tiny application: a plinth App with the jobs Client
// attached (Client.Attach: workers start with the App, the soft stop at the
// drain, the hard stop at the grace less jobs.StopMargin), stopped by
// SIGTERM through App.Run.
func childMain(url string) int {
	ctx := context.Background()
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "child:", err); return 2 }
	db, err := data.Open(ctx, data.Config{URL: url})
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	timeout, _ := time.ParseDuration(os.Getenv("RIVER_CHILD_TIMEOUT"))
	margin, _ := time.ParseDuration(os.Getenv("RIVER_CHILD_MARGIN"))
	grace, _ := time.ParseDuration(os.Getenv("RIVER_CHILD_GRACE"))
	b, err := New(db, Config{JobTimeout: timeout, RescueMargin: margin, FetchPollInterval: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), Lookup: noEnv})
	if err != nil {
		return fail(err)
	}
	c, err := jobs.NewClient(jobs.Config{Backend: b, JobTimeout: timeout})
	if err != nil {
		return fail(err)
	}
	handleSleep(c, db, os.Stdout)
	app := plinth.New()
	app.Config.Addr = "127.0.0.1:0"
	app.Config.ShutdownTimeout = grace
	app.Config.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c.Attach(app)
	app.OnStart(func(context.Context) error { fmt.Println("ready"); return nil })
	if err := app.Run(); err != nil {
		return fail(err)
	}
	fmt.Println("stopped")
	return 0
}

// child is a running worker process.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan error
}

func startChild(t *testing.T, url string, timeout, margin, grace time.Duration) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+url,
		// The race detector's runtime sleeps 1s at exit by default, which
		// is not the App's time.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		"RIVER_CHILD_TIMEOUT="+timeout.String(), "RIVER_CHILD_MARGIN="+margin.String(), "RIVER_CHILD_GRACE="+grace.String())
	cmd.Stderr = tlogWriter{t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	c.expect(t, "ready", 30*time.Second)
	return c
}

// expect waits for a line starting with prefix and returns it.
func (c *child) expect(t *testing.T, prefix string, within time.Duration) string {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the child exited before printing %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timer.C:
			t.Fatalf("no %q from the child within %v", prefix, within)
		}
	}
}

// wait waits for the child's exit and returns its error (nil for status 0).
func (c *child) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	for range c.lines {
	}
	select {
	case err := <-c.done:
		return err
	case <-time.After(within):
		t.Fatalf("the child did not exit within %v", within)
		return nil
	}
}

// started parses "started ID ATTEMPT".
func started(t *testing.T, line string) (id int64, attempt int) {
	f := strings.Fields(line)
	if len(f) != 3 {
		t.Fatalf("bad line %q", line)
	}
	id, _ = strconv.ParseInt(f[1], 10, 64)
	attempt, _ = strconv.Atoi(f[2])
	return id, attempt
}

// processFixture is the parent's side: the database, and a Client to
// enqueue with and read jobs.
type processFixture struct {
	url     string
	db      *data.DB
	backend *Backend
	client  *jobs.Client
}

func newProcessFixture(t *testing.T, url string) *processFixture {
	db := openDB(t, url)
	if _, err := db.SQL().Exec(effectsTable); err != nil {
		t.Fatal(err)
	}
	b, err := New(db, Config{Lookup: noEnv, Logger: quietLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := jobstest.NewClient(t, b)
	handleSleep(c, db, nil)
	return &processFixture{url: url, db: db, backend: b, client: c}
}

func (p *processFixture) enqueue(t *testing.T, ms int) int64 {
	r, err := p.client.Enqueue(context.Background(), sleepArgs{Ms: ms}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func (p *processFixture) job(t *testing.T, id int64) jobs.Info {
	in, err := p.backend.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func (p *processFixture) effects(t *testing.T, id int64) []int {
	rows, err := p.db.SQL().Query("SELECT attempt FROM effects WHERE job_id = $1 ORDER BY attempt", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var a int
		rows.Scan(&a)
		out = append(out, a)
	}
	return out
}

func TestProcessSIGTERMShortJob(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			p := newProcessFixture(t, e.url(t))
			c := startChild(t, p.url, 10*time.Second, time.Second, 5*time.Second)
			id := p.enqueue(t, 1000)
			if gotID, attempt := started(t, c.expect(t, "started", 30*time.Second)); gotID != id || attempt != 1 {
				t.Fatalf("started %d attempt %d", gotID, attempt)
			}
			t0 := time.Now()
			c.cmd.Process.Signal(syscall.SIGTERM)
			if err := c.wait(t, 10*time.Second); err != nil {
				t.Fatalf("exit: %v, want status 0", err)
			}
			t.Logf("exited %v after SIGTERM", time.Since(t0).Round(time.Millisecond))
			if in := p.job(t, id); in.State != jobs.StateCompleted || in.Attempt != 1 {
				t.Fatalf("job %+v: want completed at attempt 1", in)
			}
			if got := p.effects(t, id); len(got) != 1 || got[0] != 1 {
				t.Fatalf("effects %v, want [1]", got)
			}
		})
	}
}

func TestProcessSIGTERMLongJob(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			p := newProcessFixture(t, e.url(t))
			const grace = 5 * time.Second // the hard stop ends 250ms before it (jobs.StopMargin/2)
			c := startChild(t, p.url, 20*time.Second, time.Second, grace)
			id := p.enqueue(t, 8000)
			c.expect(t, "started", 30*time.Second)
			t0 := time.Now()
			c.cmd.Process.Signal(syscall.SIGTERM)
			if err := c.wait(t, 10*time.Second); err != nil {
				t.Fatalf("exit: %v, want status 0", err)
			}
			if d := time.Since(t0); d > grace {
				t.Fatalf("exited %v after SIGTERM, grace %v", d, grace)
			} else {
				t.Logf("exited %v after SIGTERM (grace %v)", d.Round(time.Millisecond), grace)
			}
			in := p.job(t, id)
			if in.State != jobs.StateAvailable || in.Attempt != 0 || len(p.effects(t, id)) != 0 {
				t.Fatalf("after the stop: %+v, effects %v: want available, attempt 0, no effect", in, p.effects(t, id))
			}
			c = startChild(t, p.url, 20*time.Second, time.Second, grace)
			if gotID, attempt := started(t, c.expect(t, "started", 30*time.Second)); gotID != id || attempt != 1 {
				t.Fatalf("after the restart: started %d attempt %d, want %d attempt 1", gotID, attempt, id)
			}
			waitCompleted(t, p, id, 30*time.Second)
			if got := p.effects(t, id); len(got) != 1 {
				t.Fatalf("effects %v: want one", got)
			}
			c.cmd.Process.Signal(syscall.SIGTERM)
			if err := c.wait(t, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func waitCompleted(t *testing.T, p *processFixture, id int64, within time.Duration) jobs.Info {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		in := p.job(t, id)
		if in.State == jobs.StateCompleted {
			return in
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %+v not completed within %v", in, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProcessSIGKILL: a job whose process was killed runs again (attempt
// 2) in a restarted process within JobTimeout + RescueMargin +
// RescueLatency, and completes once.
func TestProcessSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for River's rescuer (up to a minute)")
	}
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			p := newProcessFixture(t, e.url(t))
			const timeout, margin = 2 * time.Second, time.Second
			c := startChild(t, p.url, timeout, margin, 5*time.Second)
			id := p.enqueue(t, 1500)
			c.expect(t, "started", 30*time.Second)
			c.cmd.Process.Kill()
			t0 := time.Now()
			if err := c.wait(t, 10*time.Second); err == nil {
				t.Fatal("the killed child exited 0")
			}
			if in := p.job(t, id); in.State != jobs.StateRunning {
				t.Fatalf("after the kill: %+v, want running", in)
			}
			bound := timeout + margin + RescueLatency
			c = startChild(t, p.url, timeout, margin, 5*time.Second)
			line := c.expect(t, "started", bound+5*time.Second)
			took := time.Since(t0)
			if gotID, attempt := started(t, line); gotID != id || attempt != 2 {
				t.Fatalf("after the restart: %q, want job %d attempt 2", line, id)
			}
			t.Logf("SIGKILL to running again: %v (bound %v)", took.Round(100*time.Millisecond), bound)
			if took > bound {
				t.Fatalf("ran again %v after the kill, bound %v", took, bound)
			}
			waitCompleted(t, p, id, 30*time.Second)
			if got := p.effects(t, id); len(got) != 1 || got[0] != 2 {
				t.Fatalf("effects %v: want [2]", got)
			}
			c.cmd.Process.Signal(syscall.SIGTERM)
			if err := c.wait(t, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}
