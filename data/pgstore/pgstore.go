// Package pgstore keeps web's sessions in PostgreSQL, so that the instances
// of an application share them, a restart signs nobody out, and an
// application that already runs PostgreSQL needs no other service:
//
//	store, err := pgstore.New(ctx, pgstore.Config{Pool: pool})
//	sessions, err := web.NewSessions(web.SessionsConfig{Store: store})
//
// or, chosen by URL (PLINTH_SESSION_STORE=postgres://user@host/db), with
// Open in web.SessionsConfig.Openers under "postgres" and "postgresql".
//
// It is in the data module, so that the core keeps to the standard library
// and golang.org/x; it uses github.com/jackc/pgx/v5, the data package's
// driver, so that an application using both links one driver and can share
// one pool.
//
// The sessions are rows of one table (Config.Table, created if missing):
//
//	CREATE TABLE plinth_sessions (
//		id     text PRIMARY KEY,
//		data   bytea NOT NULL,
//		expiry timestamptz NOT NULL
//	);
//	CREATE INDEX plinth_sessions_expiry_idx ON plinth_sessions (expiry);
//
// Load is one SELECT by primary key, Create one INSERT, Update one UPDATE
// of a row that is there and not expired (so that a session deleted by a
// sign-out, or expired, is never written again), Delete one DELETE: one
// round trip each (pgx prepares each statement once per connection).
// Expired rows are never returned, and a goroutine deletes them every
// Config.CleanupInterval.
//
// BenchmarkLoad and BenchmarkSave measure them against the PostgreSQL at
// PLINTH_TEST_POSTGRES, on the same (2-core, busy) machine: a Load about
// 150 µs (15 allocations), a save (an Update) about 3 ms (15 allocations),
// most of it the commit's WAL flush, or 200 µs with synchronous_commit=off
// (see Store.Update); a network adds its round-trip time.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/plinth-go/plinth/data/internal/redact"
	"github.com/plinth-go/plinth/web"
)

// The defaults of Config.
const (
	// DefaultTable is the sessions' table when Config.Table is "".
	DefaultTable = "plinth_sessions"

	// DefaultCleanupInterval is how often expired rows are deleted when
	// Config.CleanupInterval is 0: expired sessions are never loaded, so
	// the interval bounds only the space they hold (at most five minutes'
	// worth of expiries), and one indexed DELETE every five minutes per
	// instance costs the database nothing noticeable.
	DefaultCleanupInterval = 5 * time.Minute

	// CleanupBatch is how many expired rows one DELETE of the cleanup
	// removes; a cleanup repeats it until fewer remain, so that it never
	// holds many row locks, or one long transaction, at once.
	CleanupBatch = 1000

	// CleanupTimeout bounds one cleanup (all its batches).
	CleanupTimeout = time.Minute

	// OpenTimeout bounds Open's attempt to create the table.
	OpenTimeout = 5 * time.Second

	// maxTableLen keeps the index's name, the table's and "_expiry_idx",
	// within PostgreSQL's 63 bytes, which it would otherwise truncate.
	maxTableLen = 63 - len(indexSuffix)
	indexSuffix = "_expiry_idx"
)

