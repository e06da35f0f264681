package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
	"github.com/plinth-go/plinth/plinthtest"
)

// "Rollback leaves no job and sends nothing; commit sends exactly one mail",
// with the mail's form (multipart/alternative, the name HTML-escaped, a
// UTF-8 subject), the duplicate and the bad bodies.
func TestCheckSignup(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		in := w.start("web") // enqueues; the worker process sends
		w.start("worker")

		const name = `Ada <b>"Lovelace"</b> & Co`
		var made struct {
			UserID int64 `json:"user_id"`
			JobID  int64 `json:"job_id"`
		}
		in.expect(http.StatusCreated, "POST", "/signup", map[string]string{"email": "ada@example.com", "name": name}, &made)
		if made.UserID <= 0 || made.JobID <= 0 {
			t.Fatalf("signup answered %+v, want a user and a job ID", made)
		}
		in.waitJob(made.JobID, 20*time.Second, "completed", func(s jobState) bool { return s.State == "completed" })

		var failed struct {
			Status int    `json:"status"`
			Detail string `json:"detail"`
		}
		h := in.expect(http.StatusInternalServerError, "POST", "/signup?fail=after-enqueue",
			map[string]string{"email": "bob@example.com", "name": "Bob"}, &failed)
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Errorf("rolled-back signup: Content-Type %q, want a problem", ct)
		}
		if n := w.count("SELECT COUNT(*) FROM users WHERE email = $1", "bob@example.com"); n != 0 {
			t.Errorf("rolled-back signup left %d users", n)
		}
		if n := w.count("SELECT COUNT(*) FROM river_job WHERE kind = 'plinth.mail'"); n != 1 {
			t.Errorf("%d plinth.mail jobs in river_job, want 1 (the committed signup's only)", n)
		}

		// Duplicate email: 409, and still one user.
		res, body := in.do("POST", "/signup", map[string]string{"email": "ada@example.com", "name": "Ada again"})
		if res.StatusCode != http.StatusConflict || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("duplicate signup: %d %s %s, want a 409 problem", res.StatusCode, res.Header.Get("Content-Type"), body)
		}

		// Bad input, each a problem with its status, and nothing stored.
		for _, c := range []struct {
			path, body string
			status     int
		}{
			{"/signup", `{"email":`, http.StatusBadRequest},
			{"/signup", `{}`, http.StatusUnprocessableEntity},
			{"/signup", `{"email":"not an address","name":"X"}`, http.StatusUnprocessableEntity},
			{"/signup", `{"email":"x@example.com","name":""}`, http.StatusUnprocessableEntity},
			{"/signup", `{"email":"x@example.com","name":"Eve\r\nBcc: victim@example.com"}`, http.StatusUnprocessableEntity},
			{"/signup", `{"email":"x@example.com\r\nBcc: victim@example.com","name":"Eve"}`, http.StatusUnprocessableEntity},
			{"/signup?fail=somewhere-else", `{"email":"x@example.com","name":"X"}`, http.StatusBadRequest},
		} {
			res, b := in.do("POST", c.path, c.body)
			if res.StatusCode != c.status || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
				t.Errorf("POST %s %s: %d %s %s, want a %d problem", c.path, c.body, res.StatusCode, res.Header.Get("Content-Type"), b, c.status)
			}
		}
		if n := w.count("SELECT COUNT(*) FROM users"); n != 1 {
			t.Errorf("%d users after one good signup and bad ones", n)
		}

		// Give a wrongly enqueued mail time to go out before counting.
		time.Sleep(1500 * time.Millisecond)
		if got := w.mail.to("bob@example.com"); len(got) != 0 {
			t.Errorf("the rolled-back signup sent %d mails", len(got))
		}
		if got := w.mail.to("x@example.com"); len(got) != 0 {
			t.Errorf("a refused signup sent %d mails", len(got))
		}
		got := w.mail.to("ada@example.com")
		if len(got) != 1 {
			t.Fatalf("the committed signup sent %d mails, want exactly 1", len(got))
		}
		checkWelcome(t, got[0], name)
	})
}

