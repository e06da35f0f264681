package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"

	"github.com/plinth-go/plinth/racetest"
)

// childEnv makes the test binary run TestChildApp's App instead of tests.
const childEnv = "PLINTH_TEST_JOBS_CHILD"

// TestChildApp is the process TestSIGTERM signals: an App with a 1s grace
// running one job, which blocks until its context ends (mode "long") or
// sleeps 200ms (mode "short"). It prints "started" when the job runs, and
// after Run returns, the job's state and attempt.
func TestChildApp(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("the child process of TestSIGTERM")
	}
	b := jobstest.New()
	c := jobstest.NewClient(t, b)
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[sleep]) error {
		fmt.Println("started")
		if j.Args.Mode == "short" {
			time.Sleep(200 * time.Millisecond)
			return nil
		}
		<-ctx.Done()
		return context.Cause(ctx)
	})
	res, err := c.Enqueue(context.Background(), sleep{Mode: mode}, nil)
	if err != nil {
		fmt.Println("enqueue:", err)
		os.Exit(3)
	}
	app := plinth.New()
	app.Config.Addr = "127.0.0.1:0"
	app.Config.ShutdownTimeout = time.Second
	c.Attach(app)
	runErr := app.Run()
	info, _ := c.Job(context.Background(), res.ID)
	fmt.Printf("state %s attempt %d\n", info.State, info.Attempt)
	if runErr != nil {
		fmt.Println("run:", runErr)
		os.Exit(1)
	}
	os.Exit(0)
}

// SIGTERM to a process running a job: a job shorter than the grace
// completes on its first attempt; a longer one is handed back (available,
// not running) before the grace ends; either way Run returns nil and the
// process exits 0.
func TestSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	for mode, want := range map[string]string{"short": "state completed attempt 1", "long": "state available attempt 1"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestChildApp$", "-test.count", "1")
			cmd.Env = append(os.Environ(), childEnv+"="+mode, "PLINTH_UPGRADE=off")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(out)
			for lines.Scan() && lines.Text() != "started" {
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var rest []string
			for lines.Scan() {
				rest = append(rest, lines.Text())
			}
			err = cmd.Wait()
			took := time.Since(start)
			if err != nil {
				t.Errorf("exit: %v\nstdout: %q\nstderr:\n%s", err, rest, stderr.String())
			}
			// The hard stop fires at 0.9s; a second of slack covers a
			// loaded machine's scheduling, not a missed deadline (Run
			// would then fail, naming the requests or jobs cut off);
			// under -race only the outcome is checked.
			if took > 2*time.Second && !racetest.Enabled {
				t.Errorf("exited %s after SIGTERM, far beyond the grace of 1s", took)
			}
			if !strings.Contains(strings.Join(rest, "\n"), want) {
				t.Errorf("stdout %q, want %q\nstderr:\n%s", rest, want, stderr.String())
			}
		})
	}
}
