package main

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `plinth jobs` on the example, from outside: the CLI builds the example
// in its admin mode and answers from the example's own queue. A mail the
// SMTP server refused (550) is listed by `failed` and `show` with its
// error; `retry` makes it available, and the running worker delivers it;
// `cancel` of a finished job is refused with the reason, exit 1.
func TestCheckPlinthJobs(t *testing.T) {
	binary(t) // skips under -short
	w := newWorld(t, onSQLite)
	in := w.start("all")
	w.mail.reply("550 5.1.1 <gone@example.com>: no such user")
	var made struct {
		JobID int64 `json:"job_id"`
	}
	in.expect(http.StatusCreated, "POST", "/signup", map[string]string{"email": "gone@example.com", "name": "G"}, &made)
	in.waitJob(made.JobID, 20*time.Second, "discarded", func(s jobState) bool { return s.State == "discarded" })

	cli := filepath.Join(t.TempDir(), "plinth")
	build := exec.Command("go", "build", "-o", cli, "github.com/plinth-go/plinth/cmd/plinth")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the plinth command: %v\n%s", err, out)
	}
	id := fmt.Sprint(made.JobID)
	plinth := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(cli, append([]string{"jobs"}, args...)...)
		cmd.Env = append(cleanEnviron(), "PLINTH_DATABASE_URL="+w.dbURL)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("plinth jobs %s: %v", strings.Join(args, " "), err)
		}
		return string(out), code
	}

	out, code := plinth("failed")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "discarded") || !strings.Contains(out, "recipients refused") {
		t.Errorf("plinth jobs failed: exit %d\n%s\nwant job %s discarded, the refusal as its last error", code, out, id)
	}
	out, code = plinth("show", id)
	if code != 0 || !strings.Contains(out, "no such user") {
		t.Errorf("plinth jobs show %s: exit %d\n%s\nwant the 550 reply", id, code, out)
	}
	out, code = plinth("retry", id)
	if code != 0 || !strings.Contains(out, "available") {
		t.Errorf("plinth jobs retry %s: exit %d\n%s\nwant it available", id, code, out)
	}
	s := in.waitJob(made.JobID, 20*time.Second, "completed after the retry", func(s jobState) bool { return s.State == "completed" })
	if n := len(w.mail.to("gone@example.com")); n != 1 {
		t.Errorf("after the retry %d mails delivered, want 1 (%+v)", n, s)
	}
	// Cancelling a finished job is refused with the reason, exit 1, and
	// changes nothing.
	out, code = plinth("cancel", id)
	if code != 1 || !strings.Contains(out, "jobs: job has finished: job "+id+" is completed") {
		t.Errorf("plinth jobs cancel of a completed job: exit %d\n%s\nwant exit 1 and the reason", code, out)
	}
	out, code = plinth("show", id)
	if code != 0 || !strings.Contains(out, "completed") || strings.Contains(out, "cancelled") {
		t.Errorf("plinth jobs show %s after the refused cancel: exit %d\n%s\nwant the job left completed", id, code, out)
	}
	out, code = plinth("show", "999999")
	if code != 1 || !strings.Contains(out, "999999") {
		t.Errorf("plinth jobs show of an unknown job: exit %d\n%s\nwant exit 1 naming it", code, out)
	}
}