// checkWelcome checks the welcome mail's form: multipart/alternative with a
// text and an HTML part, the name as given in the text and HTML-escaped in
// the HTML, the subject UTF-8 (encoded words in the header).
func checkWelcome(t *testing.T, c caught, name string) {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(c.Data))
	if err != nil {
		t.Fatalf("the mail does not parse: %v\n%s", err, c.Data)
	}
	rawSubject := m.Header.Get("Subject")
	subject, err := new(mime.WordDecoder).DecodeHeader(rawSubject)
	if err != nil {
		t.Errorf("subject %q: %v", rawSubject, err)
	}
	if subject != welcomeSubject {
		t.Errorf("subject %q (raw %q), want %q", subject, rawSubject, welcomeSubject)
	}
	for _, r := range rawSubject {
		if r > 0x7e {
			t.Errorf("raw subject %q has a non-ASCII byte: want RFC 2047 encoded words", rawSubject)
			break
		}
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q (%v), want multipart/alternative", m.Header.Get("Content-Type"), err)
	}
	parts := map[string]string{}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the parts: %v", err)
		}
		pt, pp, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if !strings.EqualFold(pp["charset"], "utf-8") {
			t.Errorf("part %s: charset %q, want UTF-8", pt, pp["charset"])
		}
		b, err := readPart(p)
		if err != nil {
			t.Fatalf("part %s: %v", pt, err)
		}
		parts[pt] = b
	}
	if len(parts) != 2 || parts["text/plain"] == "" || parts["text/html"] == "" {
		t.Fatalf("parts %v, want text/plain and text/html", keys(parts))
	}
	if !strings.Contains(parts["text/plain"], name) {
		t.Errorf("the text part does not name %q:\n%s", name, parts["text/plain"])
	}
	escaped := `Ada &lt;b&gt;&#34;Lovelace&#34;&lt;/b&gt; &amp; Co`
	if !strings.Contains(parts["text/html"], escaped) || strings.Contains(parts["text/html"], "<b>\"Lovelace") {
		t.Errorf("the HTML part does not carry the name escaped (%s):\n%s", escaped, parts["text/html"])
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// readPart reads a part, decoding base64 (quoted-printable is decoded by
// the multipart reader).
func readPart(p *multipart.Part) (string, error) {
	b, err := io.ReadAll(p)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64") {
		return decodeBase64(string(b))
	}
	return string(b), nil
}

// "SIGTERM during a job shorter than the grace: the job completes (attempt
// 1), the process exits 0."
func TestCheckSIGTERMShortJob(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		in := w.start("all", "PLINTH_SHUTDOWN_TIMEOUT=6s")
		id := sleepJobOn(in, 2000, "short")
		in.waitJob(id, 15*time.Second, "running", func(s jobState) bool { return s.State == "running" })
		in.signal(syscall.SIGTERM)
		code, took := in.wait(15 * time.Second)
		if code != 0 {
			t.Errorf("exit %d after SIGTERM, want 0", code)
		}
		t.Logf("SIGTERM during a 2 s job: exit %d after %s", code, took.Round(10*time.Millisecond))
		state, attempt := w.jobRow(id)
		if state != "completed" || attempt != 1 {
			t.Errorf("job %d is %s at attempt %d, want completed at attempt 1", id, state, attempt)
		}
		if got := w.effects("short"); fmt.Sprint(got) != "[1]" {
			t.Errorf("effects tagged short: attempts %v, want [1]", got)
		}
	})
}

