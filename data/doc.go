// Package data is Plinth's database layer: one Open for PostgreSQL (a pgx
// pool) and SQLite (database/sql over modernc.org/sqlite, pure Go, no cgo),
// wired into an App by DB.Attach (readiness check, close after the drain,
// typed access from handlers, database errors rendered as problem JSON),
// transactions that retry serialization failures and deadlocks (WithTx),
// and numbered SQL migrations from an fs.FS (Migrate).
//
// It is a module of its own so that the core stays standard-library only:
// import it only if you use it.
//
//	db, err := data.Open(ctx, data.Config{})        // PLINTH_DATABASE_URL, DATABASE_URL, else sqlite:./data.db
//	if err != nil { ... }
//	if err := db.Migrate(ctx, migrations); err != nil { ... }  // migrations: an embed.FS of 0001_*.sql files
//	db.Attach(app)                                     // /readyz, OnStop, error mapping, start-up log
//
// Queries written for database/sql (DB.SQL) run on both engines when they
// use $1, $2, ... placeholders in order, which SQLite also reads. For
// PostgreSQL's full speed and types use DB.Pgx, the pgx pool.
package data
