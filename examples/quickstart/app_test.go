package main

import (
	"io/fs"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/data/datatest"
	"github.com/plinth-go/plinth/plinthtest"
)

// The quickstart on its default database, SQLite (a file in a temp dir).
func TestQuickstart(t *testing.T) {
	testQuickstart(t, datatest.SQLite(t, datatest.Config{Migrations: migrationFiles(t, data.SQLite)}))
}

// The same on PostgreSQL, in a database made for the test (skipped without
// PLINTH_TEST_POSTGRES).
func TestQuickstartPostgres(t *testing.T) {
	testQuickstart(t, datatest.Postgres(t, datatest.Config{Migrations: migrationFiles(t, data.Postgres)}))
}

// migrationFiles are the migrations of an engine (their SQL differs).
func migrationFiles(t *testing.T, engine data.Dialect) fs.FS {
	dir, err := fs.Sub(migrations, "migrations/"+string(engine))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func testQuickstart(t *testing.T, db *data.DB) {
	app, _, err := newApp(db)
	if err != nil {
		t.Fatal(err)
	}
	c := plinthtest.New(t, app, plinthtest.Config{})

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
		var r *plinthtest.Response
		switch text, ok := strings.CutPrefix(tc.body, "text:"); {
		case ok:
			r = c.Post(tc.path, "text/plain", strings.NewReader(text))
		case tc.body != "" || tc.method == "POST":
			r = c.SendJSON(tc.method, tc.path, tc.body)
		default:
			r = c.Do(httptest.NewRequest(tc.method, tc.path, nil))
		}
		r.Status(tc.code).Contains(tc.contains)
		if strings.HasPrefix(tc.path, "/api/") {
			r.Header("Api-Version", "1") // the group middleware ran
			if tc.code >= 400 {
				r.Header("Content-Type", "application/problem+json")
			}
		}
	}
}