// "SIGTERM during a job longer than the grace: exit 0 within the grace; the
// job is handed back, not left running; after a restart it completes; its
// side effect happens once."
func TestCheckSIGTERMLongJob(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		const grace = 2 * time.Second
		w := newWorld(t, e)
		web := w.start("web") // enqueues and answers; the worker process is the one signalled
		in := w.start("worker", "PLINTH_SHUTDOWN_TIMEOUT="+grace.String())
		id := sleepJobOn(web, 6000, "long")
		web.waitJob(id, 15*time.Second, "running", func(s jobState) bool { return s.State == "running" })
		in.signal(syscall.SIGTERM)
		code, took := in.wait(grace + 3*time.Second)
		if code != 0 {
			t.Errorf("exit %d after SIGTERM, want 0", code)
		}
		if took > grace+time.Second {
			t.Errorf("exited %s after SIGTERM, want within the grace (%s) and a second of process exit", took, grace)
		}
		t.Logf("SIGTERM during a 6 s job with a %s grace: exit %d after %s", grace, code, took.Round(10*time.Millisecond))
		// Handed back: available again, the interrupted run not counted as
		// an attempt (docs/jobs-river.md).
		if state, attempt := w.jobRow(id); state != "available" || attempt != 0 {
			t.Errorf("after the hand-back job %d is %s at attempt %d, want available at attempt 0 (not running)", id, state, attempt)
		}
		if got := w.effects("long"); len(got) != 0 {
			t.Errorf("the interrupted job wrote effects %v", got)
		}

		if st := web.job(id); st.State != "available" {
			t.Errorf("the web process reads job %d as %+v while no worker runs, want available", id, st)
		}
		w.start("worker")
		web.waitJob(id, 40*time.Second, "completed after the restart", func(s jobState) bool { return s.State == "completed" })
		if got := w.effects("long"); len(got) != 1 {
			t.Errorf("effects tagged long: attempts %v, want one row (the side effect once)", got)
		}
	})
}

// "SIGKILL mid-job: after a restart the job runs again within the
// documented bound (attempt 2)."
func TestCheckSIGKILL(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		w.env = append(w.env, "PLINTH_JOB_TIMEOUT="+killJobTimeout.String())
		web := w.start("web")
		in := w.start("worker")
		id := sleepJobOn(web, 1500, "killed")
		web.waitJob(id, 15*time.Second, "running", func(s jobState) bool { return s.State == "running" })
		in.signal(syscall.SIGKILL)
		killed := time.Now()
		in.wait(5 * time.Second)
		if state, _ := w.jobRow(id); state != "running" {
			t.Fatalf("after SIGKILL job %d is %s; the check expects it left running for the rescuer", id, state)
		}
		w.start("worker")
		s := web.waitJob(id, killBound+10*time.Second, "completed after the rescue", func(s jobState) bool { return s.State == "completed" })
		after := time.Since(killed)
		if s.Attempt != 2 {
			t.Errorf("job %d completed at attempt %d, want 2", id, s.Attempt)
		}
		if after > killBound+5*time.Second {
			t.Errorf("the killed job completed %s after SIGKILL, beyond the documented bound (%s) and its 1.5 s of work", after, killBound)
		}
		t.Logf("SIGKILL mid-job: completed again %s later (job timeout %s, bound %s)", after.Round(100*time.Millisecond), killJobTimeout, killBound)
		if got := w.effects("killed"); fmt.Sprint(got) != "[2]" {
			t.Errorf("effects tagged killed: attempts %v, want [2] (attempt 1 was killed before its effect)", got)
		}
	})
}

// "Unique: the same key twice gives the same job."
func TestCheckUnique(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		web := w.start("web")
		type out struct {
			JobID     int64 `json:"job_id"`
			Duplicate bool  `json:"duplicate"`
		}
		var first, second, other out
		web.expect(http.StatusAccepted, "POST", "/jobs/unique", map[string]string{"key": "k1"}, &first)
		web.expect(http.StatusOK, "POST", "/jobs/unique", map[string]string{"key": "k1"}, &second)
		web.expect(http.StatusAccepted, "POST", "/jobs/unique", map[string]string{"key": "k2"}, &other)
		if first.Duplicate || !second.Duplicate || second.JobID != first.JobID {
			t.Errorf("same key twice: %+v then %+v, want the same job, the second a duplicate", first, second)
		}
		if other.Duplicate || other.JobID == first.JobID {
			t.Errorf("another key: %+v, want a new job", other)
		}
		if n := w.count("SELECT COUNT(*) FROM river_job WHERE kind = 'unique'"); n != 2 {
			t.Errorf("%d unique jobs stored, want 2", n)
		}
		// A web process runs no job; a worker does, once per job.
		time.Sleep(1500 * time.Millisecond)
		if s := web.job(first.JobID); s.State != "available" || s.Attempt != 0 {
			t.Errorf("with the web role only, the job is %+v; want available, never run", s)
		}
		w.start("worker")
		web.waitJob(first.JobID, 20*time.Second, "completed by the worker", func(s jobState) bool { return s.State == "completed" })
		web.waitJob(other.JobID, 20*time.Second, "completed by the worker", func(s jobState) bool { return s.State == "completed" })
		if got := w.effects("unique:k1"); fmt.Sprint(got) != "[1]" {
			t.Errorf("effects of the unique job k1: attempts %v, want [1]", got)
		}
		web.expect(http.StatusOK, "POST", "/jobs/unique", map[string]string{"key": "k1"}, &second)
		if !second.Duplicate || second.JobID != first.JobID {
			t.Errorf("the same key once its job completed: %+v, want the same job", second)
		}
		if res, b := web.do("GET", "/jobs/999999", nil); res.StatusCode != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("GET /jobs/999999: %d %s, want a 404 problem", res.StatusCode, b)
		}
	})
}

