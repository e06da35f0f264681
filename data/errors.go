package data

import (
	"database/sql"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/plinth-go/plinth"
	"modernc.org/sqlite"
)

// ErrNotFound is a not-found error for code that looks a record up without
// sql.ErrNoRows or pgx.ErrNoRows (a delete that touched no row, say):
// Problem maps it to 404 like those.
var ErrNotFound = errors.New("data: not found")

// Problem maps a database error that says something about the request to
// the problem the client should get, keeping err as its cause for the log:
//
//   - no row (sql.ErrNoRows, pgx.ErrNoRows, ErrNotFound): 404;
//   - a unique or primary-key violation (PostgreSQL 23505, SQLite's
//     SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY): 409;
//   - a foreign-key violation (PostgreSQL 23503, SQLite's
//     SQLITE_CONSTRAINT_FOREIGNKEY): 409.
//
// The problem's detail is fixed text: no SQL, table, column or constraint
// name reaches the client. Any other error gives false (the core renders it
// as a logged 500). Attach installs it in the App's error handler; a custom
// ErrorHandler can call it itself.
func Problem(err error) (*plinth.Problem, bool) {
	if err == nil {
		return nil, false
	}
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) || errors.Is(err, ErrNotFound) {
		return plinth.Error(http.StatusNotFound, "the record does not exist").Wrap(err), true
	}
	switch {
	case IsUniqueViolation(err):
		return conflictUnique(err), true
	case isForeignKeyViolation(err):
		return conflictReference(err), true
	}
	return nil, false
}

// IsUniqueViolation reports whether err (or an error it wraps) is a unique
// or primary-key violation: PostgreSQL's 23505 (unique_violation, which
// primary keys raise too) or SQLite's SQLITE_CONSTRAINT_UNIQUE and
// SQLITE_CONSTRAINT_PRIMARYKEY. It is the test for "this email is taken":
//
//	if _, err := db.Exec(ctx, "INSERT INTO users (email) VALUES ($1)", email); data.IsUniqueViolation(err) {
//		return plinth.Conflict("this email is taken")
//	}
//
// Problem maps the same errors to 409.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pe.Code == "23505"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return se.Code() == sqliteConstraintUnique || se.Code() == sqliteConstraintPK
	}
	return false
}

// isForeignKeyViolation reports whether err is a foreign-key violation:
// PostgreSQL's 23503 or SQLite's SQLITE_CONSTRAINT_FOREIGNKEY.
func isForeignKeyViolation(err error) bool {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pe.Code == "23503"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return se.Code() == sqliteConstraintFK
	}
	return false
}

func conflictUnique(err error) *plinth.Problem {
	return plinth.Error(http.StatusConflict, "a record with the same unique value already exists").Wrap(err)
}

func conflictReference(err error) *plinth.Problem {
	return plinth.Error(http.StatusConflict, "the record refers to a record that does not exist, or is still referred to").Wrap(err)
}
