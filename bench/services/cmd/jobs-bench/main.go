// Command jobs-bench measures jobs/riverjobs beside raw River (and PostgreSQL's
// own one-row insert rate, from pgbench, in the same run) and writes a
// Markdown results file for cmd/report's "Jobs" section:
//
//	cd bench/services && flock /tmp/plinth-wallclock.lock go run ./cmd/jobs-bench -o ../results/jobs-$(date -u +%F).md
//
// Each figure is the median of -rounds runs of -d each, the order of
// Plinth and raw River alternating between rounds, on a database created
// for the run (plinth_bench_jobs on the -pg server, a file on SQLite).
package main

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/jobs"
	riverjobs "github.com/plinth-go/plinth/jobs/riverjobs"
)

var (
	pgURL   = flag.String("pg", cmpOr(os.Getenv("PLINTH_TEST_POSTGRES"), "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL (a database plinth_bench_jobs is created and dropped)")
	dur     = flag.Duration("d", 2*time.Second, "duration of each timed run")
	rounds  = flag.Int("rounds", 5, "runs of each measurement (median)")
	out     = flag.String("o", "-", "output Markdown file, - for standard output")
	batch   = flag.Int("batch", 1000, "jobs per batch insert")
	workN   = flag.Int("work", 5000, "jobs per no-op work run")
	killRun = flag.Bool("kill", true, "measure SIGKILL to running again (about 25 s per engine)")
	child   = flag.String("child", "", "internal: run as the SIGKILL test's worker on this database URL")
)

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var quiet = slog.New(slog.DiscardHandler)

// noopArgs is the raw River kind and, with jobs.Handle, Plinth's.
type noopArgs struct {
	N int `json:"n"`
}

func (noopArgs) Kind() string { return "bench_noop" }

type noopWorker struct{ river.WorkerDefaults[noopArgs] }

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

// sleepArgs is the SIGKILL measurement's kind.
type sleepArgs struct {
	Ms int `json:"ms"`
}

func (sleepArgs) Kind() string { return "bench_sleep" }

func main() {
	flag.Parse()
	if *child != "" {
		os.Exit(childMain(*child))
	}
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		fmt.Fprintln(os.Stderr, "jobs-bench:", err)
		os.Exit(1)
	}
	if *out == "-" {
		os.Stdout.Write(buf.Bytes())
		return
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "jobs-bench:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "wrote", *out)
}

// env is one engine's database, with Plinth's Backend and raw River on it.
type env struct {
	name    string
	url     string
	db      *data.DB
	backend *riverjobs.Backend
	client  *jobs.Client
	// raw River, insert-only: pgx on PostgreSQL, SQLite's driver there.
	rawPgx *river.Client[pgx.Tx]
	rawSQL *river.Client[*sql.Tx] // riverdatabasesql on PostgreSQL, riversqlite on SQLite
}

func openEnv(ctx context.Context, name, url string) (*env, error) {
	db, err := data.Open(ctx, data.Config{URL: url})
	if err != nil {
		return nil, err
	}
	if _, err := riverjobs.Migrate(ctx, db, nil); err != nil {
		return nil, err
	}
	if _, err := db.SQL().ExecContext(ctx, "CREATE TABLE IF NOT EXISTS app_rows (id BIGINT, v TEXT)"); err != nil {
		return nil, err
	}
	b, err := riverjobs.New(db, riverjobs.Config{Logger: quiet, Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		return nil, err
	}
	c, err := jobs.NewClient(jobs.Config{Backend: b})
	if err != nil {
		return nil, err
	}
	jobs.Handle(c, func(context.Context, *jobs.Job[noopArgs]) error { return nil })
	e := &env{name: name, url: url, db: db, backend: b, client: c}
	if db.Dialect() == data.Postgres {
		if e.rawPgx, err = river.NewClient(riverpgxv5.New(db.Pgx()), &river.Config{Logger: quiet}); err != nil {
			return nil, err
		}
		if e.rawSQL, err = river.NewClient(riverdatabasesql.New(db.SQL()), &river.Config{Logger: quiet}); err != nil {
			return nil, err
		}
	} else if e.rawSQL, err = river.NewClient(riversqlite.New(db.SQL()), &river.Config{Logger: quiet}); err != nil {
		return nil, err
	}
	return e, nil
}

// pair measures a and b for rounds, alternating which goes first, and
// returns their medians.
func pair(a, b func() (float64, error)) (float64, float64, error) {
	var as, bs []float64
	for r := 0; r < *rounds; r++ {
		first, second := a, b
		if r%2 == 1 {
			first, second = b, a
		}
		x, err := first()
		if err != nil {
			return 0, 0, err
		}
		y, err := second()
		if err != nil {
			return 0, 0, err
		}
		if r%2 == 1 {
			x, y = y, x
		}
		as, bs = append(as, x), append(bs, y)
	}
	return median(as), median(bs), nil
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// row is one line of a results table.
type row struct {
	what          string
	plinth, river float64
	unit          string
	extra         string
}

func run(w io.Writer) error {
	ctx := context.Background()
	var rows []row
	var notes []string

	// PostgreSQL.
	admin, err := pgx.Connect(ctx, *pgURL)
	if err != nil {
		return fmt.Errorf("-pg %s: %w", data.Redact(*pgURL), err)
	}
	defer admin.Close(ctx)
	var pgVersion string
	admin.QueryRow(ctx, "SHOW server_version").Scan(&pgVersion)
	var syncCommit string
	admin.QueryRow(ctx, "SHOW synchronous_commit").Scan(&syncCommit)
	const dbName = "plinth_bench_jobs"
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
	pgDB := withDatabase(*pgURL, dbName)
	pg, err := openEnv(ctx, "postgres", pgDB)
	if err != nil {
		return err
	}
	defer pg.db.Close()

	tmp, err := os.MkdirTemp("", "jobs-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lite, err := openEnv(ctx, "sqlite", "sqlite:"+filepath.Join(tmp, "bench.db"))
	if err != nil {
		return err
	}
	defer lite.db.Close()

	for _, e := range []*env{pg, lite} {
		r, err := measureEngine(ctx, e)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		rows = append(rows, r...)
	}

	// pgbench's one-row insert, the commit limit, beside the single
	// enqueues: same server, same database, one client.
	tps, err := pgbenchInsert(pgDB)
	if err != nil {
		notes = append(notes, "pgbench could not run: "+err.Error())
	}

	var kills []string
	if *killRun {
		for _, e := range []*env{pg, lite} {
			took, bound, err := measureKill(ctx, e)
			if err != nil {
				return fmt.Errorf("%s: SIGKILL: %w", e.name, err)
			}
			kills = append(kills, fmt.Sprintf("| %s | %.1f s | %.0f s |", e.name, took.Seconds(), bound.Seconds()))
		}
	}

	rev, _ := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	fmt.Fprintf(w, "# Jobs: jobs/riverjobs beside raw River (%s)\n\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(w, "Command: `cd bench/services && flock /tmp/plinth-wallclock.lock go run ./cmd/jobs-bench -o ../results/jobs-$(date -u +%%F).md` (%s UTC, -d %v, -rounds %d).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), *dur, *rounds)
	fmt.Fprintf(w, "- machine: %d CPUs, %s, %s; PostgreSQL %s (synchronous_commit %s) on the same machine; SQLite: modernc, WAL, a file in %s\n",
		runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, runtime.Version(), pgVersion, syncCommit, os.TempDir())
	fmt.Fprintf(w, "- commit: %s; River v0.51.2; one process, Plinth and raw River interleaved call by call (each rate over its own calls' time; median of %d rounds of %v of calls each), the work rates alternating run by run\n\n", strings.TrimSpace(string(rev)), *rounds, *dur)
	fmt.Fprintf(w, "Plinth is jobs.Client.Enqueue / EnqueueMany on jobs/riverjobs (arguments checked and encoded by the Client, unique key middleware, the data layer's transaction joined); raw River is river.Client.Insert / InsertMany / InsertTx with a typed argument struct on the same pool. One client, serially, unless the row says otherwise.\n\n")
	fmt.Fprintf(w, "| measurement | Plinth | raw River | unit | Plinth / River | note |\n|---|---:|---:|---|---:|---|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f | %s |\n", r.what, num(r.plinth), num(r.river), r.unit, r.plinth/r.river, r.extra)
	}
	if tps > 0 {
		fmt.Fprintf(w, "\npgbench, one-row INSERT per transaction, 1 client, %v, same database: **%s tps** (the commit limit the single enqueues above stand beside).\n", *dur, num(tps))
	}
	if len(kills) > 0 {
		fmt.Fprintf(w, "\nSIGKILL mid-job to the job running again (attempt 2) in a worker process restarted at once, JobTimeout 2s + RescueMargin 1s, one run per engine; the bound is JobTimeout + RescueMargin + riverjobs.RescueLatency:\n\n| engine | measured | bound |\n|---|---:|---:|\n%s\n", strings.Join(kills, "\n"))
	}
	for _, n := range notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	return nil
}

// interleave runs the ops in turn (op 0, op 1, ..., op 0, ...) until d
// has passed per op, timing each call, and returns each op's calls per
// second of its own time: the ops share whatever else the machine does
// at the moment. Repeated for -rounds; the medians are returned, and the
// heap allocations per call of each op (the process's, read around each
// call: background goroutines add a little to both).
func interleave(d time.Duration, ops ...func(i int) error) (rates, allocs []float64, err error) {
	per := make([][]float64, len(ops))
	mallocs := make([]uint64, len(ops))
	total := make([]int, len(ops))
	var m0, m1 runtime.MemStats
	for r := 0; r < *rounds; r++ {
		spent := make([]time.Duration, len(ops))
		calls := make([]int, len(ops))
		for i := 0; spent[0] < d; i++ {
			for k, op := range ops {
				runtime.ReadMemStats(&m0)
				t0 := time.Now()
				if err := op(i); err != nil {
					return nil, nil, err
				}
				spent[k] += time.Since(t0)
				runtime.ReadMemStats(&m1)
				mallocs[k] += m1.Mallocs - m0.Mallocs
				calls[k]++
			}
		}
		for k := range ops {
			per[k] = append(per[k], float64(calls[k])/spent[k].Seconds())
			total[k] += calls[k]
		}
	}
	rates = make([]float64, len(ops))
	allocs = make([]float64, len(ops))
	for k := range per {
		rates[k] = median(per[k])
		allocs[k] = float64(mallocs[k]) / float64(total[k])
	}
	return rates, allocs, nil
}

// measureEngine measures one engine's enqueue and work rates.
func measureEngine(ctx context.Context, e *env) ([]row, error) {
	var rows []row
	pg := e.db.Dialect() == data.Postgres
	// Single enqueue, its own transaction.
	v, al, err := interleave(*dur,
		func(i int) error { _, err := e.client.Enqueue(ctx, noopArgs{N: i}, nil); return err },
		func(i int) error {
			var err error
			if pg {
				_, err = e.rawPgx.Insert(ctx, noopArgs{N: i}, nil)
			} else {
				_, err = e.rawSQL.Insert(ctx, noopArgs{N: i}, nil)
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{e.name + ": single enqueue", v[0], v[1], "jobs/s", allocNote(al)})

	// One enqueue inside an application transaction that inserts a row:
	// the transaction's rate with and without the enqueue.
	appInsert := "INSERT INTO app_rows (id, v) VALUES ($1, 'x')"
	v, al, err = interleave(*dur,
		func(i int) error {
			return e.db.InTx(ctx, func(ctx context.Context) error {
				if _, err := e.db.Exec(ctx, appInsert, i); err != nil {
					return err
				}
				_, err := e.client.Enqueue(ctx, noopArgs{N: i}, nil)
				return err
			})
		},
		func(i int) error {
			return e.db.WithTx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, appInsert, i); err != nil {
					return err
				}
				_, err := e.rawSQL.InsertTx(ctx, tx, noopArgs{N: i}, nil)
				return err
			})
		},
		func(i int) error {
			return e.db.WithTx(ctx, func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, appInsert, i); return err })
		})
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{e.name + ": app transaction (1 row) + 1 enqueue, database/sql", v[0], v[1], "tx/s",
		fmt.Sprintf("without the enqueue %s tx/s: the enqueue adds %.0f µs (Plinth), %.0f µs (River); %s", num(v[2]), 1e6/v[0]-1e6/v[2], 1e6/v[1]-1e6/v[2], allocNote(al))})
	if pg {
		v, al, err = interleave(*dur,
			func(i int) error {
				return e.db.InPgxTx(ctx, pgx.TxOptions{}, func(ctx context.Context) error {
					tx, _ := data.PgxTxFrom(ctx)
					if _, err := tx.Exec(ctx, appInsert, i); err != nil {
						return err
					}
					_, err := e.client.Enqueue(ctx, noopArgs{N: i}, nil)
					return err
				})
			},
			func(i int) error {
				return e.db.WithPgxTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, appInsert, i); err != nil {
						return err
					}
					_, err := e.rawPgx.InsertTx(ctx, tx, noopArgs{N: i}, nil)
					return err
				})
			},
			func(i int) error {
				return e.db.WithPgxTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error { _, err := tx.Exec(ctx, appInsert, i); return err })
			})
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{e.name + ": app transaction (1 row) + 1 enqueue, pgx", v[0], v[1], "tx/s",
			fmt.Sprintf("without the enqueue %s tx/s: the enqueue adds %.0f µs (Plinth), %.0f µs (River); %s", num(v[2]), 1e6/v[0]-1e6/v[2], 1e6/v[1]-1e6/v[2], allocNote(al))})
	}

	// Batch enqueue.
	n := *batch
	bs := make([]jobs.Batch, n)
	ps := make([]river.InsertManyParams, n)
	for i := range bs {
		bs[i] = jobs.Batch{Args: noopArgs{N: i}}
		ps[i] = river.InsertManyParams{Args: noopArgs{N: i}}
	}
	v, al, err = interleave(*dur,
		func(int) error { _, err := e.client.EnqueueMany(ctx, bs); return err },
		func(int) error {
			var err error
			if pg {
				_, err = e.rawPgx.InsertMany(ctx, ps)
			} else {
				_, err = e.rawSQL.InsertMany(ctx, ps)
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{fmt.Sprintf("%s: batch enqueue (%d a batch)", e.name, n), v[0] * float64(n), v[1] * float64(n), "jobs/s",
		allocNote([]float64{al[0] / float64(n), al[1] / float64(n)}) + " per job"})

	// No-op work rate: workN jobs waiting, then the workers start.
	p, r, err := pair(func() (float64, error) { return workRate(ctx, e, true) }, func() (float64, error) { return workRate(ctx, e, false) })
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{fmt.Sprintf("%s: no-op work, %d jobs, 100 workers", e.name, *workN), p, r, "jobs/s", "from start of the workers to the last job completed"})
	return rows, nil
}