// "Periodic: two instances for 10 s produce one tick per period." The
// ticks are rows in effects: 5 ± 1 in 10 s, never two for one period.
func TestCheckPeriodic(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		w := newWorld(t, e)
		w.start("all")
		w.start("all")
		before := w.count("SELECT COUNT(*) FROM effects WHERE tag = 'tick'")
		time.Sleep(10 * time.Second)
		after := w.count("SELECT COUNT(*) FROM effects WHERE tag = 'tick'")
		ticks := after - before
		t.Logf("two instances, 10 s: %d ticks", ticks)
		if ticks < 4 || ticks > 6 {
			t.Errorf("%d ticks in 10 s from two instances, want 5 ± 1 (one per %s)", ticks, tickEvery)
		}
		times := w.tickTimes()
		for i := 1; i < len(times); i++ {
			if gap := times[i].Sub(times[i-1]); gap < tickEvery/2 {
				t.Errorf("ticks %d and %d only %s apart: two for one period", i-1, i, gap)
			}
		}
		if n := w.count("SELECT COUNT(*) FROM effects WHERE tag = 'tick'") - w.count("SELECT COUNT(DISTINCT job_id) FROM effects WHERE tag = 'tick'"); n != 0 {
			t.Errorf("%d tick jobs ran twice", n)
		}
	})
}

// "64 concurrent misses on one cold key compute it once; after a tag
// invalidation one miss, then hits" (memory cache, one instance; the Redis
// variant is TestCheckCacheRedis).
func TestCheckCacheMemory(t *testing.T) {
	w := newWorld(t, onSQLite)
	in := w.start("web")
	checkStampede(t, in, in, "cold")
	// Bad keys: a control character, over 1 KiB.
	for _, k := range []string{"a%0Ab", strings.Repeat("k", 1100)} {
		res, b := in.do("GET", "/report/"+k, nil)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("GET /report/%.20s...: %d %s, want 400", k, res.StatusCode, b)
		}
	}
	res, b := in.do("POST", "/cache/invalidate?tag=nope", nil)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("invalidate an unknown tag: %d %s, want 422", res.StatusCode, b)
	}
}

// checkStampede: 64 concurrent GETs of a cold key on a compute it once; b
// (another instance on a shared cache, or a itself) then reads a hit; after
// an invalidation on b, a computes once more and then both hit.
func checkStampede(t *testing.T, a, b *instance, key string) {
	t.Helper()
	const n = 64
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	misses := 0
	for range n {
		wg.Go(func() {
			res, body := a.do("GET", "/report/"+key, nil)
			mu.Lock()
			defer mu.Unlock()
			if res.StatusCode != http.StatusOK {
				t.Errorf("GET /report/%s: %d %s", key, res.StatusCode, body)
				return
			}
			counts[res.Header.Get("X-Compute-Count")]++
			if res.Header.Get("X-Cache") == "miss" {
				misses++
			}
		})
	}
	wg.Wait()
	if len(counts) != 1 || counts["1"] != n || misses != 1 {
		t.Errorf("%d concurrent cold GETs: X-Compute-Count %v, %d misses; want 1 computation, 1 miss", n, counts, misses)
	}
	expectReport(t, b, key, "hit", "1")
	b.expect(http.StatusNoContent, "POST", "/cache/invalidate?tag=report", nil, nil)
	expectReport(t, a, key, "miss", "2")
	expectReport(t, a, key, "hit", "2")
	expectReport(t, b, key, "hit", "2")
}

