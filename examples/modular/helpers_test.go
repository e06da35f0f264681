package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/module"
	"github.com/plinth-go/plinth/plinthtest"
)

// testDB opens a migrated SQLite database in t's temp dir.
func testDB(t *testing.T) *data.DB {
	t.Helper()
	return openMigrated(t, "sqlite:"+filepath.Join(t.TempDir(), "shop.db"))
}

// openMigrated opens the database at dbURL, migrates it and closes it
// after t.
func openMigrated(t *testing.T, dbURL string) *data.DB {
	t.Helper()
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// tempPostgres creates a database on the server of base, dropped after t,
// and returns its URL; it skips t when PLINTH_TEST_POSTGRES is unset.
func tempPostgres(t *testing.T) string {
	t.Helper()
	base := plinthtest.PostgresURL(t)
	ctx := context.Background()
	admin, err := data.Open(ctx, data.Config{URL: base})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("modular_test_%d", time.Now().UnixNano())
	if _, err := admin.SQL().ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.SQL().ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// testApp is the shop's App on db, with the replacements, logging to log
// (nil: nowhere).
func testApp(t *testing.T, db *data.DB, log *slog.Logger, replace ...module.Replacement) *plinth.App {
	t.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	app, err := newApp(db, log, replace...)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// call serves one request on h; hdr alternates header names and values.
func call(t *testing.T, h http.Handler, method, path, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.String()
}

// logBuffer is a slog destination that tests read while the App writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
