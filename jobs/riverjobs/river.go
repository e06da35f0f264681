// Package riverjobs is the jobs.Backend on River (github.com/riverqueue/river)
// over the data layer's database: River's pgx driver on PostgreSQL, its
// SQLite driver on database/sql for the zero-setup default. Its import path
// is github.com/plinth-go/plinth/jobs/riverjobs; the package is named riverjobs
// so that it does not shadow River's own package.
//
//	db, _ := data.Open(ctx, data.Config{})
//	if _, err := riverjobs.Migrate(ctx, db, migrations); err != nil { ... } // River's tables, then the app's
//	backend, err := riverjobs.New(db, riverjobs.Config{})
//	client, err := jobs.NewClient(jobs.Config{Backend: backend})
//	client.Attach(app)
//
// Plinth sets River's defaults where River's own are unsafe for a web
// deployment: a finite job timeout (JobTimeout; River's "no timeout" is
// refused, because River has no job heartbeat and a job without a timeout
// whose process died is never rescued), stuck-job rescue at JobTimeout +
// RescueMargin instead of River's hour, and a stop that hands running jobs
// back to the queue (state available, the attempt not counted) instead of
// leaving them running. A job whose process was killed runs again within
// JobTimeout + RescueMargin + RescueLatency (docs/jobs-river.md measures it).
//
// Enqueue (jobs.Client) joins the data layer's transaction when the context
// carries one (data.InTx, data.InPgxTx): the job row is written in it, so
// it exists if and only if the transaction commits (Result.InTx).
package riverjobs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
)

// The defaults of Config.
const (
	// DefaultJobTimeout bounds one attempt of a job: its context is
	// cancelled after it. It is jobs.DefaultJobTimeout (River's own
	// default is the same minute); Plinth refuses River's "no timeout".
	DefaultJobTimeout = jobs.DefaultJobTimeout
	// DefaultRescueMargin is added to the job timeout to give the age at
	// which a job still marked running is taken for stuck (its process
	// died) and handed back to the queue: River's own default age is one
	// hour.
	DefaultRescueMargin = 15 * time.Second
	// RescueLatency bounds how long after JobTimeout + RescueMargin a
	// job whose process was killed runs again, when a process of the
	// application runs (or is restarted at once): River's rescuer runs on
	// the leader, every 30 s (not configurable); a new leader is elected
	// up to 21 s after the killed one's last renewal (River's 15 s
	// leadership TTL and 5-6 s election interval), which overlaps the
	// wait for JobTimeout + RescueMargin; the rescued job is retried after
	// River's first backoff (about 1 s) once River's scheduler (every 5 s)
	// makes it available, and fetched within FetchPollInterval (1 s).
	// 21 + 30 + 1 + 5 + 1 s, rounded up. The subprocess test
	// TestProcessSIGKILL and bench/services measure it (about 20 s with a
	// 3 s JobTimeout + RescueMargin).
	RescueLatency = time.Minute
)

// Config configures New. The zero value means the defaults above; the
// environment overrides JobTimeout.
type Config struct {
	// JobTimeout bounds one attempt of a job; its context is cancelled
	// after it, and the attempt fails unless the worker returns first.
	// Give it the value of jobs.Config.JobTimeout (jobs.NewClient resolves
	// it, and jobs.Client.Work applies the same bound). Default DefaultJobTimeout, at most
	// jobs.MaxJobTimeout. PLINTH_JOB_TIMEOUT ("90s", "5m"), the variable
	// jobs.Config reads, overrides it. New resolves it with
	// jobs.ResolveJobTimeout, the parser and checks jobs.ResolveConfig
	// uses, so a bad value fails both with the same error. It cannot be
	// switched off: a negative value, or the variable set to "0", "off" or
	// a negative duration, fails New, because a job without a timeout is
	// never rescued when its process dies (River has no heartbeat).
	JobTimeout time.Duration

	// RescueMargin is added to JobTimeout to give River's
	// RescueStuckJobsAfter: a job still marked running that long after it
	// started is handed back (retryable, then available). Default
	// DefaultRescueMargin. A worker that ignores its context's
	// cancellation past the margin may run twice at once.
	RescueMargin time.Duration

	// FetchPollInterval is how often a worker polls for jobs when no
	// notification came (PostgreSQL notifies at insert; SQLite polls).
	// Default River's, 1 s.
	FetchPollInterval time.Duration

	// Logger receives River's logs. Default slog.Default().
	Logger *slog.Logger

	// Middleware and Hooks are added to River's (for tracing and metrics:
	// rivercontrib/otelriver's Middleware gives OpenTelemetry spans and
	// metrics; the module does not import it). Default none.
	Middleware []rivertype.Middleware
	Hooks      []rivertype.Hook

	// Lookup reads the environment; nil means os.LookupEnv (tests set it).
	Lookup func(string) (string, bool)
}

