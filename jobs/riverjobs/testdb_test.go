package riverjobs

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

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/plinthtest"
)

// postgresEnv names the variable that enables the PostgreSQL tests (the
// data layer's convention): a URL of a server where the tests may create
// and drop databases, each named plinth_river_test_*.
const postgresEnv = plinthtest.PostgresEnv

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

var dbSeq atomic.Int64

// tempPostgres creates a database on base's server, dropped after t.
func tempPostgres(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	name := fmt.Sprintf("plinth_river_test_%d_%d", time.Now().UnixNano(), dbSeq.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// noEnv is an environment with nothing set.
func noEnv(string) (string, bool) { return "", false }

// openDB opens url with River's tables migrated, closed after t.
func openDB(t testing.TB, url string) *data.DB {
	t.Helper()
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := Migrate(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	return db
}
