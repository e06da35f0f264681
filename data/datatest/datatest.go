// Package datatest gives each test a database of its own, migrated:
// SQLite in the test's temporary directory, or PostgreSQL cloned from a
// migrated template (CREATE DATABASE ... TEMPLATE, a few milliseconds
// instead of running the migrations per test), dropped at the test's
// cleanup. Parallel tests each get their own database, so they never see
// each other's rows. Tx gives a transaction rolled back at cleanup, for
// apps that prefer one database and a transaction per test.
//
//	func TestOrders(t *testing.T) {
//		t.Parallel()
//		db := datatest.SQLite(t, datatest.Config{Migrations: migrations})
//		app := NewApp(db)
//		...
//	}
package datatest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/plinthtest"
)

// Config configures the databases of SQLite and Postgres; its zero value is
// an empty database with no migrations.
type Config struct {
	// Migrations are applied with data.DB.Migrate (the files NNN_name.sql
	// at the root of the FS: use fs.Sub for a directory). Default nil:
	// none.
	Migrations fs.FS
	// Data is the rest of the data.Config the database is opened with
	// (pool sizes, timeouts); its URL and Engine are datatest's.
	Data data.Config
}

// SQLite opens a fresh SQLite database in t.TempDir(), applies the
// migrations and closes it at t's cleanup. A failure fails the test.
func SQLite(t testing.TB, cfg Config) *data.DB {
	t.Helper()
	return open(t, cfg, "sqlite:"+filepath.Join(t.TempDir(), "test.db"), data.SQLite)
}

// Postgres returns a database of its own for t on the server named by
// plinthtest.PostgresEnv (plinthtest.PostgresURL: skipping t, naming the
// variable, when it is unset; failing it when plinthtest.RequireEnv names
// postgres),
// cloned from a template database that holds the migrations: the template
// is made once per set of migrations (its name carries their hash, it is
// kept for the next runs and made under an advisory lock, so parallel test
// processes share it) and each test's database is created from it and
// dropped (WITH (FORCE)) at t's cleanup.
func Postgres(t testing.TB, cfg Config) *data.DB {
	t.Helper()
	base := plinthtest.PostgresURL(t)
	ctx := context.Background()
	tpl, err := template(ctx, base, cfg)
	if err != nil {
		t.Fatalf("datatest: %s: the template database: %v", plinthtest.PostgresEnv, err)
		return nil
	}
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("datatest: %s: %v", plinthtest.PostgresEnv, err)
		return nil
	}
	name := fmt.Sprintf("plinth_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	// CREATE DATABASE ... TEMPLATE fails while another session uses the
	// template; the template is only used here, but retry briefly anyway.
	for i := 0; ; i++ {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tpl)
		if err == nil || i == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		conn.Close(ctx)
		t.Fatalf("datatest: CREATE DATABASE %s TEMPLATE %s: %v", name, tpl, err)
		return nil
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(context.Background())
	})
	u, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("datatest: %s: %v", plinthtest.PostgresEnv, err)
		return nil
	}
	cfg.Migrations = nil // the template has them
	return open(t, cfg, u, data.Postgres)
}

var seq atomic.Int64

// open opens dbURL, checks that it is the database asked for, applies the
// migrations and closes it at cleanup.
func open(t testing.TB, cfg Config, dbURL string, engine data.Dialect) *data.DB {
	t.Helper()
	dc := cfg.Data
	dc.URL, dc.Engine = dbURL, engine
	ctx := context.Background()
	db, err := data.Open(ctx, dc)
	if err != nil {
		t.Fatalf("datatest: %v", err)
		return nil
	}
	t.Cleanup(func() { db.Close() })
	if got := db.Config().URL; got != dbURL {
		t.Fatalf("datatest: the database opened is %s, not the test's: PLINTH_DATABASE_URL overrides it; unset it for tests", data.Redact(got))
		return nil
	}
	if cfg.Migrations != nil {
		if _, err := db.Migrate(ctx, cfg.Migrations); err != nil {
			t.Fatalf("datatest: migrations: %v", err)
			return nil
		}
	}
	return db
}

// Tx begins a transaction on db that is rolled back at t's cleanup, for
// tests that share one database: what the test writes through it is never
// seen by another test (nor kept). The code under test must take the
// *sql.Tx (or an interface both *sql.DB and *sql.Tx satisfy).
func Tx(t testing.TB, db *data.DB) *sql.Tx {
	t.Helper()
	if db == nil {
		t.Fatalf("datatest.Tx: the DB is nil")
		return nil
	}
	tx, err := db.SQL().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatalf("datatest.Tx: %v", err)
		return nil
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	return tx
}

// templates maps a migrations hash to its template database, per process.
var (
	tplMu     sync.Mutex
	templates = map[string]string{}
)

// template returns the name of the migrated template database of cfg's
// migrations on base's server, making it when needed.
func template(ctx context.Context, base string, cfg Config) (string, error) {
	hash, err := migrationsHash(cfg.Migrations)
	if err != nil {
		return "", err
	}
	name := "plinth_tpl_" + hash
	tplMu.Lock()
	defer tplMu.Unlock()
	if templates[name] != "" {
		return name, nil
	}
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	// one process at a time makes a template (other test binaries run in
	// parallel); the lock ends with the connection
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7402913)"); err != nil {
		return "", err
	}
	var ready bool
	err = conn.QueryRow(ctx, "SELECT coalesce(shobj_description(oid, 'pg_database'), '') = 'plinth ready' FROM pg_database WHERE datname = $1", name).Scan(&ready)
	switch {
	case err == pgx.ErrNoRows:
	case err != nil:
		return "", err
	}
	if !ready {
		// absent, or left half-made by a run that stopped
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return "", err
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			return "", err
		}
		u, err := withDatabase(base, name)
		if err != nil {
			return "", err
		}
		db, err := data.Open(ctx, data.Config{URL: u, Engine: data.Postgres, MaxConns: 1})
		if err != nil {
			return "", err
		}
		if cfg.Migrations != nil {
			_, err = db.Migrate(ctx, cfg.Migrations)
		}
		db.Close()
		if err != nil {
			return "", fmt.Errorf("migrations: %w", err)
		}
		if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+name+" IS 'plinth ready'"); err != nil {
			return "", err
		}
	}
	templates[name] = name
	return name, nil
}

// migrationsHash is a short hash of the migration files' names and
// contents ("empty" without migrations).
func migrationsHash(fsys fs.FS) (string, error) {
	if fsys == nil {
		return "empty", nil
	}
	migs, err := data.LoadMigrations(fsys)
	if err != nil {
		return "", err
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].Version < migs[j].Version })
	h := sha256.New()
	for _, m := range migs {
		fmt.Fprintf(h, "%d %s %d\n%s\n", m.Version, m.Name, len(m.SQL), m.SQL)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// withDatabase returns base with its database name replaced.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}