func expectReport(t *testing.T, in *instance, key, cache, count string) {
	t.Helper()
	res, body := in.do("GET", "/report/"+key, nil)
	if res.StatusCode != http.StatusOK || res.Header.Get("X-Cache") != cache || res.Header.Get("X-Compute-Count") != count {
		t.Errorf("GET /report/%s on %s: %d X-Cache %q X-Compute-Count %q %s; want 200 %s %s", key, in.name, res.StatusCode,
			res.Header.Get("X-Cache"), res.Header.Get("X-Compute-Count"), body, cache, count)
	}
}

// readyz returns /readyz's status and each service's state.
func (in *instance) readyz() (int, map[string]string) {
	in.t.Helper()
	res, b := in.do("GET", "/readyz", nil)
	states, err := parseReadiness(b)
	if err != nil {
		in.t.Fatalf("/readyz: %v: %s", err, b)
	}
	return res.StatusCode, states
}

// "A closed Redis port still serves (computed) and readiness says degraded";
// a closed SMTP port degrades readiness too, without failing it.
func TestCheckCacheDown(t *testing.T) {
	w := newWorld(t, onSQLite)
	w.cacheURL = "redis://" + closedPort(t) + "/0"
	in := w.start("all", "PLINTH_MAIL_URL=smtp://"+closedPort(t)+"?tls=none") // the mail server down too
	expectReport(t, in, "down", "miss", "1")
	expectReport(t, in, "down", "miss", "2")
	status, states := in.readyz()
	if status != http.StatusOK || states["cache"] != "degraded" || states["mail"] != "degraded" || states["db"] != "ok" || states["queue"] != "ok" {
		t.Errorf("/readyz with Redis and SMTP down: %d %v, want 200 with cache and mail degraded, db and queue ok", status, states)
	}
}

// "A second instance on Redis reads a hit", and the stampede and the
// invalidation across two instances sharing Redis.
func TestCheckCacheRedis(t *testing.T) {
	redisURL := plinthtest.RedisURL(t)
	e := onSQLite
	if os.Getenv("PLINTH_TEST_POSTGRES") != "" {
		e = onPostgres // the deployment the issue names: PostgreSQL, Redis and SMTP together
	}
	w := newWorld(t, e)
	// A prefix of this run's own: the reports' keys, their counters and
	// the tag's generation are apart from every other user of the database.
	sep := "?"
	if strings.Contains(redisURL, "?") {
		sep = "&"
	}
	w.cacheURL = fmt.Sprintf("%s%sprefix=plinth-services-check-%d-%d:", redisURL, sep, os.Getpid(), time.Now().UnixNano())
	a := w.start("web")
	b := w.start("web")
	// A key of this run: the computation counter lives in Redis.
	checkStampede(t, a, b, fmt.Sprintf("redis-%d-%d", os.Getpid(), time.Now().UnixNano()))

	// Across instances: 32 concurrent cold GETs on each compute the key
	// once between them (the cache's Redis lock).
	key := fmt.Sprintf("redis-both-%d-%d", os.Getpid(), time.Now().UnixNano())
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	misses := 0
	for i := range 64 {
		in := a
		if i%2 == 1 {
			in = b
		}
		wg.Go(func() {
			res, body := in.do("GET", "/report/"+key, nil)
			mu.Lock()
			defer mu.Unlock()
			if res.StatusCode != http.StatusOK {
				t.Errorf("GET /report/%s on %s: %d %s", key, in.name, res.StatusCode, body)
				return
			}
			counts[res.Header.Get("X-Compute-Count")]++
			if res.Header.Get("X-Cache") == "miss" {
				misses++
			}
		})
	}
	wg.Wait()
	if len(counts) != 1 || counts["1"] != 64 || misses != 1 {
		t.Errorf("64 concurrent cold GETs on two instances: X-Compute-Count %v, %d misses; want 1 computation, 1 miss", counts, misses)
	}
}

