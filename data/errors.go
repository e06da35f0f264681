package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

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
//     SQLITE_CONSTRAINT_FOREIGNKEY): 409;
//   - a database that cannot be reached (Unavailable): 503, which
//     Attach's error handler sends with Retry-After (UnavailableRetryAfter).
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
	case Unavailable(err):
		return plinth.Error(http.StatusServiceUnavailable, "the database is unavailable; retry later").Wrap(err), true
	}
	return nil, false
}

// UnavailableRetryAfter is the Retry-After that Attach's error handler
// sends with the 503 of a database that cannot be reached: about the time
// a PostgreSQL restart takes, so that clients that honour it come back
// when it is likely over.
const UnavailableRetryAfter = 2 * time.Second

// Unavailable reports whether err says the database could not be reached or
// dropped the connection, rather than refused the statement: a connection
// that could not be made (pgconn.ConnectError: refused, DNS, TLS, the
// server starting or shutting down), a connection broken under a statement
// (an unexpected EOF, as pgx returns it, pgconn's own network errors,
// database/sql's ErrConnDone and driver.ErrBadConn), PostgreSQL's classes 08 (connection
// exception) and 57P (operator intervention: admin_shutdown,
// crash_shutdown, cannot_connect_now) and 53300 (too_many_connections), a
// closed pool, or SQLite's SQLITE_BUSY past the busy timeout. Problem maps
// these to 503. It looks only at errors the drivers made: a network error
// of the handler's own (another service's) is not the database's, a
// cancelled context (the client left) is none, and neither is an error
// that is already a *plinth.Problem (a 400 for a body cut short).
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if _, ok := errors.AsType[*plinth.Problem](err); ok {
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return se.Code()&0xff == sqliteBusy
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	// pgx returns a connection cut under a statement (a server restarted
	// in fast mode) as a bare io.ErrUnexpectedEOF.
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	// pgconn's errors about the connection itself (a failed read or write,
	// "conn closed") carry SafeToRetry; so do its wrapped context errors,
	// which the first test above (Canceled) and the deadline's own 503 cover.
	if _, ok := errors.AsType[interface {
		error
		SafeToRetry() bool
	}](err); ok {
		if _, isNet := errors.AsType[net.Error](err); isNet {
			return true
		}
		return errors.Is(err, io.EOF) || strings.Contains(err.Error(), "conn closed")
	}
	return strings.HasSuffix(err.Error(), "closed pool")
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
