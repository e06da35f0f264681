package riverjobs

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/plinth-go/plinth/data"
)

// migrateLockKey is the PostgreSQL advisory lock Migrate holds while
// River's migrations run, so that instances starting together apply each
// once ("plinthrv").
const migrateLockKey = 0x706c696e74687276

// Migrate is the application's migration step with River's tables: it
// brings River's schema (river_job, river_leader, river_queue, ...) up to
// the version this module's River needs, with River's own migrator and
// its river_migration table, then applies the application's numbered SQL
// files of fsys with db.Migrate (nil fsys: River's only). Both are
// idempotent: a migrated database is left as it is. It returns the
// application's migrations it applied.
//
// Run it where the application migrates (at start, or from its `migrate`
// command), instead of db.Migrate.
func Migrate(ctx context.Context, db *data.DB, fsys fs.FS) ([]data.Migration, error) {
	if err := MigrateRiver(ctx, db); err != nil {
		return nil, err
	}
	if fsys == nil {
		return nil, nil
	}
	return db.Migrate(ctx, fsys)
}

// MigrateRiver brings River's tables up to date (see Migrate). On
// PostgreSQL it holds an advisory lock meanwhile, so that instances
// starting together migrate one after the other; on SQLite they run in one
// transaction, which takes the write lock at its start.
func MigrateRiver(ctx context.Context, db *data.DB) error {
	logger := slog.New(slog.DiscardHandler)
	switch db.Dialect() {
	case data.Postgres:
		conn, err := db.Pgx().Acquire(ctx)
		if err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrateLockKey)); err != nil {
			return fmt.Errorf("riverjobs: migrate: taking the lock: %w", err)
		}
		defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrateLockKey))
		m, err := rivermigrate.New(riverpgxv5.New(db.Pgx()), &rivermigrate.Config{Logger: logger})
		if err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
	case data.SQLite:
		m, err := rivermigrate.New(riversqlite.New(db.SQL()), &rivermigrate.Config{Logger: logger})
		if err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
		// One transaction: BEGIN IMMEDIATE takes the write lock, so a
		// second instance waits, then finds the versions applied.
		err = db.WithTx(ctx, func(tx *sql.Tx) error {
			//lint:ignore SA1019 River deprecates MigrateTx because some PostgreSQL migrations cannot share a transaction; its SQLite migrations can (TestMigrate applies them all in one), and the one transaction is what serializes instances on SQLite's write lock
			_, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil)
			return err
		})
		if err != nil {
			return fmt.Errorf("riverjobs: migrate: %w", err)
		}
	default:
		return fmt.Errorf("riverjobs: migrate: unsupported database engine %q", db.Dialect())
	}
	return nil
}
