package data

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plinth-go/plinth/plinthtest"
)

// postgresEnv names the variable that enables the PostgreSQL tests: a URL
// of a server where the tests may create and drop databases.
const postgresEnv = plinthtest.PostgresEnv

// noEnv is an environment with nothing set, so that tests do not depend on
// the caller's.
func noEnv(string) (string, bool) { return "", false }

// engine is a database the tests run on: SQLite always, PostgreSQL when
// PLINTH_TEST_POSTGRES is set.
type engine struct {
	name string
	url  func(t *testing.T) string // a new, empty database
}

func engines(t *testing.T) []engine {
	es := []engine{{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "test.db") }}}
	if base := os.Getenv(postgresEnv); base != "" {
		es = append(es, engine{"postgres", func(t *testing.T) string { return tempPostgres(t, base) }})
	} else {
		plinthtest.Without(t, "postgres", "PostgreSQL not tested: set "+postgresEnv+" to a server URL (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)")
	}
	return es
}

// needPostgres returns the server URL or skips t (fails it when
// PLINTH_TEST_REQUIRE names postgres).
func needPostgres(t *testing.T) string {
	t.Helper()
	return plinthtest.PostgresURL(t)
}

var dbSeq atomic.Int64

// tempPostgres creates a database on base's server, dropped after t.
func tempPostgres(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	name := fmt.Sprintf("plinth_data_test_%d_%d", time.Now().UnixNano(), dbSeq.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(ctx)
	})
	return withDatabase(t, base, name)
}

// withDatabase returns base with its database name replaced.
func withDatabase(t *testing.T, base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// openTest opens cfg (environment ignored) and closes it after t.
func openTest(t *testing.T, cfg Config) *DB {
	t.Helper()
	db, err := open(context.Background(), cfg, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