// /readyz names each service: all ok on a healthy world.
func TestCheckReadyz(t *testing.T) {
	w := newWorld(t, onSQLite)
	in := w.start("all")
	status, states := in.readyz()
	for _, s := range []string{"db", "queue", "cache", "mail"} {
		if states[s] != "ok" {
			t.Errorf("/readyz: %s is %q, want ok (%v)", s, states[s], states)
		}
	}
	if status != http.StatusOK {
		t.Errorf("/readyz: %d, want 200", status)
	}
}

// /readyz answers 503 once the database (and with it the queue, on the
// same database) is down: PostgreSQL's database is dropped under a running
// instance.
func TestCheckReadyzDown(t *testing.T) {
	plinthtest.PostgresURL(t) // readiness with the database gone is checked on PostgreSQL
	w := newWorld(t, onPostgres)
	in := w.start("web")
	if status, states := in.readyz(); status != http.StatusOK {
		t.Fatalf("/readyz before: %d %v", status, states)
	}
	w.dropDatabase()
	eventually(t, 10*time.Second, "/readyz 503 with db down and queue degraded", func() (bool, string) {
		status, states := in.readyz()
		return status == http.StatusServiceUnavailable && states["db"] == "down" && states["queue"] == "degraded" && states["cache"] == "ok",
			fmt.Sprintf("%d %v", status, states)
	})
}

// "An SMTP 550 → discarded after one attempt with the error recorded; 451
// twice then 250 → delivered on attempt 3."
func TestCheckSMTPReplies(t *testing.T) {
	forEachEngine(t, checkSMTPReplies)
}

func checkSMTPReplies(t *testing.T, e engine) {
	w := newWorld(t, e)
	in := w.start("all")
	var made struct {
		JobID int64 `json:"job_id"`
	}
	w.mail.reply("550 5.1.1 <refused@example.com>: no such user")
	in.expect(http.StatusCreated, "POST", "/signup", map[string]string{"email": "refused@example.com", "name": "R"}, &made)
	s := in.waitJob(made.JobID, 20*time.Second, "discarded", func(s jobState) bool { return s.State == "discarded" })
	if s.Attempt != 1 || len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Error, "550") {
		t.Errorf("after a 550: %+v, want discarded at attempt 1 with the 550 recorded", s)
	}
	// The reply names the recipient: neither the answer nor the queue's
	// table keeps the address (an operator reads the error; the address is
	// the user's).
	for i, e := range append([]string{s.Errors[0].Error}, w.storedErrors(made.JobID)...) {
		if strings.Contains(e, "@") || !strings.Contains(e, "<[address]>: no such user") {
			t.Errorf("job error %d %q: want the 550 with the address redacted", i, e)
		}
	}
	if n := len(w.mail.to("refused@example.com")); n != 0 {
		t.Errorf("%d mails accepted for the refused address", n)
	}

	w.mail.reply("451 4.3.0 try again later", "451 4.3.0 try again later")
	in.expect(http.StatusCreated, "POST", "/signup", map[string]string{"email": "later@example.com", "name": "L"}, &made)
	s = in.waitJob(made.JobID, 60*time.Second, "completed", func(s jobState) bool { return s.State == "completed" })
	if s.Attempt != 3 || len(s.Errors) != 2 {
		t.Errorf("after 451, 451, 250: %+v, want completed at attempt 3 with two errors", s)
	}
	if n := len(w.mail.to("later@example.com")); n != 1 {
		t.Errorf("%d mails delivered after 451, 451, 250; want 1", n)
	}
}

// sleepJobOn enqueues a sleep job and returns its ID.
func sleepJobOn(in *instance, ms int, tag string) int64 {
	in.t.Helper()
	var out struct {
		JobID int64 `json:"job_id"`
	}
	in.expect(http.StatusAccepted, "POST", "/jobs/sleep", map[string]any{"ms": ms, "tag": tag}, &out)
	return out.JobID
}