// EnvNames returns the environment variables New reads, for
// App.DeclareEnv: PLINTH_JOB_TIMEOUT, which jobs.Client.Attach declares too.
func EnvNames() []string { return []string{"PLINTH_JOB_TIMEOUT"} }

// resolve applies the environment and the defaults, and checks. The job
// timeout is the jobs package's (jobs.ResolveJobTimeout): one parser of
// PLINTH_JOB_TIMEOUT and one error text.
func (c Config) resolve() (Config, error) {
	var err error
	if c.JobTimeout, err = jobs.ResolveJobTimeout(c.JobTimeout, c.Lookup); err != nil {
		return c, err
	}
	if c.RescueMargin < 0 {
		return c, fmt.Errorf("riverjobs: RescueMargin %v: must not be negative", c.RescueMargin)
	}
	c.RescueMargin = cmp.Or(c.RescueMargin, DefaultRescueMargin)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// riverClient is what Backend uses of River's Client, whichever its
// transaction type.
type riverClient interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// Backend is the jobs.Backend on River. Make it with New.
type Backend struct {
	db  *data.DB
	cfg Config

	// Insert-only clients: pgxClient on PostgreSQL (a pgx.Tx in the
	// context, or no transaction), sqlClient for a *sql.Tx (riverdatabasesql
	// on PostgreSQL, riversqlite on SQLite, where it also inserts outside a
	// transaction).
	pgxClient *river.Client[pgx.Tx]
	sqlClient *river.Client[*sql.Tx]
	admin     riverClient // the one that inserts outside a transaction

	mu       sync.Mutex
	worker   riverClient // set by Start
	running  sync.Map    // job ID -> struct{}: the attempts this process runs
	stopping atomic.Bool // Stop reached the hard stop
}

var _ jobs.Backend = (*Backend)(nil)

// New returns a Backend on db's pool (pgx on PostgreSQL, database/sql on
// SQLite). It fails when cfg or PLINTH_JOB_TIMEOUT is bad. River's tables
// must exist: run Migrate first.
func New(db *data.DB, cfg Config) (*Backend, error) {
	if db == nil {
		return nil, errors.New("riverjobs: New needs a *data.DB")
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	b := &Backend{db: db, cfg: cfg}
	switch db.Dialect() {
	case data.Postgres:
		if b.pgxClient, err = river.NewClient(riverpgxv5.New(db.Pgx()), b.riverConfig(nil, nil)); err != nil {
			return nil, fmt.Errorf("riverjobs: %w", err)
		}
		if b.sqlClient, err = river.NewClient(riverdatabasesql.New(db.SQL()), b.riverConfig(nil, nil)); err != nil {
			return nil, fmt.Errorf("riverjobs: %w", err)
		}
		b.admin = b.pgxClient
	case data.SQLite:
		if b.sqlClient, err = river.NewClient(riversqlite.New(db.SQL()), b.riverConfig(nil, nil)); err != nil {
			return nil, fmt.Errorf("riverjobs: %w", err)
		}
		b.admin = b.sqlClient
	default:
		return nil, fmt.Errorf("riverjobs: unsupported database engine %q", db.Dialect())
	}
	return b, nil
}

// Config returns the resolved configuration.
func (b *Backend) Config() Config { return b.cfg }

// riverConfig is River's configuration with Plinth's defaults; queues and
// workers are set for the working client only.
func (b *Backend) riverConfig(queues map[string]river.QueueConfig, workers *river.Workers) *river.Config {
	return &river.Config{
		JobTimeout:           b.cfg.JobTimeout,
		RescueStuckJobsAfter: b.cfg.JobTimeout + b.cfg.RescueMargin,
		FetchPollInterval:    b.cfg.FetchPollInterval,
		FetchCooldown:        min(river.FetchCooldownDefault, cmp.Or(b.cfg.FetchPollInterval, river.FetchCooldownDefault)),
		Logger:               b.cfg.Logger,
		Middleware:           append([]rivertype.Middleware{&uniqueKeyMiddleware{}}, b.cfg.Middleware...),
		Hooks:                b.cfg.Hooks,
		Queues:               queues,
		Workers:              workers,
		SkipUnknownJobCheck:  true, // jobs.Client refuses unknown kinds before Insert
		MaxAttempts:          jobs.DefaultMaxAttempts,
	}
}

// rawArgs carries a job's kind and its already-encoded arguments through
// River, which wants a JobArgs: they are stored as they are.
type rawArgs struct {
	kind   string
	raw    json.RawMessage
	unique string // jobs.EnqueueOpts.UniqueKey
}

func (a rawArgs) Kind() string { return a.kind }

func (a rawArgs) MarshalJSON() ([]byte, error) { return a.raw, nil }

func (a *rawArgs) UnmarshalJSON(b []byte) error {
	a.raw = append(a.raw[:0], b...)
	return nil
}

// allStates is every River state: a unique job stays unique in all of
// them, until River's cleaner deletes it (its retention: 24 h after it
// completed or was cancelled, 7 days after it was discarded).
var allStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
	rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// uniqueKeyMiddleware replaces River's unique key, which River computes
// from the kind and the arguments, with one from the kind and
// jobs.EnqueueOpts.UniqueKey: the same kind and key is the same job whatever
// its arguments.
type uniqueKeyMiddleware struct{ river.MiddlewareDefaults }

func (uniqueKeyMiddleware) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, next func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	for _, p := range params {
		if a, ok := p.Args.(rawArgs); ok && a.unique != "" {
			p.UniqueKey = uniqueKey(a.kind, a.unique)
		}
	}
	return next(ctx)
}

// uniqueKey is the stored unique key of a kind and a jobs unique key.
func uniqueKey(kind, key string) []byte {
	h := sha256.New()
	h.Write([]byte("plinth\x00"))
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return h.Sum(nil)
}

// Insert stores the batch in one transaction: the one ctx carries
// (data.InTx's *sql.Tx, data.InPgxTx's pgx.Tx), with Result.InTx set, or
// its own, committed before it returns.
func (b *Backend) Insert(ctx context.Context, batch []jobs.Insert) ([]jobs.Result, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	params := make([]river.InsertManyParams, len(batch))
	for i := range batch {
		params[i] = insertParams(&batch[i])
	}
	var (
		res  []*rivertype.JobInsertResult
		err  error
		inTx bool
	)
	if tx, ok := data.PgxTxFrom(ctx); ok && b.pgxClient != nil {
		inTx = true
		res, err = b.pgxClient.InsertManyTx(ctx, tx, params)
	} else if tx, ok := data.TxFrom(ctx); ok {
		inTx = true
		res, err = b.sqlClient.InsertManyTx(ctx, tx, params)
	} else {
		res, err = b.admin.InsertMany(ctx, params)
	}
	if err != nil {
		return nil, fmt.Errorf("riverjobs: insert: %w", err)
	}
	if len(res) != len(batch) {
		return nil, fmt.Errorf("riverjobs: insert: %d results for %d jobs", len(res), len(batch))
	}
	out := make([]jobs.Result, len(res))
	for i, r := range res {
		out[i] = jobs.Result{ID: r.Job.ID, Duplicate: r.UniqueSkippedAsDuplicate, InTx: inTx}
	}
	return out, nil
}

// insertParams maps one jobs.Insert to River's.
func insertParams(in *jobs.Insert) river.InsertManyParams {
	opts := &river.InsertOpts{
		MaxAttempts: in.MaxAttempts,
		Priority:    in.Priority,
		Queue:       in.Queue,
		ScheduledAt: in.ScheduledAt,
	}
	if in.UniqueKey != "" {
		// River computes its key (kind only, no ByArgs) and the states'
		// bitmask from these; uniqueKeyMiddleware replaces the key.
		opts.UniqueOpts = river.UniqueOpts{ByState: allStates}
	}
	return river.InsertManyParams{Args: rawArgs{kind: in.Kind, raw: in.Args, unique: in.UniqueKey}, InsertOpts: opts}
}

// Job returns the job with the ID.
func (b *Backend) Job(ctx context.Context, id int64) (jobs.Info, error) {
	row, err := b.admin.JobGet(ctx, id)
	if err != nil {
		return jobs.Info{}, notFound(id, err)
	}
	return info(row), nil
}

// maxList bounds List's Limit (River's own bound).
const maxList = 10000

// List returns jobs by state and kind, newest first.
func (b *Backend) List(ctx context.Context, p jobs.ListParams) ([]jobs.Info, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	lp := river.NewJobListParams().First(min(limit, maxList)).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	if len(p.States) > 0 {
		states := make([]rivertype.JobState, len(p.States))
		for i, s := range p.States {
			states[i] = rivertype.JobState(s)
		}
		lp = lp.States(states...)
	}
	if len(p.Kinds) > 0 {
		lp = lp.Kinds(p.Kinds...)
	}
	res, err := b.admin.JobList(ctx, lp)
	if err != nil {
		return nil, fmt.Errorf("riverjobs: list: %w", err)
	}
	out := make([]jobs.Info, len(res.Jobs))
	for i, row := range res.Jobs {
		out[i] = info(row)
	}
	return out, nil
}

// Retry makes the job available now (River's JobRetry: a running job is
// left alone).
func (b *Backend) Retry(ctx context.Context, id int64) (jobs.Info, error) {
	row, err := b.admin.JobRetry(ctx, id)
	if err != nil {
		return jobs.Info{}, notFound(id, err)
	}
	return info(row), nil
}

// Cancel cancels the job (River's JobCancel): a waiting job is cancelled at
// once; a running one has its context cancelled by the process running it
// and ends cancelled when its worker returns.
//
// River's JobCancel returns a job that has already finished unchanged, with
// no error; Cancel refuses it with an error wrapping jobs.ErrFinished. The
// rule, safe against a job finishing while Cancel runs: JobCancel locks the
// row and either changes it (to cancelled, or, for a running job, marks
// the cancellation and leaves it running) or returns it as it was, so the
// row it returns tells what happened:
//
//   - completed or discarded: JobCancel never makes these, so the job had
//     finished before it took the row: refused.
//   - cancelled, when the row read just before JobCancel was cancelled too,
//     with the same FinalizedAt: the job had been cancelled already and
//     nothing changed: refused.
//   - cancelled otherwise: JobCancel cancelled it, or the job ended
//     cancelled between the read and JobCancel (its worker returned
//     jobs.Cancel, or another Cancel came first): what was asked holds.
//   - running: the cancellation is on its way to the worker.
//
// A job cancelled earlier, retried and cancelled again between the read
// and JobCancel has a new FinalizedAt, so it counts as cancelled by this
// call.
func (b *Backend) Cancel(ctx context.Context, id int64) (jobs.Info, error) {
	before, err := b.admin.JobGet(ctx, id)
	if err != nil {
		return jobs.Info{}, notFound(id, err)
	}
	row, err := b.admin.JobCancel(ctx, id)
	if err != nil {
		return jobs.Info{}, notFound(id, err)
	}
	if finishedBefore(before, row) {
		return jobs.Info{}, fmt.Errorf("%w: job %d is %s", jobs.ErrFinished, id, row.State)
	}
	return info(row), nil
}

// finishedBefore reports whether after, the row JobCancel returned, is a job
// that had finished before the call (Cancel's rule); before is the row read
// just before it.
func finishedBefore(before, after *rivertype.JobRow) bool {
	switch after.State {
	case rivertype.JobStateCompleted, rivertype.JobStateDiscarded:
		return true
	case rivertype.JobStateCancelled:
		return before.State == rivertype.JobStateCancelled && sameTime(before.FinalizedAt, after.FinalizedAt)
	}
	return false
}

// sameTime reports whether a and b are both unset or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Ping checks that the database answers.
func (b *Backend) Ping(ctx context.Context) error { return b.db.Ping(ctx) }

// notFound maps River's not-found error to jobs.ErrNotFound.
func notFound(id int64, err error) error {
	if errors.Is(err, rivertype.ErrNotFound) {
		return fmt.Errorf("%w: %d", jobs.ErrNotFound, id)
	}
	return fmt.Errorf("riverjobs: job %d: %w", id, err)
}

// info maps River's row to jobs.Info; the states have the same names.
func info(row *rivertype.JobRow) jobs.Info {
	in := jobs.Info{
		ID:          row.ID,
		Kind:        row.Kind,
		Queue:       row.Queue,
		State:       jobs.State(row.State),
		Attempt:     row.Attempt,
		MaxAttempts: row.MaxAttempts,
		Priority:    row.Priority,
		Args:        json.RawMessage(row.EncodedArgs),
		Errors:      attemptErrors(row.Errors),
		CreatedAt:   row.CreatedAt,
		ScheduledAt: row.ScheduledAt,
	}
	if row.FinalizedAt != nil {
		in.FinalizedAt = *row.FinalizedAt
	}
	return in
}

func attemptErrors(errs []rivertype.AttemptError) []jobs.AttemptError {
	if len(errs) == 0 {
		return nil
	}
	out := make([]jobs.AttemptError, len(errs))
	for i, e := range errs {
		out[i] = jobs.AttemptError{Attempt: e.Attempt, At: e.At, Error: e.Error}
	}
	return out
}