// Config configures New. Only Pool is required; every other field's zero
// value is the default.
type Config struct {
	// Pool is the PostgreSQL pool holding the sessions. Required by New
	// (Open makes a pool of its own). The Store does not close it: the
	// application that made it does.
	Pool *pgxpool.Pool

	// Table is the sessions' table, created if missing; "" means
	// DefaultTable, "plinth_sessions". It must be a plain identifier
	// (letters, digits and underscores, not starting with a digit, at most
	// 52 bytes): it is used quoted, exactly as given (so "Sessions" is not
	// "sessions"), in the first schema of the connection's search_path.
	// Use a table per application when several share a database.
	Table string

	// CleanupInterval is how often a goroutine deletes the expired rows;
	// 0 means DefaultCleanupInterval (5 minutes), a negative value no
	// goroutine (call DeleteExpired yourself, from a scheduled job, or
	// leave expired rows in place: they are never loaded). Every instance
	// sharing the table cleans it; the DELETEs skip rows another instance
	// holds locked, so they do not wait on each other.
	CleanupInterval time.Duration

	// Logger receives the background cleanup's failures (a cleanup that
	// fails is tried again at the next interval). Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Validate reports the problem of c that makes New panic, as an error
// naming the field, so that a configuration read from data can be checked
// first.
func (c Config) Validate() error {
	if c.Table == "" {
		return nil
	}
	if len(c.Table) > maxTableLen {
		return fmt.Errorf("pgstore: Config.Table %q is %d bytes, at most %d (its index's name, with %q, must fit PostgreSQL's 63)", c.Table, len(c.Table), maxTableLen, indexSuffix)
	}
	for i := 0; i < len(c.Table); i++ {
		b := c.Table[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || i > 0 && '0' <= b && b <= '9') {
			return fmt.Errorf("pgstore: Config.Table %q is not a plain identifier: want letters, digits and underscores, not starting with a digit (a schema-qualified name is not accepted: set the connection's search_path)", c.Table)
		}
	}
	return nil
}

// Store is a web.Store in PostgreSQL. Make one with New or Open; it is safe
// for concurrent use, and any number of instances may share one table.
type Store struct {
	pool     *pgxpool.Pool
	owned    bool // Open made the pool: Close closes it
	table    string
	log      *slog.Logger
	interval time.Duration

	// The statements, rendered once for the table.
	loadSQL, insertSQL, updateSQL, deleteSQL, cleanupSQL, createSQL, indexSQL string

	ready    atomic.Bool   // the table exists
	creating chan struct{} // one table creation at a time, waited for with a context

	stop      context.CancelFunc // stops the cleanup goroutine
	done      chan struct{}      // closed when it has stopped
	closeOnce sync.Once
}

var (
	_ web.Store = (*Store)(nil)
	_ io.Closer = (*Store)(nil)
)

// New returns a Store keeping sessions in cfg.Pool, and creates the table
// (and its index on expiry) if it does not exist, so that it returns an
// error when the database cannot be reached or the table cannot be
// created. When the table exists, New only checks that it does: the
// database user needs no right to create tables then (create it with a
// migration). Instances starting at once may all call New: the creation is
// serialized by an advisory lock.
//
// New starts the cleanup goroutine (see Config.CleanupInterval); Close
// stops it. The pool stays the caller's: Close does not close it. New
// panics if cfg.Pool is nil or cfg is invalid (the message Config.Validate
// returns): the program's mistakes.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Pool == nil {
		panic("pgstore: Config.Pool is required")
	}
	s := newStore(cfg.Pool, cfg)
	if err := s.ensureTable(ctx); err != nil {
		return nil, err
	}
	s.start()
	return s, nil
}

// Open is a web.OpenStore for postgres:// and postgresql:// URLs, in pgx's
// syntax (which takes libpq's options, and pgxpool's pool_max_conns and
// others, as query parameters). Register it in web.SessionsConfig.Openers:
//
//	Openers: map[string]web.OpenStore{"postgres": pgstore.Open, "postgresql": pgstore.Open}
//
// Open makes a pool of its own, with the Store's defaults (Config{}), which
// Close closes. It tries to create the table at once, for at most
// OpenTimeout, and fails when PostgreSQL answers with an error (a wrong
// password, a database that does not exist, no right to create the table):
// a configuration mistake is best found at startup. When PostgreSQL cannot
// be reached, Open succeeds all the same and logs a warning, so that an
// application starting while its database is briefly down (a deploy
// restarting both) starts; its readiness check, the Store's Ping, holds
// traffic off it until PostgreSQL answers, and the table is created on the
// first call that reaches it (PostgreSQL starting, shutting down or out of
// connections counts as not reached). A URL that cannot be parsed is an error.
func Open(ctx context.Context, url string) (web.Store, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", redact.Error(err, url)) // pgx quotes the URL
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", redact.Error(err, url))
	}
	s := newStore(pool, Config{})
	s.owned = true
	tctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	err = s.ensureTable(tctx)
	cancel()
	if answered(err) {
		pool.Close()
		return nil, err
	}
	if err != nil {
		s.log.Warn("pgstore: PostgreSQL cannot be reached; the sessions table will be created when it can", "error", err)
	}
	s.start()
	return s, nil
}

