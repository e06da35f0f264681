package riverjobs

import (
	"context"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/plinth-go/plinth/data"
)

// TestMigrate: one step brings River's tables and the application's
// migrations; it is idempotent, and two instances migrating at once both
// succeed.
func TestMigrate(t *testing.T) {
	app := fstest.MapFS{"0001_notes.sql": {Data: []byte("CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL)")}}
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			url := e.url(t)
			db, err := data.Open(ctx, data.Config{URL: url})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// Two at once (PostgreSQL: the advisory lock; SQLite: the
			// write lock).
			db2, err := data.Open(ctx, data.Config{URL: url})
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			var wg sync.WaitGroup
			applied := make([]int, 2)
			for i, d := range []*data.DB{db, db2} {
				wg.Go(func() {
					ms, err := Migrate(ctx, d, app)
					if err != nil {
						t.Errorf("instance %d: %v", i, err)
					}
					applied[i] = len(ms)
				})
			}
			wg.Wait()
			if applied[0]+applied[1] != 1 {
				t.Fatalf("the application's migration applied %v times, want once in all", applied)
			}
			var versions int
			if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM river_migration").Scan(&versions); err != nil || versions == 0 {
				t.Fatalf("river_migration: %d rows, %v", versions, err)
			}
			// Again: nothing to do.
			ms, err := Migrate(ctx, db, app)
			if err != nil || len(ms) != 0 {
				t.Fatalf("second Migrate: %v, %v; want nothing applied", ms, err)
			}
			var again int
			db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM river_migration").Scan(&again)
			if again != versions {
				t.Fatalf("river_migration went from %d to %d rows", versions, again)
			}
			// The tables work: a job goes in, the application's table is there.
			b, err := New(db, Config{Lookup: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Insert(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SQL().ExecContext(ctx, "INSERT INTO notes (id, body) VALUES (1, 'x')"); err != nil {
				t.Fatal(err)
			}
			// River's only (nil fsys).
			if ms, err := Migrate(ctx, db, nil); err != nil || ms != nil {
				t.Fatal(ms, err)
			}
		})
	}
}