// allocNote gives the allocations per call of Plinth and River.
func allocNote(al []float64) string {
	return fmt.Sprintf("allocations: Plinth %.0f, River %.0f", al[0], al[1])
}

// workRate inserts workN no-op jobs and times their work, by Plinth's
// Backend (plinth) or a raw River client.
func workRate(ctx context.Context, e *env, plinth bool) (float64, error) {
	sqlDB := e.db.SQL()
	if _, err := sqlDB.ExecContext(ctx, "DELETE FROM river_job"); err != nil {
		return 0, err
	}
	ps := make([]river.InsertManyParams, *workN)
	for i := range ps {
		ps[i] = river.InsertManyParams{Args: noopArgs{N: i}}
	}
	for i := 0; i < len(ps); i += 1000 {
		var err error
		if e.rawPgx != nil {
			_, err = e.rawPgx.InsertMany(ctx, ps[i:min(i+1000, len(ps))])
		} else {
			_, err = e.rawSQL.InsertMany(ctx, ps[i:min(i+1000, len(ps))])
		}
		if err != nil {
			return 0, err
		}
	}
	queues := map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 100}}
	start := time.Now()
	var stop func() error
	if plinth {
		b, err := riverjobs.New(e.db, riverjobs.Config{Logger: quiet, Lookup: func(string) (string, bool) { return "", false }})
		if err != nil {
			return 0, err
		}
		if err := b.Start(ctx, map[string]int{jobs.DefaultQueue: 100}, e.client.Kinds(), e.client.Work); err != nil {
			return 0, err
		}
		stop = func() error {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return b.Stop(c, c)
		}
	} else {
		workers := river.NewWorkers()
		river.AddWorker(workers, noopWorker{})
		cfg := &river.Config{Logger: quiet, Queues: queues, Workers: workers}
		var c interface {
			Start(context.Context) error
			Stop(context.Context) error
		}
		var err error
		if e.db.Dialect() == data.Postgres {
			c, err = river.NewClient(riverpgxv5.New(e.db.Pgx()), cfg)
		} else {
			c, err = river.NewClient(riversqlite.New(sqlDB), cfg)
		}
		if err != nil {
			return 0, err
		}
		if err := c.Start(ctx); err != nil {
			return 0, err
		}
		stop = func() error {
			c2, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return c.Stop(c2)
		}
	}
	defer stop()
	for {
		var done int
		if err := sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM river_job WHERE state = 'completed'").Scan(&done); err != nil {
			return 0, err
		}
		if done >= *workN {
			return float64(*workN) / time.Since(start).Seconds(), nil
		}
		if time.Since(start) > 5*time.Minute {
			return 0, fmt.Errorf("%d of %d jobs done after 5 minutes", done, *workN)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgbenchInsert runs pgbench's one-row insert script for -d with one
// client and returns its tps.
func pgbenchInsert(url string) (float64, error) {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		return 0, err
	}
	conn.Exec(context.Background(), "CREATE TABLE IF NOT EXISTS pgbench_rows (id BIGINT, v TEXT)")
	conn.Close(context.Background())
	f, err := os.CreateTemp("", "pgbench-*.sql")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	f.WriteString("\\set id random(1, 1000000000)\nINSERT INTO pgbench_rows (id, v) VALUES (:id, 'x');\n")
	f.Close()
	var tps []float64
	for r := 0; r < *rounds; r++ {
		cmd := exec.Command("pgbench", "-n", "-c", "1", "-T", strconv.Itoa(max(1, int(dur.Seconds()))), "-f", f.Name(), url)
		outp, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("%v: %s", err, outp)
		}
		m := regexp.MustCompile(`tps = ([0-9.]+)`).FindSubmatch(outp)
		if m == nil {
			return 0, fmt.Errorf("no tps in pgbench's output: %s", outp)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		tps = append(tps, v)
	}
	return median(tps), nil
}

