package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
)

// services is what the handlers use, reached through the App's state.
type services struct {
	db      *data.DB
	jobs    *jobs.Client
	reports *reports
	mail    *mailer

	sleepMu sync.Mutex // one sleep enqueue at a time in this process: its count and its insert
}

// newApp opens the queue, the cache and the mailer named by the
// environment, registers the jobs and routes, and returns the App, ready to
// Run.
func newApp(ctx context.Context, db *data.DB) (*plinth.App, error) {
	app := plinth.New()
	app.Config.ReadinessJSON = true // /readyz names each check: {"cache":"ok","db":"ok","mail":"ok","queue":"ok"}
	attachDB(app, db)
	client, err := openQueue(ctx, app, db)
	if err != nil {
		return nil, err
	}
	m, err := openMailer(app, client)
	if err != nil {
		return nil, err
	}
	store, err := openCache(app)
	if err != nil {
		return nil, err
	}
	adm, err := newAdmin(app)
	if err != nil {
		return nil, err
	}
	registerWorkers(client, db)
	if err := every(client, tickEvery, tickJob{}); err != nil {
		return nil, err
	}
	s := &services{db: db, jobs: client, reports: newReports(store), mail: m}
	app.SetState(s)

	app.Get("/{$}", func(c *plinth.Ctx) error {
		return c.JSON(http.StatusOK, map[string]any{"service": "services", "endpoints": []string{
			"POST /signup", "POST /jobs/sleep", "GET /jobs/{id}", "POST /jobs/unique",
			"GET /report/{k}", "POST /cache/invalidate?tag=report", "GET /readyz"}})
	})
	app.Post("/signup", s.signup(api.NewBinder[signupInput](api.Config{})))
	app.Get("/report/{k}", s.report)
	// The operators' endpoints: a bearer token (PLINTH_ADMIN_TOKEN), or
	// disabled. Anyone could otherwise read any job (sequential IDs), fill
	// the workers with sleeps, or drop the cache at will.
	ops := app.With(adm.require)
	ops.Post("/jobs/sleep", s.sleep(api.NewBinder[sleepInput](api.Config{})))
	ops.Post("/jobs/unique", s.unique(api.NewBinder[uniqueInput](api.Config{})))
	ops.Get("/jobs/{id}", s.job)
	ops.Post("/cache/invalidate", s.invalidate)
	return app, nil
}

// attachDB is db.Attach with the readiness check named "db" (the
// issue's name; db.Attach's is "database"): a ping within
// data.ReadinessTimeout, db closed after the drain, database errors
// rendered as problems (409 for a duplicate email).
func attachDB(app *plinth.App, db *data.DB) {
	app.DeclareEnv(databaseEnv...)
	app.ReadinessCheck("db", data.ReadinessTimeout, db.Ping)
	app.OnStop(func(context.Context) error { return db.Close() })
	app.ErrorHandler = func(c *plinth.Ctx, err error) {
		if p, ok := data.Problem(err); ok {
			err = p
		}
		plinth.DefaultErrorHandler(c, err)
	}
}

// databaseEnv are the variables data.Open reads (data.Config).
var databaseEnv = []string{"PLINTH_DATABASE_URL", "PLINTH_DATABASE_MAX_CONNS", "PLINTH_DATABASE_MIN_CONNS",
	"PLINTH_DATABASE_MAX_CONN_LIFETIME", "PLINTH_DATABASE_MAX_CONN_IDLE_TIME", "PLINTH_DATABASE_BUSY_TIMEOUT",
	"PLINTH_DATABASE_TX_ATTEMPTS", "PLINTH_DATABASE_PING_ON_CHECKOUT"}

// signupInput is POST /signup's body: 400 for malformed JSON, 422 naming
// each missing or invalid field.
type signupInput struct {
	Email string `json:"email" validate:"required,format=email,maxLength=254"`
	Name  string `json:"name" validate:"required,minLength=1,maxLength=100"`
}

