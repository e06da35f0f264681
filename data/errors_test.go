package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/plinth-go/plinth"
)

// Database errors returned by handlers reach the client as problems: no row
// 404, a unique or foreign-key violation 409, with no SQL, table or
// constraint name in the body; other errors stay 500s.
func TestErrorMapping(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := openTest(t, Config{URL: e.url(t)})
			if _, err := db.SQL().Exec(`CREATE TABLE owners (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
				CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES owners (id));
				INSERT INTO owners VALUES (1, 'ada@example.com');`); err != nil {
				t.Fatal(err)
			}
			app := plinth.Bare()
			db.Attach(app)
			exec := func(q string) plinth.HandlerFunc {
				return func(c *plinth.Ctx) error {
					if _, err := db.SQL().ExecContext(c.Context(), q); err != nil {
						return err
					}
					return c.NoContent(http.StatusNoContent)
				}
			}
			app.Post("/dup", exec("INSERT INTO owners VALUES (2, 'ada@example.com')"))
			app.Post("/dup-pk", exec("INSERT INTO owners VALUES (1, 'bob@example.com')"))
			app.Post("/orphan", exec("INSERT INTO pets VALUES (1, 99)"))
			app.Post("/syntax", exec("INSERT INTO owners VALUES (oops"))
			app.Get("/missing", func(c *plinth.Ctx) error {
				var email string
				return db.SQL().QueryRowContext(c.Context(), "SELECT email FROM owners WHERE id = $1", 42).Scan(&email)
			})
			app.Delete("/gone", func(c *plinth.Ctx) error { return ErrNotFound })
			for path, want := range map[string]int{"/dup": 409, "/dup-pk": 409, "/orphan": 409, "/missing": 404, "/gone": 404, "/syntax": 500} {
				method := http.MethodPost
				switch path {
				case "/missing":
					method = http.MethodGet
				case "/gone":
					method = http.MethodDelete
				}
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
				body, _ := io.ReadAll(rec.Body)
				if rec.Code != want || rec.Header().Get("Content-Type") != "application/problem+json" {
					t.Errorf("%s: %d %s %s, want %d problem JSON", path, rec.Code, rec.Header().Get("Content-Type"), body, want)
				}
				var p map[string]any
				if err := json.Unmarshal(body, &p); err != nil || p["status"] != float64(want) {
					t.Errorf("%s: not a problem: %s", path, body)
				}
				low := strings.ToLower(string(body))
				for _, leak := range []string{"insert", "select", "owners", "pets", "email", "constraint", "sqlite", "violat", "syntax"} {
					if strings.Contains(low, leak) {
						t.Errorf("%s: the body shows %q: %s", path, leak, body)
					}
				}
			}
		})
	}
}

// Attach keeps an ErrorHandler set before it: mapped errors reach it as
// problems.
func TestAttachKeepsErrorHandler(t *testing.T) {
	db := openTest(t, Config{URL: "sqlite::memory:"})
	app := plinth.Bare()
	var seen error
	app.ErrorHandler = func(c *plinth.Ctx, err error) { seen = err; plinth.DefaultErrorHandler(c, err) }
	db.Attach(app)
	app.Get("/", func(c *plinth.Ctx) error { return ErrNotFound })
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if p, ok := seen.(*plinth.Problem); !ok || p.StatusCode() != 404 || rec.Code != 404 {
		t.Errorf("custom handler saw %v; status %d", seen, rec.Code)
	}
}

// IsUniqueViolation is true for a duplicate unique value and a duplicate
// primary key, through wrapping, and false for a foreign-key violation, a
// syntax error, no row and nil.
func TestIsUniqueViolation(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			db := openTest(t, Config{URL: e.url(t)})
			ctx := context.Background()
			if _, err := db.SQL().Exec(`CREATE TABLE owners (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
				CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES owners (id));
				INSERT INTO owners VALUES (1, 'ada@example.com');`); err != nil {
				t.Fatal(err)
			}
			exec := func(q string) error {
				_, err := db.Exec(ctx, q)
				return err
			}
			var email string
			for name, c := range map[string]struct {
				err  error
				want bool
			}{
				"unique":      {exec("INSERT INTO owners VALUES (2, 'ada@example.com')"), true},
				"primary key": {exec("INSERT INTO owners VALUES (1, 'bob@example.com')"), true},
				"wrapped":     {fmt.Errorf("sign up: %w", exec("INSERT INTO owners VALUES (3, 'ada@example.com')")), true},
				"foreign key": {exec("INSERT INTO pets VALUES (1, 99)"), false},
				"syntax":      {exec("INSERT INTO owners VALUES (oops"), false},
				"no row":      {db.QueryRow(ctx, "SELECT email FROM owners WHERE id = 42").Scan(&email), false},
				"nil":         {nil, false},
			} {
				if c.want && c.err == nil {
					t.Errorf("%s: the statement did not fail", name)
				}
				if got := IsUniqueViolation(c.err); got != c.want {
					t.Errorf("%s: IsUniqueViolation(%v) = %v, want %v", name, c.err, got, c.want)
				}
			}
			if IsUniqueViolation(errors.New("duplicate key")) || IsUniqueViolation(sql.ErrNoRows) {
				t.Error("an error that is not the database's is a unique violation")
			}
		})
	}
}

// TestUnavailable: the errors of a database that cannot be reached are
// Unavailable and map to 503; a refused statement, a cancelled request and
// the other mapped errors are not.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"another service's refused connection", fmt.Errorf("calling the mailer: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), false},
		{"a body cut short", plinth.BadRequest("the request body is not valid JSON").Wrap(io.ErrUnexpectedEOF), false},
		{"a connection cut under a statement", io.ErrUnexpectedEOF, true},
		{"conn done", sql.ErrConnDone, true},
		{"bad conn", fmt.Errorf("exec: %w", driver.ErrBadConn), true},
		{"closed pool", errors.New("closed pool"), true},
		{"client left", fmt.Errorf("query: %w", context.Canceled), false},
		{"no rows", sql.ErrNoRows, false},
		{"other", errors.New("boom"), false},
	} {
		if got := Unavailable(tc.err); got != tc.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
		p, ok := Problem(tc.err)
		if got := ok && p.StatusCode() == 503; got != tc.want {
			t.Errorf("%s: Problem gives 503 = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A real refused dial through pgx.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = pgconn.Connect(ctx, "postgres://x@"+addr+"/x?connect_timeout=2")
	if err == nil || !Unavailable(err) {
		t.Errorf("a refused connection: Unavailable(%v) = false", err)
	}
}
