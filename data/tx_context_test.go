package data

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// InTx puts the transaction in the context: Exec through the context joins
// it (rolled back with fn's error, committed with fn's nil), a retry hands
// fn a context with the new transaction, nested InTx joins the outer one,
// and outside InTx the context carries none.
func TestInTx(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := counterDB(t, e.url(t))
			ctx := context.Background()
			if _, ok := TxFrom(ctx); ok {
				t.Fatal("a bare context carries a transaction")
			}
			bumpCtx := func(ctx context.Context) error {
				_, err := db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
				return err
			}
			if err := db.InTx(ctx, bumpCtx); err != nil || count(t, db) != 1 {
				t.Fatalf("commit: %v, n %d", err, count(t, db))
			}
			boom := errors.New("boom")
			err := db.InTx(ctx, func(ctx context.Context) error {
				if _, ok := TxFrom(ctx); !ok {
					t.Error("fn's context carries no transaction")
				}
				if _, ok := PgxTxFrom(ctx); ok {
					t.Error("InTx's context carries a pgx transaction")
				}
				if err := bumpCtx(ctx); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 1 {
				t.Errorf("rollback: %v, n %d (the Exec did not join the transaction)", err, count(t, db))
			}
			// Retried: each try sees its own, new transaction.
			var seen []*sql.Tx
			err = db.InTx(ctx, func(ctx context.Context) error {
				tx, _ := TxFrom(ctx)
				seen = append(seen, tx)
				if err := bumpCtx(ctx); err != nil {
					return err
				}
				if len(seen) < 2 {
					return &pgconn.PgError{Code: "40001"}
				}
				return nil
			})
			if err != nil || len(seen) != 2 || seen[0] == seen[1] || seen[0] == nil || count(t, db) != 2 {
				t.Errorf("retry: %v, %d tries, n %d", err, len(seen), count(t, db))
			}
			// Nested: the inner InTx runs in the outer transaction, and the
			// outer rollback undoes it.
			err = db.InTx(ctx, func(outer context.Context) error {
				otx, _ := TxFrom(outer)
				if err := db.InTx(outer, func(inner context.Context) error {
					if itx, _ := TxFrom(inner); itx != otx {
						t.Error("nested InTx opened a second transaction")
					}
					return bumpCtx(inner)
				}); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 2 {
				t.Errorf("nested: %v, n %d", err, count(t, db))
			}
			// Query reads inside the transaction.
			err = db.InTx(ctx, func(ctx context.Context) error {
				if err := bumpCtx(ctx); err != nil {
					return err
				}
				rows, err := db.Query(ctx, "SELECT n FROM counter WHERE id = 1")
				if err != nil {
					return err
				}
				defer rows.Close()
				var n int
				for rows.Next() {
					if err := rows.Scan(&n); err != nil {
						return err
					}
				}
				if n != 3 {
					t.Errorf("Query in the transaction read %d, want 3", n)
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 2 {
				t.Errorf("query: %v, n %d", err, count(t, db))
			}
			// QueryRow reads inside the transaction too, and outside it
			// on the pool; no row is sql.ErrNoRows.
			err = db.InTx(ctx, func(ctx context.Context) error {
				if err := bumpCtx(ctx); err != nil {
					return err
				}
				var n int
				if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", 1).Scan(&n); err != nil {
					return err
				}
				if n != 3 {
					t.Errorf("QueryRow in the transaction read %d, want 3", n)
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 2 {
				t.Errorf("query row: %v, n %d", err, count(t, db))
			}
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", 1).Scan(&n); err != nil || n != 2 {
				t.Errorf("QueryRow outside a transaction: %v, n %d", err, n)
			}
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", 42).Scan(&n); !errors.Is(err, sql.ErrNoRows) {
				t.Errorf("QueryRow of no row: %v, want sql.ErrNoRows", err)
			}
		})
	}
}

// Another DB's transaction in the context is not joined.
func TestInTxOtherDB(t *testing.T) {
	a := counterDB(t, "sqlite::memory:")
	b := counterDB(t, "sqlite:"+t.TempDir()+"/b.db")
	err := a.InTx(context.Background(), func(ctx context.Context) error {
		if _, err := b.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		return errors.New("roll back a")
	})
	if err == nil || count(t, b) != 1 {
		t.Errorf("b's statement joined a's transaction: %v, n %d", err, count(t, b))
	}
}

func TestInPgxTxNeedsPostgres(t *testing.T) {
	db := openTest(t, Config{URL: "sqlite::memory:"})
	if err := db.InPgxTx(context.Background(), pgx.TxOptions{}, func(context.Context) error { return nil }); err == nil {
		t.Error("a pgx transaction on SQLite")
	}
}

// InPgxTx on PostgreSQL: PgxTxFrom gives the transaction, Exec joins it,
// Query refuses (database/sql cannot read through pgx's), QueryRow joins
// it, a retry hands
// over the new transaction, and InTx inside InPgxTx fails.
func TestInPgxTx(t *testing.T) {
	base := needPostgres(t)
	db := counterDB(t, tempPostgres(t, base))
	ctx := context.Background()
	boom := errors.New("boom")
	var seen []pgx.Tx
	err := db.InPgxTx(ctx, pgx.TxOptions{}, func(ctx context.Context) error {
		tx, ok := PgxTxFrom(ctx)
		if !ok {
			t.Fatal("no pgx transaction in the context")
		}
		if _, ok := TxFrom(ctx); ok {
			t.Error("InPgxTx's context carries a database/sql transaction")
		}
		seen = append(seen, tx)
		res, err := db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Errorf("RowsAffected %d", n)
		}
		if _, err := db.Query(ctx, "SELECT 1"); err == nil {
			t.Error("Query ran outside the pgx transaction")
		}
		var n int
		if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", 1).Scan(&n); err != nil || n != 1 {
			t.Errorf("QueryRow in the pgx transaction: %v, n %d, want 1", err, n)
		}
		if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", 42).Scan(&n); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("QueryRow of no row in the pgx transaction: %v, want sql.ErrNoRows", err)
		}
		if err := db.InTx(ctx, func(context.Context) error { return nil }); err == nil {
			t.Error("InTx inside InPgxTx opened a second transaction")
		}
		if len(seen) == 1 {
			return &pgconn.PgError{Code: "40P01"}
		}
		return boom
	})
	if !errors.Is(err, boom) || len(seen) != 2 || seen[0] == seen[1] || count(t, db) != 0 {
		t.Errorf("rollback: %v, %d tries, n %d", err, len(seen), count(t, db))
	}
	if err := db.InPgxTx(ctx, pgx.TxOptions{}, func(ctx context.Context) error {
		_, err := db.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		return err
	}); err != nil || count(t, db) != 1 {
		t.Errorf("commit: %v, n %d", err, count(t, db))
	}
}
