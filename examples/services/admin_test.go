package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plinth-go/plinth/data"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
)

// operatorRoutes are the routes PLINTH_ADMIN_TOKEN guards, with a body
// each would accept.
var operatorRoutes = []struct {
	method, path string
	body         any
}{
	{"POST", "/jobs/sleep", map[string]any{"ms": 1, "tag": "anonymous"}},
	{"POST", "/jobs/unique", map[string]string{"key": "anonymous"}},
	{"GET", "/jobs/1", nil},
	{"POST", "/cache/invalidate?tag=report", nil},
}

// problemDetail decodes a problem's status and detail.
func problemDetail(t *testing.T, res *http.Response, b []byte) (int, string) {
	t.Helper()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("%d %s: want a problem", res.StatusCode, b)
	}
	var p struct {
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("problem %s: %v", b, err)
	}
	return p.Status, p.Detail
}

// The operators' endpoints without the token: a 401 problem with
// WWW-Authenticate, whatever the token's form, and nothing enqueued; a
// user who signed up cannot read the job of the signup, another user's or
// any other (IDs are sequential: an existing job and a missing one answer
// alike, so there is nothing to enumerate); with the token they work.
func TestCheckOperatorsOnly(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		in := w.start("web")
		var made struct {
			JobID int64 `json:"job_id"`
		}
		in.doAs("", "POST", "/signup", map[string]string{"email": "ada@example.com", "name": "Ada"})
		res, b := in.doAs("", "POST", "/signup", map[string]string{"email": "bob@example.com", "name": "Bob"})
		if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &made) != nil || made.JobID <= 0 {
			t.Fatalf("anonymous signup: %d %s, want 201 with a job ID (signing up needs no token)", res.StatusCode, b)
		}

		routes := append(operatorRoutes[:len(operatorRoutes):len(operatorRoutes)],
			struct {
				method, path string
				body         any
			}{"GET", fmt.Sprintf("/jobs/%d", made.JobID), nil})
		for id := made.JobID - 2; id <= made.JobID+2; id++ {
			routes = append(routes, struct {
				method, path string
				body         any
			}{"GET", fmt.Sprintf("/jobs/%d", id), nil})
		}
		routes = append(routes, struct {
			method, path string
			body         any
		}{"GET", "/jobs/999999", nil})
		details := map[string]bool{}
		for _, r := range routes {
			for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Bearer " + checkToken[:20], "Bearer " + checkToken + "x",
				"Basic " + checkToken, checkToken, "Bearer  " + checkToken} {
				res, b := in.doAs(auth, r.method, r.path, r.body)
				status, detail := problemDetail(t, res, b)
				if res.StatusCode != http.StatusUnauthorized || status != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s %s with Authorization %q: %d %s (WWW-Authenticate %q), want a 401 problem with WWW-Authenticate",
						r.method, r.path, auth, res.StatusCode, b, res.Header.Get("WWW-Authenticate"))
				}
				details[detail] = true
			}
		}
		if len(details) != 1 {
			t.Errorf("the refusals differ (an oracle for which job exists): %v", details)
		}
		if n := w.count("SELECT COUNT(*) FROM river_job WHERE kind IN ('sleep', 'unique')"); n != 0 {
			t.Errorf("%d jobs enqueued without the token", n)
		}

		// With the token: the job reads, the sleep enqueues.
		if s := in.job(made.JobID); s.State != "available" {
			t.Errorf("job %d with the token: %+v, want available (no worker runs)", made.JobID, s)
		}
		sleepJobOn(in, 1, "with-token")
	})
}

