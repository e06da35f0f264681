package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// newTestClient serves the app in process and returns a function that
// sends one request and answers its status and body.
func newTestClient(t *testing.T) func(method, path, body string) (int, string) {
	h := newHandler(openTestStore(t))
	return func(method, path, body string) (int, string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
}

func TestTasks(t *testing.T) {
	do := newTestClient(t)
	for _, tc := range []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"GET", "/tasks", "", 200, `[]`},
		{"POST", "/tasks", `{"title":"Write the report"}`, 201, `"id":1,"title":"Write the report","done":false`},
		{"GET", "/tasks/1", "", 200, `"title":"Write the report"`},
		{"PUT", "/tasks/1", `{"title":"Write the report","done":true}`, 200, `"done":true`},
		{"GET", "/tasks?limit=10", "", 200, `"done":true`},
		{"POST", "/tasks", `{"title":""}`, 422, `title`},
		{"GET", "/tasks?limit=0", "", 422, `limit`},
		{"GET", "/tasks/99", "", 404, "task 99 does not exist"},
		{"PUT", "/tasks/99", `{"title":"x"}`, 404, "task 99 does not exist"},
		{"DELETE", "/tasks/1", "", 204, ""},
		{"DELETE", "/tasks/1", "", 404, "task 1 does not exist"},
	} {
		code, body := do(tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.contains) {
			t.Errorf("%s %s: %d %s, want %d containing %s", tc.method, tc.path, code, body, tc.code, tc.contains)
		}
	}
}

func openTestStore(t *testing.T) *store {
	t.Helper()
	st, err := openStore(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.db.Close() })
	return st
}