// Validate refuses a name with a control character (a CR or LF among
// them): the name goes in the mail's body only, never in a header, and a
// user name has no use for them.
func (in *signupInput) Validate(context.Context) error {
	for _, r := range in.Name {
		if r < 0x20 || r == 0x7f {
			return &api.FieldError{Location: "body.name", Message: "must not contain control characters", Value: in.Name}
		}
	}
	return nil
}

// errAfterEnqueue is the failure ?fail=after-enqueue injects.
var errAfterEnqueue = errors.New("failed after the enqueue, as asked (?fail=after-enqueue): the transaction was rolled back")

// signup inserts the user and enqueues the welcome mail in one
// transaction: 201 {user_id, job_id}. ?fail=after-enqueue fails the
// transaction after the enqueue (500): neither the user nor the job
// exists, and no mail is sent. A second signup with the same email is a
// 409 problem.
func (s *services) signup(b *api.Binder[signupInput]) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		failAfter := false
		switch f := c.Request().URL.Query().Get("fail"); f {
		case "":
		case "after-enqueue":
			failAfter = true
		default:
			return plinth.BadRequest("fail=" + strconv.Quote(f) + ": the only failure this endpoint injects is fail=after-enqueue")
		}
		var in signupInput
		if err := b.Bind(c, &in); err != nil {
			return err
		}
		var out struct {
			UserID int64 `json:"user_id"`
			JobID  int64 `json:"job_id"`
		}
		err := s.db.InTx(c.Context(), func(ctx context.Context) error {
			tx, _ := data.TxFrom(ctx)
			if err := tx.QueryRowContext(ctx, "INSERT INTO users (email, name) VALUES ($1, $2) RETURNING id",
				strings.ToLower(in.Email), in.Name).Scan(&out.UserID); err != nil {
				return err
			}
			res, err := s.mail.enqueueWelcome(ctx, in.Email, in.Name)
			if err != nil {
				return err
			}
			if !res.InTx {
				// The queue committed the job on its own: a rollback would
				// leave a mail for a user who does not exist.
				return errors.New("signup: the welcome mail was not enqueued in the signup's transaction")
			}
			out.JobID = res.ID
			if failAfter {
				return errAfterEnqueue
			}
			return nil
		})
		if errors.Is(err, errAfterEnqueue) {
			return plinth.Errorf(http.StatusInternalServerError, "%v: no user, no job (job %d was never committed), no mail", errAfterEnqueue, out.JobID)
		}
		if err != nil {
			return err // a duplicate email: db.Attach renders the unique violation as 409
		}
		return c.JSON(http.StatusCreated, &out)
	}
}

// sleepInput is POST /jobs/sleep's body: ms from 0 to maxSleepMS (one
// minute), else 422.
type sleepInput struct {
	MS  int    `json:"ms" validate:"min=0,max=60000"`
	Tag string `json:"tag" validate:"required,maxLength=64,pattern=^[A-Za-z0-9_.:-]+$"`
}

// The bounds of POST /jobs/sleep.
const (
	// maxSleepMS is the longest sleep, in milliseconds (sleepInput's
	// max): a sleep holds a worker all along.
	maxSleepMS = 60000
	// maxSleepsInFlight is the number of sleep jobs that may wait or run
	// at once (available, scheduled, running or retryable), across the
	// deployment: fewer than the queue's workers (jobs.DefaultConcurrency,
	// 10, per worker process), so that sleeps never hold every worker
	// and the welcome mails still go out. One more is a 429 problem.
	maxSleepsInFlight = 4
	// sleepRetryAfter is the Retry-After of that 429, in seconds: about
	// when a sleep of a few seconds, the usual, has made room.
	sleepRetryAfter = "5"
)

// unfinished are the states of a job that waits or runs.
var unfinished = []jobs.State{jobs.StateAvailable, jobs.StateScheduled, jobs.StateRunning, jobs.StateRetryable}