// measureKill starts a worker process, enqueues a 1.5 s job, kills the
// process once the job runs, restarts it at once and times the kill to the
// job's second start.
func measureKill(ctx context.Context, e *env) (took, bound time.Duration, err error) {
	const timeout, margin = 2 * time.Second, time.Second
	bound = timeout + margin + riverjobs.RescueLatency
	if _, err := e.db.SQL().ExecContext(ctx, "DELETE FROM river_job"); err != nil {
		return 0, 0, err
	}
	c, err := jobs.NewClient(jobs.Config{Backend: e.backend})
	if err != nil {
		return 0, 0, err
	}
	jobs.Handle(c, func(context.Context, *jobs.Job[sleepArgs]) error { return nil })
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	p1, lines1, err := spawn(self, e.url)
	if err != nil {
		return 0, 0, err
	}
	if err := expect(lines1, "ready", 30*time.Second); err != nil {
		return 0, 0, err
	}
	res, err := c.Enqueue(ctx, sleepArgs{Ms: 1500}, nil)
	if err != nil {
		return 0, 0, err
	}
	if err := expect(lines1, fmt.Sprintf("started %d 1", res.ID), 30*time.Second); err != nil {
		return 0, 0, err
	}
	p1.Process.Kill()
	t0 := time.Now()
	p1.Wait()
	p2, lines2, err := spawn(self, e.url)
	if err != nil {
		return 0, 0, err
	}
	defer func() { p2.Process.Signal(syscall.SIGTERM); p2.Wait() }()
	if err := expect(lines2, fmt.Sprintf("started %d 2", res.ID), bound+10*time.Second); err != nil {
		return 0, 0, err
	}
	return time.Since(t0), bound, nil
}