// With PLINTH_ADMIN_TOKEN unset the operators' endpoints are disabled: a
// 403 problem even with a token, and nothing enqueued; the users' routes
// work.
func TestCheckOperatorsDisabled(t *testing.T) {
	w := newWorld(t, onSQLite)
	w.token = ""
	in := w.start("web")
	for _, r := range operatorRoutes {
		for _, auth := range []string{"", "Bearer " + checkToken, "Bearer "} {
			res, b := in.doAs(auth, r.method, r.path, r.body)
			status, detail := problemDetail(t, res, b)
			if res.StatusCode != http.StatusForbidden || status != http.StatusForbidden || !strings.Contains(detail, "PLINTH_ADMIN_TOKEN") {
				t.Errorf("%s %s, no token configured, Authorization %q: %d %s, want a 403 problem naming PLINTH_ADMIN_TOKEN", r.method, r.path, auth, res.StatusCode, b)
			}
		}
	}
	if n := w.count("SELECT COUNT(*) FROM river_job WHERE kind IN ('sleep', 'unique')"); n != 0 {
		t.Errorf("%d jobs enqueued with the endpoints disabled", n)
	}
	in.expect(http.StatusCreated, "POST", "/signup", map[string]string{"email": "ada@example.com", "name": "Ada"}, nil)
	expectReport(t, in, "open", "miss", "1")
}

// POST /jobs/sleep is bounded: a sleep over a minute is a 422, and past
// maxSleepsInFlight sleeps waiting or running one more is a 429 problem
// with Retry-After, nothing enqueued; once they have run, sleeps are
// taken again.
func TestCheckSleepBounded(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		web := w.start("web") // no worker: the sleeps wait
		for _, ms := range []int{maxSleepMS + 1, 600000, -1} {
			res, b := web.do("POST", "/jobs/sleep", map[string]any{"ms": ms, "tag": "long"})
			if status, _ := problemDetail(t, res, b); status != http.StatusUnprocessableEntity || !strings.Contains(string(b), "ms") {
				t.Errorf("sleep of %d ms: %d %s, want a 422 problem naming ms", ms, res.StatusCode, b)
			}
		}
		var ids []int64
		for i := range maxSleepsInFlight {
			ids = append(ids, sleepJobOn(web, 200, fmt.Sprintf("flood-%d", i)))
		}
		for range 3 {
			res, b := web.do("POST", "/jobs/sleep", map[string]any{"ms": 5000, "tag": "flood-more"})
			status, detail := problemDetail(t, res, b)
			if res.StatusCode != http.StatusTooManyRequests || status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != sleepRetryAfter {
				t.Errorf("sleep %d: %d %s (Retry-After %q), want a 429 problem with Retry-After: %s", maxSleepsInFlight+1, res.StatusCode, b, res.Header.Get("Retry-After"), sleepRetryAfter)
			}
			if !strings.Contains(detail, fmt.Sprint(maxSleepsInFlight)) {
				t.Errorf("429 detail %q does not say the bound", detail)
			}
		}
		if n := w.count("SELECT COUNT(*) FROM river_job WHERE kind = 'sleep'"); n != maxSleepsInFlight {
			t.Errorf("%d sleep jobs stored, want %d", n, maxSleepsInFlight)
		}
		w.start("worker")
		for _, id := range ids {
			web.waitJob(id, 20*time.Second, "completed", func(s jobState) bool { return s.State == "completed" })
		}
		sleepJobOn(web, 1, "after-the-flood")
	})
}

// storedErrors reads a job's recorded errors from the queue's table, as
// `plinth jobs show` does (not through the HTTP view, which redacts them
// again).
func (w *world) storedErrors(id int64) []string {
	w.t.Helper()
	db, err := data.Open(context.Background(), data.Config{URL: w.dbURL})
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	backend, err := riverjobs.New(db, riverjobs.Config{})
	if err != nil {
		w.t.Fatal(err)
	}
	info, err := backend.Job(context.Background(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, e := range info.Errors {
		out = append(out, e.Error)
	}
	return out
}

func TestRedactAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"smtpmail: recipients refused, nothing sent: RCPT TO ada@example.com: 550 5.1.1 <ada@example.com>: no such user": "smtpmail: recipients refused, nothing sent: RCPT TO [address]: 550 5.1.1 <[address]>: no such user",
		`mail: invalid message: To "\"john..doe\"@example.com": x`:                                                       `mail: invalid message: To [address]: x`,
		"451 4.3.0 try again later":              "451 4.3.0 try again later",
		"From Ops (ops@example.com), To a@b;c@d": "From Ops ([address]), To [address];[address]",
	} {
		if got := redactAddresses(in); got != want {
			t.Errorf("redactAddresses(%q) = %q, want %q", in, got, want)
		}
	}
}
