package main

import (
	"net/http"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/plinth-go/plinth/web/webtest"
)

// /api/me answers the signed-in user, and 401 to anyone else; the user
// comes from the database.
func TestAPIMe(t *testing.T) {
	c, s := client(t)
	c.Get("/api/me", "Accept", "application/json").Problem(http.StatusUnauthorized, "")
	webtest.SignIn(t, c, s.sessions, s.auth, "1")
	var me struct{ ID, Email, Name string }
	c.Get("/api/me", "Accept", "application/json").Status(200).JSON(&me)
	if me.ID != "1" || me.Email != DemoEmail || me.Name != "Demo" {
		t.Errorf("/api/me: %+v", me)
	}
	// An ID with no row (a user deleted meanwhile) signs nobody in.
	webtest.SignIn(t, c, s.sessions, s.auth, "99")
	c.Get("/api/me", "Accept", "application/json").Problem(http.StatusUnauthorized, "")
}

// /api/version names the build and the process.
func TestAPIVersion(t *testing.T) {
	c, _ := client(t)
	var v struct {
		Version string
		PID     int
	}
	c.Get("/api/version").Status(200).JSON(&v)
	if v.Version != version || v.PID != os.Getpid() {
		t.Errorf("/api/version: %+v, want %s and pid %d", v, version, os.Getpid())
	}
}

// A quote is made once, then read from the cache: the same text, X-Cache
// miss then hit; numbers out of range are 404.
func TestQuotesCached(t *testing.T) {
	c, _ := client(t)
	var first, again quote
	c.Get("/api/quotes/7").Status(200).Header("X-Cache", "miss").JSON(&first)
	c.Get("/api/quotes/7").Status(200).Header("X-Cache", "hit").JSON(&again)
	if first != again || first.N != 7 || first.Text == "" {
		t.Errorf("quote 7: %+v then %+v", first, again)
	}
	for _, bad := range []string{"0", "1001", "-1", "x", strconv.Itoa(1 << 40)} {
		c.Get("/api/quotes/"+bad, "Accept", "application/json").Problem(http.StatusNotFound, "")
	}
}

// POST /jobs enqueues an effect job for a signed-in user's token (CSRF
// checked): 202 with the job's ID; GET /jobs/{token} counts its runs,
// which reach 1 once a worker has run it. A bad token is 422; anonymous
// users get 401.
func TestJobs(t *testing.T) {
	c, s := client(t)
	token := c.Form("/contact", "form#contact-form").Value("csrf_token")
	json := []string{"Accept", "application/json", "X-CSRF-Token", token}
	c.PostForm("/jobs", url.Values{"token": {"t1"}}, json...).Problem(http.StatusUnauthorized, "")
	webtest.SignIn(t, c, s.sessions, s.auth, "1")
	token = c.Form("/contact", "form#contact-form").Value("csrf_token")
	json = []string{"Accept", "application/json", "X-CSRF-Token", token}
	c.PostForm("/jobs", url.Values{"token": {"t1"}}, "Accept", "application/json").Problem(http.StatusForbidden, "")
	for _, bad := range []string{"", "a b", "é", string(make([]byte, 65))} {
		c.PostForm("/jobs", url.Values{"token": {bad}}, json...).Problem(http.StatusUnprocessableEntity, "")
	}
	var res struct {
		ID    int64
		Token string
	}
	c.PostForm("/jobs", url.Values{"token": {"t1"}}, json...).Status(http.StatusAccepted).JSON(&res)
	if res.ID < 1 || res.Token != "t1" {
		t.Fatalf("POST /jobs: %+v", res)
	}
	var runs struct{ Runs int }
	c.Get("/jobs/t1").Status(200).JSON(&runs)
	if runs.Runs != 0 {
		t.Fatalf("runs before any worker ran it: %d", runs.Runs)
	}
	// The workers start with the App (OnStart), which the test client does
	// not run: work the queue here, as a worker process would.
	stop := startWorkers(t, s)
	defer stop()
	deadline := time.Now().Add(20 * time.Second) // a bound against a hang, not a timing assertion
	for runs.Runs == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		c.Get("/jobs/t1").Status(200).JSON(&runs)
	}
	if runs.Runs != 1 {
		t.Errorf("job t1 ran %d times, want 1", runs.Runs)
	}
	c.Get("/jobs/nope").Status(200).JSONEq(map[string]any{"token": "nope", "runs": 0})
}
