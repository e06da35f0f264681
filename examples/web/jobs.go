package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"regexp"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
	"github.com/plinth-go/plinth/web"
)

// effectJob records that it ran: one job_effects row per token, whose runs
// column counts the runs. Delivery is at least once: a job runs again when
// the process running it dies (SIGKILL) or loses the database between its
// effect and River marking it complete, so runs may then be 2; it is never
// 0 once POST /jobs answered 202.
type effectJob struct {
	Token string `json:"token"`
}

func (effectJob) Kind() string { return "web.effect" }

// tokenPattern is what a job token may be: the client's own name for the
// job, so that it can find the job's effect.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// openQueue returns the job queue on db (River, on PostgreSQL or SQLite)
// with the effect job's worker registered. PLINTH_ROLE says whether this
// process runs the workers (all, the default, or worker) or only
// enqueues (web).
func openQueue(db *data.DB) (*jobs.Client, error) {
	backend, err := riverjobs.New(db, riverjobs.Config{})
	if err != nil {
		return nil, err
	}
	client, err := jobs.NewClient(jobs.Config{Backend: backend})
	if err != nil {
		return nil, err
	}
	jobs.Handle(client, func(ctx context.Context, j *jobs.Job[effectJob]) error {
		_, err := db.Exec(ctx, `INSERT INTO job_effects (token, runs) VALUES ($1, 1)
			ON CONFLICT (token) DO UPDATE SET runs = job_effects.runs + 1, updated_at = CURRENT_TIMESTAMP`, j.Args.Token)
		return err
	})
	return client, nil
}

// enqueue enqueues an effect job for the form's token (signed-in users,
// CSRF-checked): a redirect to the job's page for a browser
// (web.PrefersHTML), else 202 {"id", "token"}. A database that is down answers 503 with
// Retry-After: nothing was enqueued.
func (s *site) enqueue(c *plinth.Ctx) error {
	token := c.Request().PostFormValue("token")
	if !tokenPattern.MatchString(token) {
		return plinth.Error(http.StatusUnprocessableEntity, "token: 1 to 64 letters, digits, '-' or '_'")
	}
	res, err := s.jobs.Enqueue(c.Context(), effectJob{Token: token}, nil)
	if err != nil {
		return err
	}
	if web.PrefersHTML(c.RawRequest()) {
		return c.Redirect(http.StatusSeeOther, "/jobs/"+token)
	}
	return c.JSON(http.StatusAccepted, struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}{res.ID, token})
}

// jobRuns answers {"token", "runs"}: how many times the job with token
// ran so far (0 while it waits).
func (s *site) jobRuns(c *plinth.Ctx) error {
	token := c.Param("token")
	if !tokenPattern.MatchString(token) {
		return plinth.NotFound("no such job token")
	}
	var runs int
	err := s.db.QueryRow(c.Context(), "SELECT runs FROM job_effects WHERE token = $1", token).Scan(&runs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		Token string `json:"token"`
		Runs  int    `json:"runs"`
	}{token, runs})
}
