package data

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// MigrationsTable records the migrations Migrate applied.
const MigrationsTable = "plinth_schema_migrations"

// migrationLockKey is the PostgreSQL advisory lock Migrate holds while it
// works, so that instances starting together apply each file once.
const migrationLockKey = 0x706c696e74686d67 // "plinthmg"

// Migration is one numbered SQL file.
type Migration struct {
	Version  int64  // the number the name starts with
	Name     string // the file name, 0001_create_notes.sql
	SQL      string
	Checksum string // SHA-256 of the file, hex
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[^/]*\.sql$`)

// LoadMigrations reads the migrations in the top directory of fsys: files
// named NUMBER_description.sql, in the order of their numbers. Other files
// are ignored; two files with the same number, or a number that does not
// fit in 63 bits, are an error.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("data: migrations: %w", err)
	}
	var ms []Migration
	seen := map[int64]string{}
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil {
			continue
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("data: migration %s: its number does not fit in 63 bits", e.Name())
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("data: migrations %s and %s have the same number %d", other, e.Name(), v)
		}
		seen[v] = e.Name()
		b, err := fs.ReadFile(fsys, path.Clean(e.Name()))
		if err != nil {
			return nil, fmt.Errorf("data: migration %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(b), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// ChangedMigrationError stops Migrate when a file that was applied has
// changed since: its recorded checksum and the file's differ. Add a new
// migration instead of editing an applied one.
type ChangedMigrationError struct {
	Name             string
	Recorded, Actual string
}

func (e *ChangedMigrationError) Error() string {
	return fmt.Sprintf("data: migration %s was changed after it was applied (recorded checksum %.12s, file now %.12s): "+
		"restore it and add a new migration for the change", e.Name, e.Recorded, e.Actual)
}

// Migrate applies, in order, the migrations of fsys (see LoadMigrations)
// that the database has not recorded, each in its own transaction together
// with its record (version, name, checksum, time) in MigrationsTable, which
// it creates if missing. It only goes up. Before applying anything it
// checks every recorded migration against its file: a changed file stops
// it with a *ChangedMigrationError and nothing is applied. Instances that
// migrate at once are serialized (PostgreSQL: an advisory lock held on one
// connection; SQLite: each migration's transaction takes the write lock and
// looks at the record again inside it), so each file is applied once.
// It returns the migrations it applied.
//
// Run it at startup, before serving, or from a command (the quickstart's
// `migrate` argument).
func (db *DB) Migrate(ctx context.Context, fsys fs.FS) ([]Migration, error) {
	ms, err := LoadMigrations(fsys)
	if err != nil {
		return nil, err
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("data: migrate: %w", err)
	}
	defer conn.Close()
	if db.dialect == Postgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLockKey)); err != nil {
			return nil, fmt.Errorf("data: migrate: taking the lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLockKey))
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+MigrationsTable+
		" (version BIGINT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"); err != nil {
		return nil, fmt.Errorf("data: migrate: creating %s: %w", MigrationsTable, err)
	}
	recorded, err := recordedMigrations(ctx, conn)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if sum, ok := recorded[m.Version]; ok && sum != m.Checksum {
			return nil, &ChangedMigrationError{Name: m.Name, Recorded: sum, Actual: m.Checksum}
		}
	}
	var applied []Migration
	for _, m := range ms {
		if _, ok := recorded[m.Version]; ok {
			continue
		}
		did, err := applyMigration(ctx, conn, m)
		if err != nil {
			return applied, err
		}
		if did {
			applied = append(applied, m)
		}
	}
	return applied, nil
}

// recordedMigrations reads MigrationsTable: version to checksum.
func recordedMigrations(ctx context.Context, conn *sql.Conn) (map[int64]string, error) {
	rows, err := conn.QueryContext(ctx, "SELECT version, checksum FROM "+MigrationsTable)
	if err != nil {
		return nil, fmt.Errorf("data: migrate: reading %s: %w", MigrationsTable, err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var v int64
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			return nil, fmt.Errorf("data: migrate: reading %s: %w", MigrationsTable, err)
		}
		out[v] = sum
	}
	return out, rows.Err()
}

// applyMigration applies m and records it in one transaction, unless the
// record appeared meanwhile (another instance applied it: SQLite), which
// it reports as false.
func applyMigration(ctx context.Context, conn *sql.Conn, m Migration) (bool, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("data: migration %s: %w", m.Name, err)
	}
	defer tx.Rollback()
	var sum string
	err = tx.QueryRowContext(ctx, "SELECT checksum FROM "+MigrationsTable+" WHERE version = $1", m.Version).Scan(&sum)
	switch {
	case err == nil:
		if sum != m.Checksum {
			return false, &ChangedMigrationError{Name: m.Name, Recorded: sum, Actual: m.Checksum}
		}
		return false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("data: migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("data: migration %s failed, nothing of it was applied: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+MigrationsTable+" (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)",
		m.Version, m.Name, m.Checksum, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return false, fmt.Errorf("data: migration %s: recording it: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("data: migration %s: %w", m.Name, err)
	}
	return true, nil
}
