package pgstore_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plinth-go/plinth/data/pgstore"
	"github.com/plinth-go/plinth/plinthtest"
	"github.com/plinth-go/plinth/web"
	"github.com/plinth-go/plinth/web/storetest"
)

// postgresEnv names the variable that enables the tests against PostgreSQL:
// the URL of a server where the tests may create tables (and, for Open's
// tests, databases); they drop them afterwards.
const postgresEnv = plinthtest.PostgresEnv

// needPostgres returns the server's URL or skips t.
func needPostgres(t testing.TB) string {
	t.Helper()
	u := plinthtest.PostgresURL(t)
	return u
}

// newPool returns a pool of the test server, closed after t.
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), needPostgres(t))
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// testTable returns a table name of its own, dropped after t, so that
// parallel test runs on one server do not meet.
func testTable(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	name := "plinth_test_sessions_" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(storetest.NewID()))[:16]
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS "`+name+`"`); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return name
}

// newStore returns a Store on a table of its own in pool, closed after t.
func newStore(t testing.TB, pool *pgxpool.Pool, cfg pgstore.Config) *pgstore.Store {
	t.Helper()
	if cfg.Table == "" {
		cfg.Table = testTable(t, pool)
	}
	cfg.Pool = pool
	s, err := pgstore.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	pool := newPool(t)
	storetest.Run(t, func(t *testing.T) web.Store {
		return newStore(t, pool, pgstore.Config{})
	})
}

// TestTableCreated checks the table New creates, and that New on an
// existing table keeps its rows.
func TestTableCreated(t *testing.T) {
	pool := newPool(t)
	ctx := t.Context()
	table := testTable(t, pool)
	s := newStore(t, pool, pgstore.Config{Table: table})

	rows, err := pool.Query(ctx, `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var name, typ, null string
		if err := rows.Scan(&name, &typ, &null); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, name+" "+typ+" "+null)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"id text NO", "data bytea NO", "expiry timestamp with time zone NO"}
	if fmt.Sprint(cols) != fmt.Sprint(want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	var indexdef string
	if err := pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename = $1 AND indexname = $2`, table, table+"_expiry_idx").Scan(&indexdef); err != nil {
		t.Errorf("the index on expiry: %v", err)
	} else if !strings.Contains(indexdef, "(expiry)") {
		t.Errorf("index %s, want one on (expiry)", indexdef)
	}

	id := storetest.NewID()
	if err := s.Create(ctx, id, []byte("kept"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s2 := newStore(t, pool, pgstore.Config{Table: table})
	if data, err := s2.Load(ctx, id); err != nil || string(data) != "kept" {
		t.Errorf("Load through a second New on the table = %q, %v; want \"kept\"", data, err)
	}
}

// TestConcurrentNew starts several Stores on a new table at once, as the
// instances of a service starting together do: none may fail (CREATE TABLE
// IF NOT EXISTS alone can, with a unique violation in pg_type).
func TestConcurrentNew(t *testing.T) {
	pool := newPool(t)
	for round := range 5 {
		table := testTable(t, pool)
		const n = 8
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				// A pool each, as separate instances have.
				p, err := pgxpool.New(t.Context(), needPostgres(t))
				if err != nil {
					errs <- err
					return
				}
				defer p.Close()
				s, err := pgstore.New(t.Context(), pgstore.Config{Pool: p, Table: table})
				if err != nil {
					errs <- err
					return
				}
				errs <- s.Close()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
	}
}

// insertExpired writes n rows that expired a minute ago straight into the
// table (Update deletes instead of writing expired data).
func insertExpired(t *testing.T, pool *pgxpool.Pool, table string, n int) {
	t.Helper()
	_, err := pool.Exec(t.Context(), `INSERT INTO "`+table+`" (id, data, expiry) SELECT 'expired-' || i, '\x00'::bytea, now() - interval '1 minute' FROM generate_series(1, $1) AS i`, n)
	if err != nil {
		t.Fatal(err)
	}
}

func countRows(t *testing.T, pool *pgxpool.Pool, table, where string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM "`+table+`" WHERE `+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBackgroundCleanup checks that the cleanup goroutine deletes expired
// rows and only those.
func TestBackgroundCleanup(t *testing.T) {
	pool := newPool(t)
	table := testTable(t, pool)
	s := newStore(t, pool, pgstore.Config{Table: table, CleanupInterval: 50 * time.Millisecond})
	ctx := t.Context()
	live := storetest.NewID()
	if err := s.Create(ctx, live, []byte("live"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	insertExpired(t, pool, table, 25)

	deadline := time.Now().Add(20 * time.Second)
	for countRows(t, pool, table, "expiry <= now()") > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("expired rows still there after 20 s with a 50 ms cleanup interval")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if data, err := s.Load(ctx, live); err != nil || string(data) != "live" {
		t.Errorf("Load of a live session after cleanups = %q, %v; want \"live\"", data, err)
	}
}

// TestDeleteExpired checks the cleanup's batches, with the goroutine
// disabled.
func TestDeleteExpired(t *testing.T) {
	pool := newPool(t)
	table := testTable(t, pool)
	s := newStore(t, pool, pgstore.Config{Table: table, CleanupInterval: -1})
	ctx := t.Context()
	const expired = 2*pgstore.CleanupBatch + 500
	insertExpired(t, pool, table, expired)
	live := storetest.NewID()
	if err := s.Create(ctx, live, []byte("live"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteExpired(ctx)
	if err != nil || n != expired {
		t.Fatalf("DeleteExpired = %d, %v; want %d, nil", n, err, expired)
	}
	if got := countRows(t, pool, table, "true"); got != 1 {
		t.Errorf("%d rows left, want the live one", got)
	}
	if n, err := s.DeleteExpired(ctx); err != nil || n != 0 {
		t.Errorf("second DeleteExpired = %d, %v; want 0, nil", n, err)
	}
}

// TestExistingTableWithoutCreateRight checks that New on a table made
// beforehand (by a migration) needs no right to create tables.
func TestExistingTableWithoutCreateRight(t *testing.T) {
	base := needPostgres(t)
	role := "plinth_test_role_" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(storetest.NewID()))[:12]
	dropRole(t, base, role) // registered first, so it runs after the database is dropped
	db := tempDatabase(t, base)
	admin, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	for _, q := range []string{
		`CREATE ROLE ` + role + ` LOGIN`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
		`CREATE TABLE app_sessions (id text PRIMARY KEY, data bytea NOT NULL, expiry timestamptz NOT NULL)`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON app_sessions TO ` + role,
	} {
		if _, err := admin.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, _ := url.Parse(db)
	u.User = url.User(role)
	pool, err := pgxpool.New(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pgstore.New(t.Context(), pgstore.Config{Pool: pool, Table: "app_sessions"})
	if err != nil {
		t.Fatalf("New on an existing table, without the right to create one: %v", err)
	}
	defer s.Close()
	id := storetest.NewID()
	if err := s.Create(t.Context(), id, []byte("x"), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}

	// And on a missing table, the error says what failed.
	_, err = pgstore.New(t.Context(), pgstore.Config{Pool: pool, Table: "missing_sessions"})
	if err == nil || !strings.Contains(err.Error(), `creating table "missing_sessions"`) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("New without the right to create the table: %v, want a permission error naming the table", err)
	}
}

// dropRole drops role after t; register it before the databases where the
// role has rights, so that it runs after they are dropped.
func dropRole(t *testing.T, base, role string) {
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP ROLE IF EXISTS `+role); err != nil {
			t.Errorf("dropping role %s: %v", role, err)
		}
	})
}

// tempDatabase creates a database on base's server, dropped after t, and
// returns its URL.
func tempDatabase(t *testing.T, base string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	name := "plinth_pgstore_test_" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(storetest.NewID()))[:16]
	if _, err := conn.Exec(t.Context(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
		conn.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestOpen checks a Store made from a URL: the default table is created at
// once, the Store works, and Close closes its pool.
func TestOpen(t *testing.T) {
	db := tempDatabase(t, needPostgres(t))
	ws, err := pgstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	s := ws.(*pgstore.Store)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('plinth_sessions') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		t.Fatalf("table plinth_sessions after Open: exists %v, %v", exists, err)
	}
	id := storetest.NewID()
	if err := s.Create(ctx, id, []byte("opened"), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if data, err := s.Load(ctx, id); err != nil || string(data) != "opened" {
		t.Fatalf("Load = %q, %v", data, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping after Close: nil error, want the closed pool's")
	}
}

// TestOpenUnreachable checks a Store whose PostgreSQL does not answer (a
// closed port): Open succeeds (a database briefly down at startup must not
// stop the application), Ping fails with an error naming the address, and
// Load and the writes fail instead of answering "no session".
func TestOpenUnreachable(t *testing.T) {
	ws, err := pgstore.Open(context.Background(), "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatalf("Open of an unreachable server: %v", err)
	}
	s := ws.(*pgstore.Store)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err = s.Ping(ctx)
	t.Logf("Ping of a closed port: %v after %v", err, time.Since(start).Round(time.Microsecond))
	if err == nil {
		t.Fatal("Ping of a closed port: nil error")
	}
	for _, want := range []string{"pgstore: ping", "127.0.0.1", "refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Ping error %q does not contain %q", err, want)
		}
	}
	if data, err := s.Load(ctx, storetest.NewID()); err == nil {
		t.Errorf("Load of an unreachable store = %q, nil; want an error", data)
	}
	if err := s.Create(ctx, storetest.NewID(), []byte("x"), time.Now().Add(time.Minute)); err == nil {
		t.Error("Create on an unreachable store: nil error")
	}
	if _, err := s.Update(ctx, storetest.NewID(), []byte("x"), time.Now().Add(time.Minute)); err == nil {
		t.Error("Update on an unreachable store: nil error")
	}
}

// TestOpenRefused checks that Open fails when PostgreSQL answers with an
// error a retry would not fix: a database that does not exist.
func TestOpenRefused(t *testing.T) {
	u, err := url.Parse(needPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/plinth_no_such_database"
	s, err := pgstore.Open(context.Background(), u.String())
	if err == nil {
		s.(*pgstore.Store).Close()
		t.Fatal("Open of a database that does not exist: nil error")
	}
	if !strings.Contains(err.Error(), "plinth_no_such_database") {
		t.Errorf("error %q does not name the database", err)
	}
}

func TestOpenBadURL(t *testing.T) {
	for _, u := range []string{
		"postgres://127.0.0.1:notaport/db",
		"postgres://%zz@127.0.0.1/db",
		"postgres://127.0.0.1/db?sslmode=sometimes",
		"postgres://127.0.0.1/db?pool_max_conns=many",
	} {
		s, err := pgstore.Open(context.Background(), u)
		if err == nil {
			s.(*pgstore.Store).Close()
			t.Errorf("Open(%q): nil error", u)
			continue
		}
		if !strings.HasPrefix(err.Error(), "pgstore: ") {
			t.Errorf("Open(%q): error %q, want it to start with \"pgstore: \"", u, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, table := range []string{"", "plinth_sessions", "Sessions", "_s1", strings.Repeat("a", 52)} {
		if err := (pgstore.Config{Table: table}).Validate(); err != nil {
			t.Errorf("Table %q: %v", table, err)
		}
	}
	for _, table := range []string{"1sessions", "my-sessions", "public.sessions", `a"b`, "a b", "séance", strings.Repeat("a", 53)} {
		err := (pgstore.Config{Table: table}).Validate()
		if err == nil || !strings.Contains(err.Error(), "Config.Table") {
			t.Errorf("Table %q: %v, want an error naming Config.Table", table, err)
		}
	}
}

// TestNewPanics checks that New panics on a program's mistakes, with the
// message that names them, before it touches the pool.
func TestNewPanics(t *testing.T) {
	for _, tc := range []struct {
		pool *pgxpool.Pool
		cfg  pgstore.Config
		want string
	}{
		{nil, pgstore.Config{}, "Config.Pool is required"},
		{&pgxpool.Pool{}, pgstore.Config{Table: "a;drop"}, "Config.Table"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("New(%+v): recovered %v, want a panic containing %q", tc.cfg, r, tc.want)
				}
			}()
			cfg := tc.cfg
			cfg.Pool = tc.pool
			_, _ = pgstore.New(context.Background(), cfg)
		}()
	}
}

// TestCloseKeepsPool checks that Close leaves a pool given to New open.
func TestCloseKeepsPool(t *testing.T) {
	pool := newPool(t)
	s := newStore(t, pool, pgstore.Config{CleanupInterval: time.Millisecond})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pool.Ping(t.Context()); err != nil {
		t.Errorf("the pool given to New, after the Store's Close: %v", err)
	}
}

// TestString checks the description the sessions log at start: the engine,
// where the pool connects and the table, never the password.
func TestString(t *testing.T) {
	u, err := url.Parse(needPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "s3cret-pw")
	s, err := pgstore.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.(*pgstore.Store).Close()
	got := fmt.Sprint(s)
	if strings.Contains(got, "s3cret") {
		t.Errorf("String() %q shows the password", got)
	}
	want := "postgres host=" + u.Hostname() + " port=" + u.Port() + " database=" + strings.TrimPrefix(u.Path, "/") + " user=" + u.User.Username() + " table=plinth_sessions"
	if got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