// sleep enqueues a sleepJob: 202 {job_id}; 429 when maxSleepsInFlight
// sleeps already wait or run. The count and the insert are serialised in
// this process; two web processes enqueueing at the same instant may each
// pass the count, so the bound can be passed by one per extra web process.
func (s *services) sleep(b *api.Binder[sleepInput]) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		var in sleepInput
		if err := b.Bind(c, &in); err != nil {
			return err
		}
		s.sleepMu.Lock()
		defer s.sleepMu.Unlock()
		waiting, err := s.jobs.Backend().List(c.Context(), jobs.ListParams{
			Kinds: []string{sleepJob{}.Kind()}, States: unfinished, Limit: maxSleepsInFlight})
		if err != nil {
			return err
		}
		if len(waiting) >= maxSleepsInFlight {
			c.Header().Set("Retry-After", sleepRetryAfter)
			return plinth.Errorf(http.StatusTooManyRequests, "%d sleep jobs already wait or run, the most this service takes at once: try again when one has finished", maxSleepsInFlight)
		}
		res, err := s.jobs.Enqueue(c.Context(), sleepJob(in), nil)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusAccepted, map[string]int64{"job_id": res.ID})
	}
}

// uniqueInput is POST /jobs/unique's body.
type uniqueInput struct {
	Key string `json:"key" validate:"required,maxLength=200,pattern=^[A-Za-z0-9_.:-]+$"`
}

// unique enqueues a uniqueJob unique by its key: 202 {job_id, duplicate:
// false} the first time, 200 {job_id, duplicate: true} with the first
// job's ID after that.
func (s *services) unique(b *api.Binder[uniqueInput]) plinth.HandlerFunc {
	return func(c *plinth.Ctx) error {
		var in uniqueInput
		if err := b.Bind(c, &in); err != nil {
			return err
		}
		res, err := s.jobs.Enqueue(c.Context(), uniqueJob(in), &jobs.EnqueueOpts{UniqueKey: in.Key})
		if err != nil {
			return err
		}
		status := http.StatusAccepted
		if res.Duplicate {
			status = http.StatusOK
		}
		return c.JSON(status, map[string]any{"job_id": res.ID, "duplicate": res.Duplicate})
	}
}

// jobView is GET /jobs/{id}'s body.
type jobView struct {
	ID      int64               `json:"id"`
	Kind    string              `json:"kind"`
	State   jobs.State          `json:"state"`
	Attempt int                 `json:"attempt"`
	Errors  []jobs.AttemptError `json:"errors"`
}

// job answers {state, attempt, errors} for a job, the addresses in its
// errors redacted; 404 for an unknown ID. It is an operators' endpoint
// (admin.require): job IDs are sequential.
func (s *services) job(c *plinth.Ctx) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return plinth.NotFound("no job " + strconv.Quote(c.Param("id")) + ": job IDs are positive integers")
	}
	info, err := s.jobs.Job(c.Context(), id)
	if errors.Is(err, jobs.ErrNotFound) {
		return plinth.NotFound("no job " + strconv.FormatInt(id, 10))
	}
	if err != nil {
		return err
	}
	v := jobView{ID: info.ID, Kind: info.Kind, State: info.State, Attempt: info.Attempt, Errors: redactJobErrors(info.Errors)}
	return c.JSON(http.StatusOK, &v)
}

// report answers the report of k, computed in reportCost and cached with
// the tag "report": X-Cache says whether this request computed it (miss)
// or was served a value computed before or by a concurrent request (hit),
// X-Compute-Count how many times k was computed so far (by every instance
// sharing the cache, on Redis).
func (s *services) report(c *plinth.Ctx) error {
	k := c.Param("k")
	r, computed, count, err := s.reports.get(c.Context(), k)
	if err != nil {
		return err
	}
	h := c.Header()
	h.Set("X-Cache", map[bool]string{true: "miss", false: "hit"}[computed])
	h.Set("X-Compute-Count", strconv.FormatInt(count, 10))
	return c.JSON(http.StatusOK, &r)
}

// invalidate invalidates a tag's entries: 204. Only the tag "report"
// exists.
func (s *services) invalidate(c *plinth.Ctx) error {
	tag := c.Request().URL.Query().Get("tag")
	if tag != reportTag {
		return plinth.Errorf(http.StatusUnprocessableEntity, "tag=%q: the only tag is %q", tag, reportTag)
	}
	if err := s.reports.invalidate(c.Context()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
