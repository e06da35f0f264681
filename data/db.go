package data

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/data/internal/redact"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect names the engine behind a DB.
type Dialect string

// The engines Open supports.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// DB is an open database: a pgx pool for PostgreSQL, database/sql for
// SQLite, and database/sql over the pgx pool for PostgreSQL too, so that
// code written against SQL runs on both. It is safe for concurrent use.
type DB struct {
	cfg     Config
	dialect Dialect
	pool    *pgxpool.Pool // PostgreSQL only
	sql     *sql.DB
	once    sync.Once

	defaultURL bool // no URL was set: the default SQLite file
}

// Open resolves cfg (see Config: the environment overrides it, the default
// is SQLite in ./data.db) and opens the database, checking that it answers.
// An unknown URL scheme or an unreachable database is an error that names
// the URL without its password.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	return open(ctx, cfg, envLookup)
}

func open(ctx context.Context, cfg Config, lookup func(string) (string, bool)) (*DB, error) {
	cfg, defaulted, err := cfg.resolveURL(lookup)
	if err != nil {
		return nil, err
	}
	var db *DB
	switch engineOf(cfg.URL) {
	case Postgres:
		db, err = openPostgres(ctx, cfg)
	case SQLite:
		db, err = openSQLite(cfg)
	default:
		return nil, fmt.Errorf("data: database URL %q: want postgres://... or sqlite:PATH", Redact(cfg.URL))
	}
	if err != nil {
		return nil, err
	}
	db.defaultURL = defaulted
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("data: %s does not answer: %w", Redact(cfg.URL), redact.Error(err, cfg.URL))
	}
	return db, nil
}

// openPostgres makes the pgx pool (it connects on first use) and the
// database/sql view of it.
func openPostgres(ctx context.Context, cfg Config) (*DB, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("data: database URL %q: %w", Redact(cfg.URL), redact.Error(err, cfg.URL))
	}
	pc.MaxConns = int32(cfg.MaxConns)
	pc.MinConns = int32(cfg.MinConns)
	pc.MaxConnLifetime = cfg.MaxConnLifetime // Off: pgx never expires a connection whose lifetime is negative
	pc.MaxConnLifetimeJitter = max(cfg.MaxConnLifetime/10, 0)
	pc.MaxConnIdleTime = cfg.MaxConnIdleTime
	if cfg.MaxConnIdleTime < 0 {
		pc.MaxConnIdleTime = math.MaxInt64 // Off: never idle long enough to close
	}
	if cfg.PingOnCheckout {
		pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return true }
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", Redact(cfg.URL), redact.Error(err, cfg.URL))
	}
	return &DB{cfg: cfg, dialect: Postgres, pool: pool, sql: stdlib.OpenDBFromPool(pool)}, nil
}

// openSQLite opens the file named after "sqlite:" with WAL, the busy
// timeout, foreign keys on and write transactions that take the write lock
// at BEGIN (so two writers wait for each other instead of failing to
// upgrade). ":memory:" is one in-memory database, on one connection.
func openSQLite(cfg Config) (*DB, error) {
	path, query, _ := strings.Cut(strings.TrimPrefix(cfg.URL, "sqlite:"), "?")
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return nil, fmt.Errorf("data: database URL %q names no file (want sqlite:PATH)", cfg.URL)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("data: database URL %q: %w", cfg.URL, err)
	}
	memory := path == ":memory:" || q.Get("mode") == "memory"
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", max(cfg.BusyTimeout, 0).Milliseconds())) // Off: 0, fail at once
	q.Add("_pragma", "foreign_keys(1)")
	if !memory {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	if q.Get("_txlock") == "" {
		q.Set("_txlock", "immediate")
	}
	dsn := "file:" + strings.TrimPrefix(path, "file:") + "?" + q.Encode()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", cfg.URL, err)
	}
	if memory {
		sdb.SetMaxOpenConns(1) // each connection would have its own database
	} else {
		sdb.SetMaxOpenConns(cfg.MaxConns)
		sdb.SetMaxIdleConns(cfg.MaxConns)
	}
	return &DB{cfg: cfg, dialect: SQLite, sql: sdb}, nil
}

// Dialect returns the engine: Postgres or SQLite.
func (db *DB) Dialect() Dialect { return db.dialect }

// Config returns the resolved configuration Open used.
func (db *DB) Config() Config { return db.cfg }

// announce declares the variables Open reads to app (so that its check of
// misspelled PLINTH_* variables knows them) and logs, when app starts, the
// database in use: its engine and location, the password redacted, and a
// warning when the location is the default because no URL was set.
func (db *DB) announce(app *plinth.App) {
	app.DeclareEnv(envNames()...)
	app.OnStart(func(context.Context) error {
		log := cmp.Or(app.Config.Logger, app.Logger)
		if log == nil {
			log = slog.Default()
		}
		engine, location := string(db.dialect), Redact(db.cfg.URL)
		if db.dialect == SQLite {
			location = strings.TrimPrefix(location, "sqlite:")
		}
		if db.defaultURL {
			log.Warn("data: no database URL is set (PLINTH_DATABASE_URL, DATABASE_URL or data.Config.URL): using the SQLite file "+location+"; an application that needs PostgreSQL sets data.Config.Engine to fail instead",
				"engine", engine, "location", location)
			return nil
		}
		log.Info("data: database", "engine", engine, "location", location)
		return nil
	})
}

// SQL returns the database/sql handle: SQLite's, or PostgreSQL's over the
// pgx pool (it takes its connections from the pool, so both share its
// limit).
func (db *DB) SQL() *sql.DB { return db.sql }

// Pgx returns the pgx pool of a PostgreSQL database, nil for SQLite. It is
// the fast path: pgx's own types, statement cache and batches.
func (db *DB) Pgx() *pgxpool.Pool { return db.pool }

// Ping checks that the database answers (a round trip on PostgreSQL, a
// query on SQLite), within ctx.
func (db *DB) Ping(ctx context.Context) error {
	if db.pool != nil {
		return db.pool.Ping(ctx)
	}
	_, err := db.sql.ExecContext(ctx, "SELECT 1")
	return err
}

// Close closes the database once; later calls do nothing. Queries in
// flight finish first (pgxpool waits for acquired connections).
func (db *DB) Close() error {
	var err error
	db.once.Do(func() {
		err = db.sql.Close()
		if db.pool != nil {
			db.pool.Close()
		}
	})
	return err
}

// Redact returns a database URL or key/value DSN with its passwords
// replaced by "xxxxx", for logs and errors: the URL's userinfo password,
// its password and sslpassword query parameters, a DSN's password= value
// (quoted or not). A malformed URL is masked as well as its shape allows.
func Redact(raw string) string { return redact.DSN(raw) }

// errNotPostgres is returned by the pgx-only helpers on SQLite.
var errNotPostgres = errors.New("data: a pgx transaction needs PostgreSQL, and this database is SQLite: use WithTx")