// jobRow reads a job's state and attempt from River's table.
func (w *world) jobRow(id int64) (state string, attempt int) {
	w.t.Helper()
	if err := w.open().QueryRow("SELECT state, attempt FROM river_job WHERE id = $1", id).Scan(&state, &attempt); err != nil {
		w.t.Fatalf("job %d in river_job: %v", id, err)
	}
	return state, attempt
}

// effects returns the attempts of the effects rows tagged tag, in order.
func (w *world) effects(tag string) []int {
	w.t.Helper()
	rows, err := w.open().Query("SELECT attempt FROM effects WHERE tag = $1 ORDER BY id", tag)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	got := []int{}
	for rows.Next() {
		var a int
		if err := rows.Scan(&a); err != nil {
			w.t.Fatal(err)
		}
		got = append(got, a)
	}
	if err := rows.Err(); err != nil {
		w.t.Fatal(err)
	}
	return got
}

// tickTimes returns when the tick effects were written, in order.
func (w *world) tickTimes() []time.Time {
	w.t.Helper()
	q := "SELECT created_at FROM effects WHERE tag = 'tick' ORDER BY created_at"
	rows, err := w.open().Query(q)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at any
		if err := rows.Scan(&at); err != nil {
			w.t.Fatal(err)
		}
		switch v := at.(type) {
		case time.Time:
			out = append(out, v)
		case string:
			tt, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				w.t.Fatalf("tick time %q: %v", v, err)
			}
			out = append(out, tt)
		default:
			w.t.Fatalf("tick time of type %T", at)
		}
	}
	return out
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// decodeBase64 decodes a base64 body split in lines.
func decodeBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	return string(b), err
}

// A bad variable stops the example at start, exit 1, with an error naming
// it: never a process that serves with a setting it did not understand.
func TestCheckBadEnvironment(t *testing.T) {
	bin := binary(t)
	w := newWorld(t, onSQLite)
	for _, tc := range []struct{ env, want string }{
		{"PLINTH_ROLE=everything", "PLINTH_ROLE"},
		{"PLINTH_JOB_TIMEOUT=-1", "PLINTH_JOB_TIMEOUT"},
		{"PLINTH_JOB_TIMEOUT=soon", "PLINTH_JOB_TIMEOUT"},
		{"PLINTH_CACHE_URL=memcached://127.0.0.1:11211", "PLINTH_CACHE_URL"},
		{"PLINTH_MAIL_URL=ftp://127.0.0.1", "PLINTH_MAIL_URL"},
		{"PLINTH_MAIL_FROM=not an address", "PLINTH_MAIL_FROM"},
		{"PLINTH_ADMIN_TOKEN=short", "PLINTH_ADMIN_TOKEN"},
		{"PLINTH_ADMIN_TOKEN=a token with spaces in it", "PLINTH_ADMIN_TOKEN"},
		{"PLINTH_DATABASE_URL=mysql://127.0.0.1/x", "mysql://"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a process that serves is killed
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(cleanEnviron(), "PLINTH_ADDR=127.0.0.1:0", "PLINTH_DATABASE_URL="+w.dbURL, tc.env)
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v, output:\n%s\nwant exit 1 naming %s", tc.env, err, out, tc.want)
		}
	}
}

// welcomeSubject is the subject welcome.txt defines.
const welcomeSubject = "Bienvenue à Plinth ✓"

// parseReadiness reads /readyz's JSON body: {"db":"ok","cache":"degraded",...}.
func parseReadiness(b []byte) (map[string]string, error) {
	var states map[string]string
	err := json.Unmarshal(b, &states)
	return states, err
}

// killJobTimeout is PLINTH_JOB_TIMEOUT in the SIGKILL check: a killed job
// is rescued once it has been running longer than this plus the rescue
// margin.
const killJobTimeout = 3 * time.Second

// killBound is the documented bound on a killed job running again
// (jobs/riverjobs): the job timeout, the rescue margin and the rescuer's
// latency.
const killBound = killJobTimeout + riverjobs.DefaultRescueMargin + riverjobs.RescueLatency
