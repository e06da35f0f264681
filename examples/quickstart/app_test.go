package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/plinth-go/plinth/data"
)

// The quickstart on its default database, SQLite (a file in a temp dir).
func TestQuickstart(t *testing.T) {
	testQuickstart(t, "sqlite:"+filepath.Join(t.TempDir(), "notes.db"))
}

// The same on PostgreSQL, in a database made for the test.
func TestQuickstartPostgres(t *testing.T) {
	base := os.Getenv("PLINTH_TEST_POSTGRES")
	if base == "" {
		t.Skip("set PLINTH_TEST_POSTGRES to a PostgreSQL URL (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run this test")
	}
	testQuickstart(t, tempPostgres(t, base))
}

// tempPostgres creates a database on the server of base, dropped after t.
func tempPostgres(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("quickstart_test_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func testQuickstart(t *testing.T, dbURL string) {
	ctx := context.Background()
	db, err := data.Open(ctx, data.Config{URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	app, _, err := newApp(db)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	defer srv.Close()

	do := func(method, path, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if strings.HasPrefix(body, "text:") {
			body = strings.TrimPrefix(body, "text:")
			req, _ = http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "text/plain")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}

	for _, tc := range []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"GET", "/", "", 200, `"service":"quickstart"`},
		{"GET", "/hello/gopher", "", 200, "Hello, gopher!"},
		{"GET", "/api/notes/1", "", 200, `"text":"Welcome to Plinth."`},
		{"POST", "/api/notes", `{"text":" second ","link":"https://go.dev/doc"}`, 201, `"id":2,"text":"second","link":"https://go.dev/doc"`},
		{"GET", "/api/notes", "", 200, `"second"`},
		// bad input: problem JSON with the status and every field error
		{"POST", "/api/notes", `{"text":`, 400, `"status":400`},
		{"POST", "/api/notes", `{"text":"x"} {}`, 400, "not valid JSON"},
		{"POST", "/api/notes", `text:{"text":"x"}`, 415, `"status":415`},
		{"POST", "/api/notes", ``, 422, `{"location":"body","message":"is required"}`},
		{"POST", "/api/notes", `{"txt":"x"}`, 422, `{"location":"body.txt","message":"is not an allowed field"}`},
		{"POST", "/api/notes", `{"text":"  "}`, 422, `{"location":"body.text","message":"must not be blank","value":"  "}`},
		{"POST", "/api/notes", `{"text":42}`, 422, `{"location":"body.text","message":"must be a string","value":42}`},
		{"POST", "/api/notes", `{"text":"x","link":"javascript:alert(1)"}`, 422, `{"location":"body.link","message":"must be a valid url","value":"javascript:alert(1)"}`},
		{"POST", "/api/notes", `{"text":"","link":"ftp://example.com"}`, 422, `"location":"body.text","message":"is required"},{"location":"body.link"`},
		{"POST", "/api/notes", `{"text":"` + strings.Repeat("x", 70<<10) + `"}`, 413, `"status":413`},
		{"GET", "/api/notes/abc", "", 400, "positive integer"},
		{"GET", "/api/notes/99", "", 404, "note 99 does not exist"},
		{"DELETE", "/api/notes/2", "", 204, ""},
		{"DELETE", "/api/notes/2", "", 404, ""},
		{"PUT", "/api/notes/1", "", 405, `"status":405`},
		{"GET", "/api/nothing", "", 404, "try /api/notes"},
		{"GET", "/nothing", "", 404, `"title":"Not Found"`},
		// the typed tasks resource
		{"POST", "/api/tasks", `{"title":"Write","priority":"high","assignee":"ada@example.com","tags":["a"]}`, 201, `"id":1`},
		{"GET", "/api/tasks/1", "", 200, `"priority":"high"`},
		{"GET", "/api/tasks?done=false&limit=5", "", 200, `"title":"Write"`},
		{"PUT", "/api/tasks/1", `{"title":"Rewrite","done":true}`, 200, `"priority":"normal"`},
		{"GET", "/api/tasks?done=false", "", 200, `[]`},
		{"POST", "/api/tasks", `{"title":"","priority":"urgent","assignee":"nope","tags":["ok",""]}`, 422, `"location":"body.title"`},
		{"POST", "/api/tasks", `{"title":"x","priority":"urgent"}`, 422, `"location":"body.priority"`},
		{"POST", "/api/tasks", `{"title":"x","assignee":"nope"}`, 422, `"location":"body.assignee"`},
		{"POST", "/api/tasks", `{"title":`, 400, `"status":400`},
		{"POST", "/api/tasks", `{"title":"x","link":"javascript:alert(1)"}`, 422, `{"location":"body.link","message":"must be a valid url","value":"javascript:alert(1)"}`},
		{"POST", "/api/tasks", `{"title":"x","priority":""}`, 422, `"location":"body.priority"`},
		{"POST", "/api/tasks", `text:{"title":"x"}`, 415, `"status":415`},
		{"GET", "/api/tasks?limit=1000", "", 422, `"location":"query.limit"`},
		{"GET", "/api/tasks/0", "", 422, `"location":"path.id"`},
		{"GET", "/api/tasks/9", "", 404, "task 9 does not exist"},
		{"DELETE", "/api/tasks/1", "", 204, ""},
		{"DELETE", "/api/tasks/1", "", 404, ""},
		{"GET", "/openapi.json", "", 200, `"/api/tasks/{id}"`},
		{"GET", "/openapi.yaml", "", 200, `"/api/notes/{id}"`},
		{"GET", "/docs", "", 200, `data-url="/openapi.json"`},
	} {
		res, body := do(tc.method, tc.path, tc.body)
		if res.StatusCode != tc.code || !strings.Contains(body, tc.contains) {
			t.Errorf("%s %s: %d %q, want %d containing %q", tc.method, tc.path, res.StatusCode, body, tc.code, tc.contains)
		}
		if strings.HasPrefix(tc.path, "/api/") && res.StatusCode >= 400 && res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: error without problem JSON", tc.method, tc.path)
		}
		if strings.HasPrefix(tc.path, "/api/") && res.Header.Get("Api-Version") != "1" {
			t.Errorf("%s %s: the group middleware did not run", tc.method, tc.path)
		}
	}
}
