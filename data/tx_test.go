package data

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func counterDB(t *testing.T, url string) *DB {
	t.Helper()
	db := openTest(t, Config{URL: url, TxAttempts: 3})
	if _, err := db.SQL().Exec("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0);"); err != nil {
		t.Fatal(err)
	}
	return db
}

func count(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow("SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func bump(tx *sql.Tx) error {
	_, err := tx.Exec("UPDATE counter SET n = n + 1 WHERE id = 1")
	return err
}

// Commit on nil; roll back on an error and on a panic (which goes on);
// a serialization failure or deadlock is retried up to TxAttempts, other
// errors are not.
func TestWithTx(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := counterDB(t, e.url(t))
			ctx := context.Background()
			if err := db.WithTx(ctx, bump); err != nil || count(t, db) != 1 {
				t.Fatalf("commit: %v, n %d", err, count(t, db))
			}
			boom := errors.New("boom")
			if err := db.WithTx(ctx, func(tx *sql.Tx) error { _ = bump(tx); return boom }); err != boom || count(t, db) != 1 {
				t.Errorf("rollback on error: %v, n %d", err, count(t, db))
			}
			func() {
				defer func() {
					if r := recover(); r != "panic in tx" {
						t.Errorf("the panic did not go on: %v", r)
					}
				}()
				_ = db.WithTx(ctx, func(tx *sql.Tx) error { _ = bump(tx); panic("panic in tx") })
			}()
			if count(t, db) != 1 {
				t.Errorf("panic: not rolled back, n %d", count(t, db))
			}
			// Two serialization failures, then success: three tries, one commit.
			tries := 0
			err := db.WithTx(ctx, func(tx *sql.Tx) error {
				tries++
				if err := bump(tx); err != nil {
					return err
				}
				if tries < 3 {
					return &pgconn.PgError{Code: "40001"}
				}
				return nil
			})
			if err != nil || tries != 3 || count(t, db) != 2 {
				t.Errorf("retry: %v after %d tries, n %d", err, tries, count(t, db))
			}
			// Always a deadlock: TxAttempts (3) tries, then the error, wrapped.
			tries = 0
			err = db.WithTx(ctx, func(tx *sql.Tx) error { tries++; return &pgconn.PgError{Code: "40P01"} })
			if !Retryable(err) || tries != 3 || !strings.Contains(err.Error(), "failed 3 times") {
				t.Errorf("exhausted: %v after %d tries", err, tries)
			}
			tries = 0
			_ = db.WithTx(ctx, func(tx *sql.Tx) error { tries++; return &pgconn.PgError{Code: "23505"} })
			if tries != 1 {
				t.Errorf("a unique violation was retried: %d tries", tries)
			}
			// A cancelled context stops the retries.
			cctx, cancel := context.WithCancel(ctx)
			tries = 0
			err = db.WithTx(cctx, func(tx *sql.Tx) error { tries++; cancel(); return &pgconn.PgError{Code: "40001"} })
			if !errors.Is(err, context.Canceled) || tries != 1 {
				t.Errorf("cancelled: %v after %d tries", err, tries)
			}
		})
	}
}

// Two SERIALIZABLE transactions that read and write the same row at once:
// PostgreSQL fails one with 40001, WithTx runs it again, and no increment
// is lost.
func TestWithTxSerializationRetry(t *testing.T) {
	base := needPostgres(t)
	db := counterDB(t, tempPostgres(t, base))
	ctx := context.Background()
	var (
		mu    sync.Mutex
		tries int
		read  sync.WaitGroup // both have read before either writes
		wg    sync.WaitGroup
	)
	read.Add(2)
	first := [2]bool{true, true}
	for i := range 2 {
		wg.Go(func() {
			err := db.WithTxOptions(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(tx *sql.Tx) error {
				mu.Lock()
				tries++
				mu.Unlock()
				var n int
				if err := tx.QueryRow("SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
					return err
				}
				if first[i] {
					first[i] = false
					read.Done()
					read.Wait()
				}
				_, err := tx.Exec("UPDATE counter SET n = $1 WHERE id = 1", n+1)
				return err
			})
			if err != nil {
				t.Errorf("transaction %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n := count(t, db); n != 2 || tries < 3 {
		t.Errorf("n = %d after %d tries, want 2 after 3 or more (one retried)", n, tries)
	}
	// The pgx flavour retries the same way.
	tries = 0
	err := db.WithPgxTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tries++
		if tries == 1 {
			return &pgconn.PgError{Code: "40001"}
		}
		_, err := tx.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		return err
	})
	if err != nil || tries != 2 || count(t, db) != 3 {
		t.Errorf("WithPgxTx: %v after %d tries, n %d", err, tries, count(t, db))
	}
}

func TestWithPgxTxNeedsPostgres(t *testing.T) {
	db := openTest(t, Config{URL: "sqlite::memory:"})
	if err := db.WithPgxTx(context.Background(), pgx.TxOptions{}, func(pgx.Tx) error { return nil }); err == nil {
		t.Error("a pgx transaction on SQLite")
	}
}