func newStore(pool *pgxpool.Pool, cfg Config) *Store {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	table := cfg.Table
	if table == "" {
		table = DefaultTable
	}
	interval := cfg.CleanupInterval
	if interval == 0 {
		interval = DefaultCleanupInterval
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	q := `"` + table + `"`
	return &Store{
		pool:     pool,
		table:    table,
		log:      log,
		interval: interval,
		loadSQL:  `SELECT data FROM ` + q + ` WHERE id = $1 AND expiry > $2`,
		// An expired row under the ID (which a cleanup has not removed
		// yet) is replaced; a live one is not.
		insertSQL:  `INSERT INTO ` + q + ` (id, data, expiry) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry WHERE ` + q + `.expiry <= $4`,
		updateSQL:  `UPDATE ` + q + ` SET data = $2, expiry = $3 WHERE id = $1 AND expiry > $4`,
		deleteSQL:  `DELETE FROM ` + q + ` WHERE id = $1`,
		cleanupSQL: `DELETE FROM ` + q + ` WHERE id IN (SELECT id FROM ` + q + ` WHERE expiry <= $1 LIMIT ` + fmt.Sprint(CleanupBatch) + ` FOR UPDATE SKIP LOCKED)`,
		createSQL:  `CREATE TABLE IF NOT EXISTS ` + q + ` (id text PRIMARY KEY, data bytea NOT NULL, expiry timestamptz NOT NULL)`,
		indexSQL:   `CREATE INDEX IF NOT EXISTS "` + table + indexSuffix + `" ON ` + q + ` (expiry)`,
		creating:   make(chan struct{}, 1),
	}
}

// String describes the store for the sessions' start-up log line: the
// engine, where the pool connects (never its password) and the table, as
// "postgres host=127.0.0.1 port=5432 database=app user=app table=plinth_sessions".
func (s *Store) String() string {
	cc := s.pool.Config().ConnConfig
	return "postgres host=" + cc.Host + " port=" + strconv.Itoa(int(cc.Port)) +
		" database=" + cc.Database + " user=" + cc.User + " table=" + s.table
}

// start starts the cleanup goroutine, unless it is disabled.
func (s *Store) start() {
	if s.interval < 0 {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	s.stop, s.done = stop, make(chan struct{})
	go s.cleanupLoop(ctx)
}

// ensureTable creates the table if that has not been done yet. After the
// first success it costs one atomic load.
func (s *Store) ensureTable(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	select {
	case s.creating <- struct{}{}:
		defer func() { <-s.creating }()
	case <-ctx.Done():
		return fmt.Errorf("pgstore: creating table %q: %w", s.table, ctx.Err())
	}
	if s.ready.Load() {
		return nil
	}
	var err error
	for range 3 {
		if err = s.createTable(ctx); !retryable(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("pgstore: creating table %q: %w", s.table, err)
	}
	s.ready.Store(true)
	return nil
}

// answered reports whether err is an error PostgreSQL answered with, other
// than those of a server starting, stopping or out of connections (classes
// 08, 53, 57 and 58), which a moment may fix.
func answered(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || len(pgErr.Code) < 2 {
		return false
	}
	switch pgErr.Code[:2] {
	case "08", "53", "57", "58":
		return false
	}
	return true
}

// retryable reports whether err is the error a concurrent CREATE TABLE IF
// NOT EXISTS can give (a unique violation on pg_type, or "already exists"):
// that of a creator that does not take the advisory lock.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07")
}

// createTable creates the table and its index unless the table exists, in
// one transaction holding an advisory lock named after the table, so that
// instances starting at once take turns instead of racing in the catalog.
func (s *Store) createTable(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, `"`+s.table+`"`).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return tx.Commit(ctx)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "plinth/data/pgstore:"+s.table); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.createSQL); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.indexSQL); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Load implements web.Store: one SELECT by primary key, of a row whose
// expiry is after the application's clock (the clock that set it), so that
// an expired row is never returned, cleaned up or not.
func (s *Store) Load(ctx context.Context, id string) ([]byte, error) {
	if err := s.ensureTable(ctx); err != nil {
		return nil, err
	}
	var data []byte
	err := s.pool.QueryRow(ctx, s.loadSQL, id, time.Now()).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: load: %w", err)
	}
	return data, nil
}

