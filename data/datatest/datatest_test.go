package datatest_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/data/datatest"
	"github.com/plinth-go/plinth/plinthtest"
)

func migrations(t *testing.T) fs.FS {
	sub, err := fs.Sub(os.DirFS("testdata"), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// isolated runs parallel tests that each write rows and must see only
// their own.
func isolated(t *testing.T, open func(t *testing.T) *data.DB) {
	for i := range 4 {
		t.Run(fmt.Sprint("test", i), func(t *testing.T) {
			t.Parallel()
			db := open(t)
			ctx := context.Background()
			for j := range 3 {
				if _, err := db.SQL().ExecContext(ctx, fmt.Sprintf("INSERT INTO notes (id, owner) VALUES (%d, 'test%d')", j+1, i)); err != nil {
					t.Fatal(err)
				}
			}
			var n int
			var others int
			if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM notes").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if err := db.SQL().QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM notes WHERE owner <> 'test%d'", i)).Scan(&others); err != nil {
				t.Fatal(err)
			}
			if n != 3 || others != 0 {
				t.Errorf("%d rows, %d of other tests: want 3 and 0", n, others)
			}
		})
	}
}

func TestSQLiteIsolated(t *testing.T) {
	isolated(t, func(t *testing.T) *data.DB { return datatest.SQLite(t, datatest.Config{Migrations: migrations(t)}) })
}

func TestPostgresIsolated(t *testing.T) {
	isolated(t, func(t *testing.T) *data.DB { return datatest.Postgres(t, datatest.Config{Migrations: migrations(t)}) })
}

func TestTxRollsBack(t *testing.T) {
	db := datatest.SQLite(t, datatest.Config{Migrations: migrations(t)})
	t.Run("writes", func(t *testing.T) {
		tx := datatest.Tx(t, db)
		if _, err := tx.Exec("INSERT INTO notes (id, owner) VALUES (1, 'a')"); err != nil {
			t.Fatal(err)
		}
	})
	var n int
	if err := db.SQL().QueryRow("SELECT count(*) FROM notes").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows after the test's transaction, want 0", n)
	}
}

func TestMigrationsFail(t *testing.T) {
	bad := fstest.MapFS{"0001_bad.sql": {Data: []byte("CREATE TABLE (")}}
	ft := &fatalTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }()
		datatest.SQLite(ft, datatest.Config{Migrations: bad})
	}()
	<-done
	for _, f := range ft.cleanups {
		f()
	}
	if len(ft.msgs) == 0 || !contains(ft.msgs[0], "datatest: migrations:") {
		t.Errorf("failure %q, want one naming the migrations", ft.msgs)
	}
}

// TestPostgresRequired: without PLINTH_TEST_POSTGRES, Postgres skips the
// test, unless PLINTH_TEST_REQUIRE names postgres: then it fails it (a
// child process runs TestPostgresIsolated both ways).
func TestPostgresRequired(t *testing.T) {
	if os.Getenv("PLINTH_TEST_DATATEST_CHILD") != "" {
		t.Skip("child")
	}
	run := func(require string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPostgresIsolated$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PLINTH_TEST_DATATEST_CHILD=1", plinthtest.PostgresEnv+"=", plinthtest.RequireEnv+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(""); err != nil || !strings.Contains(out, "--- SKIP") {
		t.Errorf("not required: %v, want a skip:\n%s", err, out)
	}
	if out, err := run("postgres,redis"); err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, plinthtest.PostgresEnv) {
		t.Errorf("required: %v, want a failure naming %s:\n%s", err, plinthtest.PostgresEnv, out)
	}
}
