package data

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// txKey is the context key of the transaction InTx and InPgxTx store.
type txKey struct{}

// txState is the transaction a context carries: one of sql and pgx is set.
type txState struct {
	db  *DB
	sql *sql.Tx
	pgx pgx.Tx
}

// InTx is WithTx whose fn receives a context carrying the transaction: code
// that takes only a context (jobs.Client.Enqueue on jobs/riverjobs, a
// repository function) joins it through TxFrom, so its writes commit or
// roll back with fn's. When the transaction is retried (a serialization
// failure, a deadlock, SQLite busy), fn runs again with a context carrying
// the new transaction.
//
// On PostgreSQL the transaction is database/sql's over the pgx pool; use
// InPgxTx for a pgx.Tx. When ctx already carries a database/sql
// transaction of db, fn runs in it (no new transaction, no retry of its
// own: the outermost InTx commits, retries or rolls back); when it carries
// a pgx transaction of db, InTx fails rather than open a second one.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return db.InTxOptions(ctx, nil, fn)
}

// InTxOptions is InTx with the transaction's isolation level and read-only
// flag (nil for the engine's defaults; ignored when ctx's transaction is
// joined).
func (db *DB) InTxOptions(ctx context.Context, opts *sql.TxOptions, fn func(ctx context.Context) error) error {
	if st, ok := ctx.Value(txKey{}).(*txState); ok && st.db == db {
		if st.sql == nil {
			return errMixedTx
		}
		return fn(ctx)
	}
	return db.WithTxOptions(ctx, opts, func(tx *sql.Tx) error {
		return fn(context.WithValue(ctx, txKey{}, &txState{db: db, sql: tx}))
	})
}

// InPgxTx is WithPgxTx whose fn receives a context carrying the pgx
// transaction (PgxTxFrom), with InTx's joining and retry rules. It is an
// error on SQLite.
func (db *DB) InPgxTx(ctx context.Context, opts pgx.TxOptions, fn func(ctx context.Context) error) error {
	if st, ok := ctx.Value(txKey{}).(*txState); ok && st.db == db {
		if st.pgx == nil {
			return errMixedTx
		}
		return fn(ctx)
	}
	return db.WithPgxTx(ctx, opts, func(tx pgx.Tx) error {
		return fn(context.WithValue(ctx, txKey{}, &txState{db: db, pgx: tx}))
	})
}

var errMixedTx = errors.New("data: the context carries a transaction of the other kind (InTx and InPgxTx do not nest in each other)")

// TxFrom returns the database/sql transaction ctx carries (InTx), if any.
func TxFrom(ctx context.Context) (*sql.Tx, bool) {
	st, ok := ctx.Value(txKey{}).(*txState)
	if !ok || st.sql == nil {
		return nil, false
	}
	return st.sql, true
}

// PgxTxFrom returns the pgx transaction ctx carries (InPgxTx), if any.
func PgxTxFrom(ctx context.Context) (pgx.Tx, bool) {
	st, ok := ctx.Value(txKey{}).(*txState)
	if !ok || st.pgx == nil {
		return nil, false
	}
	return st.pgx, true
}

// Exec runs a statement in the transaction ctx carries (InTx), else on the
// pool. When ctx carries a pgx transaction (InPgxTx), the statement runs in
// it and the result reports only RowsAffected (LastInsertId fails, as it
// does on PostgreSQL anyway).
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := ctx.Value(txKey{}).(*txState); ok && st.db == db {
		if st.pgx != nil {
			tag, err := st.pgx.Exec(ctx, query, args...)
			if err != nil {
				return nil, err
			}
			return pgxResult(tag), nil
		}
		return st.sql.ExecContext(ctx, query, args...)
	}
	return db.sql.ExecContext(ctx, query, args...)
}

// Query runs a query in the database/sql transaction ctx carries (InTx),
// else on the pool. It fails when ctx carries a pgx transaction: use
// PgxTxFrom and pgx's Query there.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q, err := db.querier(ctx)
	if err != nil {
		return nil, err
	}
	return q.QueryContext(ctx, query, args...)
}

// QueryRow runs a query that returns at most one row in the transaction ctx
// carries, else on the pool, like Exec: in a database/sql transaction
// (InTx) or a pgx one (InPgxTx) alike. Its error, sql.ErrNoRows when the
// query returned no row (pgx's ErrNoRows in a pgx transaction, which
// errors.Is sql.ErrNoRows), is deferred to the Row's Scan.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) *Row {
	if st, ok := ctx.Value(txKey{}).(*txState); ok && st.db == db {
		if st.pgx != nil {
			return &Row{pgx: st.pgx.QueryRow(ctx, query, args...)}
		}
		return &Row{sql: st.sql.QueryRowContext(ctx, query, args...)}
	}
	return &Row{sql: db.sql.QueryRowContext(ctx, query, args...)}
}

// Row is the row QueryRow selected: database/sql's, or pgx's in a pgx
// transaction.
type Row struct {
	sql *sql.Row
	pgx pgx.Row
}

// Scan copies the row's columns into dest (as database/sql's Row.Scan
// does, or pgx's in a pgx transaction) and returns the query's error, if
// any: sql.ErrNoRows when there was no row (errors.Is matches it in both
// cases).
func (r *Row) Scan(dest ...any) error {
	if r.pgx != nil {
		return r.pgx.Scan(dest...)
	}
	return r.sql.Scan(dest...)
}

// querier is what Query runs on.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (db *DB) querier(ctx context.Context) (querier, error) {
	if st, ok := ctx.Value(txKey{}).(*txState); ok && st.db == db {
		if st.pgx != nil {
			return nil, errPgxQuery
		}
		return st.sql, nil
	}
	return db.sql, nil
}

var errPgxQuery = errors.New("data: the context carries a pgx transaction (InPgxTx): query through data.PgxTxFrom(ctx)")

// pgxResult is a pgx command tag as a sql.Result.
type pgxResult pgconn.CommandTag

func (r pgxResult) LastInsertId() (int64, error) {
	return 0, errors.New("data: LastInsertId is not supported by PostgreSQL: use RETURNING")
}

func (r pgxResult) RowsAffected() (int64, error) { return pgconn.CommandTag(r).RowsAffected(), nil }
