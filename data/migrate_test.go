package data

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func migrationFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// Files apply in the order of their numbers (2 before 10), once, each with
// its record; other files are ignored.
func TestMigrateOrderAndRecord(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := openTest(t, Config{URL: e.url(t)})
			ctx := context.Background()
			fsys := migrationFS(map[string]string{
				"10_add_c.sql":   "ALTER TABLE t ADD COLUMN c INTEGER NOT NULL DEFAULT 3;",
				"2_add_b.sql":    "ALTER TABLE t ADD COLUMN b INTEGER NOT NULL DEFAULT 2;",
				"0001_t.sql":     "CREATE TABLE t (a INTEGER PRIMARY KEY);\nINSERT INTO t (a) VALUES (1);",
				"README.md":      "not a migration",
				"x_nonumber.sql": "SELECT nothing FROM nowhere",
			})
			applied, err := db.Migrate(ctx, fsys)
			if err != nil {
				t.Fatal(err)
			}
			if names := migrationNames(applied); names != "0001_t.sql 2_add_b.sql 10_add_c.sql" {
				t.Errorf("applied %s", names)
			}
			var a, b, c int
			if err := db.SQL().QueryRowContext(ctx, "SELECT a, b, c FROM t").Scan(&a, &b, &c); err != nil || a+b+c != 6 {
				t.Errorf("t: %d %d %d %v", a, b, c, err)
			}
			var n int
			if err := db.SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+MigrationsTable+" WHERE length(checksum) = 64").Scan(&n); err != nil || n != 3 {
				t.Errorf("records: %d %v", n, err)
			}
			again, err := db.Migrate(ctx, fsys)
			if err != nil || len(again) != 0 {
				t.Errorf("second run applied %s, %v", migrationNames(again), err)
			}
		})
	}
}

// A file changed after it was applied stops Migrate before it applies
// anything; a failing file leaves nothing of itself and no record.
func TestMigrateChangedAndFailing(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := openTest(t, Config{URL: e.url(t)})
			ctx := context.Background()
			if _, err := db.Migrate(ctx, migrationFS(map[string]string{"1_t.sql": "CREATE TABLE t (a INTEGER);"})); err != nil {
				t.Fatal(err)
			}
			_, err := db.Migrate(ctx, migrationFS(map[string]string{
				"1_t.sql": "CREATE TABLE t (a INTEGER, b INTEGER);", // edited
				"2_u.sql": "CREATE TABLE u (a INTEGER);",
			}))
			var ce *ChangedMigrationError
			if !errors.As(err, &ce) || ce.Name != "1_t.sql" || !strings.Contains(err.Error(), "changed after it was applied") {
				t.Fatalf("edited migration: %v", err)
			}
			if tableExists(t, db, "u") {
				t.Error("a migration was applied after the check failed")
			}
			_, err = db.Migrate(ctx, migrationFS(map[string]string{
				"1_t.sql": "CREATE TABLE t (a INTEGER);",
				"2_v.sql": "CREATE TABLE v (a INTEGER); INSERT INTO nowhere VALUES (1);",
			}))
			if err == nil || !strings.Contains(err.Error(), "2_v.sql failed") {
				t.Fatalf("failing migration: %v", err)
			}
			if tableExists(t, db, "v") {
				t.Error("a failed migration left its table")
			}
			var n int
			_ = db.SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+MigrationsTable).Scan(&n)
			if n != 1 {
				t.Errorf("%d records, want 1", n)
			}
		})
	}
}

// Instances migrating at once: each file is applied exactly once.
func TestMigrateConcurrentInstances(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			url := e.url(t)
			files := map[string]string{}
			for i := 1; i <= 6; i++ {
				files[string(rune('0'+i))+"_step.sql"] = "CREATE TABLE step" + string(rune('0'+i)) + " (a INTEGER); INSERT INTO log_applied VALUES (1);"
			}
			files["0_log.sql"] = "CREATE TABLE log_applied (a INTEGER);"
			fsys := migrationFS(files)
			const instances = 4
			var wg sync.WaitGroup
			total := make([]int, instances)
			errs := make([]error, instances)
			for i := range instances {
				db := openTest(t, Config{URL: url}) // one DB each, as separate processes would have
				wg.Go(func() {
					applied, err := db.Migrate(context.Background(), fsys)
					total[i], errs[i] = len(applied), err
				})
			}
			wg.Wait()
			sum := 0
			for i := range instances {
				if errs[i] != nil {
					t.Errorf("instance %d: %v", i, errs[i])
				}
				sum += total[i]
			}
			if sum != 7 {
				t.Errorf("instances applied %v migrations in all, want 7", total)
			}
			db := openTest(t, Config{URL: url})
			var n int
			if err := db.SQL().QueryRow("SELECT COUNT(*) FROM log_applied").Scan(&n); err != nil || n != 6 {
				t.Errorf("the steps ran %d times (%v), want 6", n, err)
			}
		})
	}
}

func TestLoadMigrationsRefusals(t *testing.T) {
	if _, err := LoadMigrations(migrationFS(map[string]string{"1_a.sql": "", "01_b.sql": ""})); err == nil || !strings.Contains(err.Error(), "same number") {
		t.Errorf("duplicate numbers: %v", err)
	}
	if _, err := LoadMigrations(migrationFS(map[string]string{"99999999999999999999_a.sql": ""})); err == nil {
		t.Error("a number past 63 bits accepted")
	}
}

func migrationNames(ms []Migration) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Name)
	}
	return strings.Join(s, " ")
}

func tableExists(t *testing.T, db *DB, name string) bool {
	t.Helper()
	_, err := db.SQL().Exec("SELECT 1 FROM " + name + " LIMIT 1")
	return err == nil
}
