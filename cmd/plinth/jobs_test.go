package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// jobsApp is a program whose jobs live in jobstest's in-memory backend:
// job 1 completed, job 2 discarded (a 550), job 3 available.
const jobsApp = `package main

import (
	"context"
	"errors"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/jobs"
	"github.com/plinth-go/plinth/jobs/jobstest"
)

type mail struct {
	To string ` + "`json:\"to\"`" + `
}

func (mail) Kind() string { return "mail" }

func main() {
	b := jobstest.New()
	c, err := jobs.NewClient(jobs.Config{Backend: b})
	if err != nil {
		panic(err)
	}
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[mail]) error {
		if j.Args.To == "bounce" {
			return jobs.Discard(errors.New("550 no such user"))
		}
		return nil
	})
	ctx := context.Background()
	for _, to := range []string{"a", "bounce"} {
		if _, err := c.Enqueue(ctx, mail{To: to}, nil); err != nil {
			panic(err)
		}
	}
	b.Drain(ctx, c)
	if _, err := c.Enqueue(ctx, mail{To: "later"}, &jobs.EnqueueOpts{Queue: "mail"}); err != nil {
		panic(err)
	}
	app := plinth.New()
	c.Attach(app)
	if err := app.Run(); err != nil {
		panic(err)
	}
}
`

// plinth jobs answers through the program's own jobs Client: list,
// failed, show, retry and cancel, as a table or JSON; a refused action or
// a bad command line fails with the reason.
func TestJobsCommand(t *testing.T) {
	slow(t)
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "app"), 0o755)
	os.WriteFile(filepath.Join(dir, "app", "main.go"), []byte(jobsApp), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/t\n\ngo 1.26.0\n\nrequire github.com/plinth-go/plinth v0.0.0-00010101000000-000000000000\n\nreplace github.com/plinth-go/plinth => "+checkout(t)+"\n"), 0o644)
	env := &environment{dir: dir, env: projectEnv()}

	stdout, stderr, code := cli(env, "jobs", "--pkg", "./app", "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, stderr)
	}
	rows := regexp.MustCompile(`(?m)^(\d+)\s+mail\s+(\w+)\s+(\w+)\s+(\d+/25)\s`).FindAllStringSubmatch(stdout, -1)
	if !strings.HasPrefix(stdout, "ID") || len(rows) != 3 || rows[0][1] != "3" || rows[0][2] != "mail" || rows[0][3] != "available" ||
		rows[1][3] != "discarded" || rows[2][3] != "completed" || rows[2][4] != "1/25" || !strings.Contains(stdout, "550 no such user") {
		t.Errorf("list:\n%s", stdout)
	}

	stdout, _, code = cli(env, "jobs", "--pkg", "./app", "--json", "failed")
	var failed []jobInfo
	if err := json.Unmarshal([]byte(stdout), &failed); code != 0 || err != nil || len(failed) != 1 || failed[0].ID != 2 || len(failed[0].Errors) != 1 {
		t.Errorf("failed --json: exit %d, %v\n%s", code, err, stdout)
	}

	stdout, _, code = cli(env, "jobs", "--pkg", "./app", "show", "2")
	if code != 0 || !strings.Contains(stdout, "attempt 1 at ") || !strings.Contains(stdout, "jobs: discarded: 550 no such user") {
		t.Errorf("show 2: exit %d\n%s", code, stdout)
	}
	stdout, _, code = cli(env, "jobs", "--pkg", "./app", "retry", "2")
	if code != 0 || !regexp.MustCompile(`(?m)^2\s+mail\s+default\s+available\s`).MatchString(stdout) {
		t.Errorf("retry 2: exit %d\n%s", code, stdout)
	}
	stdout, _, code = cli(env, "jobs", "--pkg", "./app", "cancel", "3")
	if code != 0 || !regexp.MustCompile(`(?m)^3\s+mail\s+mail\s+cancelled\s`).MatchString(stdout) {
		t.Errorf("cancel 3: exit %d\n%s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cancel", "1"}, exitFailure, "jobs: job has finished: job 1 is completed"},
		{[]string{"show", "99"}, exitFailure, "no such job"},
		{[]string{"retry"}, exitUsage, "takes one argument"},
		{[]string{"retry", "x"}, exitUsage, `"x": not a job ID`},
		{[]string{"list", "0"}, exitUsage, "want a number of jobs"},
		{[]string{"purge"}, exitUsage, `unknown command "purge"`},
		{nil, exitUsage, "want a command"},
	} {
		_, stderr, code := cli(env, append([]string{"jobs", "--pkg", "./app"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("jobs %v: exit %d, want %d and %q in:\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
	}
}