// Create implements web.Store: one INSERT, which writes nothing over a
// live row with the same ID and then fails with an error wrapping
// web.ErrSessionExists (an expired row not cleaned up yet is replaced). An
// expiry already past writes nothing.
//
// Each Create and Update commits, and so waits for PostgreSQL to flush its
// write-ahead log to disk: milliseconds on most disks (see Update).
func (s *Store) Create(ctx context.Context, id string, data []byte, expiry time.Time) error {
	now := time.Now()
	if !expiry.After(now) {
		return nil
	}
	if err := s.ensureTable(ctx); err != nil {
		return err
	}
	if data == nil {
		data = []byte{} // the column is NOT NULL; nil would be NULL
	}
	tag, err := s.pool.Exec(ctx, s.insertSQL, id, data, expiry, now)
	if err != nil {
		return fmt.Errorf("pgstore: create: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: create: %w", web.ErrSessionExists)
	}
	return nil
}

// Update implements web.Store: one UPDATE ... WHERE id = $1 of a row that
// has not expired, which writes nothing when the row was deleted (a
// sign-out meanwhile) or expired; or one DELETE when expiry has passed, so
// that a session saved as expired is gone at once.
//
// Each Update commits, and so waits for PostgreSQL to flush its write-ahead
// log to disk: milliseconds on most disks. A pool that serves only the
// sessions may skip that wait with synchronous_commit=off (a URL parameter:
// postgres://...?synchronous_commit=off): a crash of PostgreSQL may then
// lose the last fraction of a second of session writes, a sign-out
// included (the session would be valid again), but never corrupts one.
// The default keeps every write durable.
func (s *Store) Update(ctx context.Context, id string, data []byte, expiry time.Time) (bool, error) {
	now := time.Now()
	if err := s.ensureTable(ctx); err != nil {
		return false, err
	}
	if !expiry.After(now) {
		tag, err := s.pool.Exec(ctx, s.deleteSQL, id)
		if err != nil {
			return false, fmt.Errorf("pgstore: update: %w", err)
		}
		return tag.RowsAffected() > 0, nil
	}
	if data == nil {
		data = []byte{} // the column is NOT NULL; nil would be NULL
	}
	tag, err := s.pool.Exec(ctx, s.updateSQL, id, data, expiry, now)
	if err != nil {
		return false, fmt.Errorf("pgstore: update: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// Delete implements web.Store: one DELETE, which is not an error for an ID
// that has no row.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.ensureTable(ctx); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, s.deleteSQL, id); err != nil {
		return fmt.Errorf("pgstore: delete: %w", err)
	}
	return nil
}

// Ping implements web.Store: the pool's Ping (a connection from the pool,
// checked with an empty query), and the table's creation if it has not
// happened yet. web.Sessions.Attach makes it the degraded check
// "sessions", so /readyz names the store degraded, with this error, while
// PostgreSQL cannot be reached.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pgstore: ping: %w", err)
	}
	return s.ensureTable(ctx)
}

// DeleteExpired deletes the rows whose expiry has passed, in batches of
// CleanupBatch, and returns how many it deleted. The cleanup goroutine
// calls it every Config.CleanupInterval; call it yourself when that is
// disabled.
func (s *Store) DeleteExpired(ctx context.Context) (int64, error) {
	if err := s.ensureTable(ctx); err != nil {
		return 0, err
	}
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, s.cleanupSQL, time.Now())
		if err != nil {
			return total, fmt.Errorf("pgstore: deleting expired sessions: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < CleanupBatch {
			return total, nil
		}
	}
}

// cleanupLoop calls DeleteExpired every interval until ctx is cancelled.
func (s *Store) cleanupLoop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, CleanupTimeout)
		_, err := s.DeleteExpired(cctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			s.log.Warn("pgstore: cleanup failed; trying again at the next interval", "table", s.table, "interval", s.interval, "error", err)
		}
	}
}

// Close stops the cleanup goroutine, waiting for a cleanup under way to
// end (it is cancelled), and closes the pool if Open made it; a pool given
// to New stays open. It implements io.Closer: the sessions call it at
// shutdown, after the drain, for a store they opened from a URL. It always
// returns nil, and a second Close does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.stop()
			<-s.done
		}
		if s.owned {
			s.pool.Close()
		}
	})
	return nil
}
