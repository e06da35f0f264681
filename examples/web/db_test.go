package main

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/plinth-go/plinth/data"
)

// testDB opens a migrated SQLite database of the test's own, closed when
// it ends.
func testDB(t *testing.T) *data.DB {
	t.Helper()
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: "sqlite:" + filepath.Join(t.TempDir(), "web.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// startWorkers serves a second App on s's database, as a worker process
// would: its OnStart hooks start the job queue's workers, which the test
// client (plinthtest, in process) never runs. The returned function stops
// it and waits for its drain.
func startWorkers(t *testing.T, s *site) func() {
	t.Helper()
	app, _, err := newSite(context.Background(), s.db)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the worker App: %v", err)
		}
	}
}