func spawn(self, url string) (*exec.Cmd, chan string, error) {
	cmd := exec.Command(self, "-child", url)
	cmd.Stderr = os.Stderr
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var acc []byte
		for {
			n, err := outp.Read(buf)
			acc = append(acc, buf[:n]...)
			for {
				i := bytes.IndexByte(acc, '\n')
				if i < 0 {
					break
				}
				lines <- string(acc[:i])
				acc = acc[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	return cmd, lines, nil
}

func expect(lines chan string, want string, within time.Duration) error {
	t := time.NewTimer(within)
	defer t.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return fmt.Errorf("the worker exited before %q", want)
			}
			if l == want {
				return nil
			}
		case <-t.C:
			return fmt.Errorf("no %q within %v", want, within)
		}
	}
}

// childMain is the SIGKILL measurement's worker process.
func childMain(url string) int {
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: url})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	b, err := riverjobs.New(db, riverjobs.Config{JobTimeout: 2 * time.Second, RescueMargin: time.Second, FetchPollInterval: 100 * time.Millisecond,
		Logger: quiet, Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := jobs.NewClient(jobs.Config{Backend: b})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	jobs.Handle(c, func(ctx context.Context, j *jobs.Job[sleepArgs]) error {
		fmt.Printf("started %d %d\n", j.ID, j.Attempt)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(j.Args.Ms) * time.Millisecond):
			return nil
		}
	})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	if err := b.Start(ctx, nil, c.Kinds(), c.Work); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	<-sig
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	b.Stop(sctx, sctx)
	return 0
}

// withDatabase returns url with its database name replaced.
func withDatabase(url, name string) string {
	i := strings.Index(url, "://")
	rest := url[i+3:]
	j := strings.IndexByte(rest, '/')
	q := ""
	if k := strings.IndexByte(rest, '?'); k >= 0 {
		q = rest[k:]
		rest = rest[:k]
	}
	if j >= 0 && j < len(rest) {
		rest = rest[:j]
	}
	return url[:i+3] + rest + "/" + name + q
}

// num formats v with thousands separators, no decimals (one below 10).
func num(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
