package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// The backoff between WithTx's attempts: doubling from txBackoffBase, at
// most txBackoffMax, each wait drawn at random between half and all of it
// so that the transactions that collided do not collide again.
const (
	txBackoffBase = 5 * time.Millisecond
	txBackoffMax  = 250 * time.Millisecond
)

// WithTx runs fn in a transaction (database/sql, either engine): it commits
// when fn returns nil and rolls back when fn returns an error or panics
// (the panic goes on). When the transaction fails with a serialization
// failure or a deadlock (PostgreSQL 40001, 40P01) or SQLite's busy error,
// at its statements or its commit, it runs fn again in a new transaction,
// up to Config.TxAttempts times in all (default 5) with a short random
// backoff, so fn must do nothing outside the transaction that cannot be
// repeated. ctx bounds the whole, waits included.
func (db *DB) WithTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.WithTxOptions(ctx, nil, fn)
}

// WithTxOptions is WithTx with the transaction's isolation level and
// read-only flag (nil for the engine's defaults).
func (db *DB) WithTxOptions(ctx context.Context, opts *sql.TxOptions, fn func(tx *sql.Tx) error) error {
	return retryTx(ctx, db.cfg.TxAttempts, func() error {
		tx, err := db.sql.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		return finish(ctx, fn, tx, tx.Commit, tx.Rollback)
	})
}

// WithPgxTx is WithTx on PostgreSQL's pgx pool, with pgx's transaction
// options (the isolation level, say). It is an error on SQLite.
func (db *DB) WithPgxTx(ctx context.Context, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	if db.pool == nil {
		return errNotPostgres
	}
	return retryTx(ctx, db.cfg.TxAttempts, func() error {
		tx, err := db.pool.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		return finish(ctx, fn, tx,
			func() error { return tx.Commit(ctx) },
			func() error { return tx.Rollback(context.WithoutCancel(ctx)) })
	})
}

// finish runs fn on tx and commits, or rolls back on an error or a panic.
func finish[T any](_ context.Context, fn func(T) error, tx T, commit, rollback func() error) (err error) {
	committed := false
	defer func() {
		if !committed {
			_ = rollback() // the error that made us roll back is the one to report
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committed = true // a failed commit has ended the transaction too
	return commit()
}

// retryTx calls once until it succeeds, fails with an error that a retry
// cannot cure, or has been tried attempts times.
func retryTx(ctx context.Context, attempts int, once func() error) error {
	if attempts < 1 {
		attempts = 1
	}
	wait := txBackoffBase
	for i := 1; ; i++ {
		err := once()
		if err == nil || !Retryable(err) {
			return err
		}
		if i >= attempts {
			return fmt.Errorf("data: transaction failed %d times: %w", i, err)
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, txBackoffMax)
	}
}

// SQLite's result codes that Retryable and Problem read (primary codes in
// the low byte, extended codes above it).
const (
	sqliteBusy             = 5
	sqliteLocked           = 6
	sqliteConstraintFK     = 787  // SQLITE_CONSTRAINT_FOREIGNKEY
	sqliteConstraintPK     = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
	sqliteConstraintUnique = 2067 // SQLITE_CONSTRAINT_UNIQUE
)

// Retryable reports whether err is a transaction failure that running the
// transaction again can cure: a serialization failure (40001) or a deadlock
// (40P01) on PostgreSQL, a busy or locked database on SQLite.
func Retryable(err error) bool {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		c := se.Code() & 0xff
		return c == sqliteBusy || c == sqliteLocked
	}
	return false
}
