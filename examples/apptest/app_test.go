package apptest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serve sends one request to a fresh App, in process: no listener, no
// network, the whole App (router, New's default layer, middleware, error
// renderer) in the call.
func serve(t *testing.T, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	NewApp().ServeHTTP(rec, req)
	return rec
}

func TestHello(t *testing.T) {
	rec := serve(t, "GET", "/hello/Ada", "")
	if rec.Code != http.StatusOK || rec.Body.String() != "Hello, Ada!" {
		t.Fatalf("got %d %q", rec.Code, rec.Body)
	}
	if got := rec.Header().Get("Api-Version"); got != "1" {
		t.Errorf("Api-Version %q, want 1", got)
	}
	// plinth.New's security headers are part of every response.
	if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
}

// problem is the RFC 9457 body that Plinth sends for errors.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Location string `json:"location"`
		Message  string `json:"message"`
	} `json:"errors"`
}

// decodeProblem checks that rec is a problem with the given status and
// returns it.
func decodeProblem(t *testing.T, rec *httptest.ResponseRecorder, status int) problem {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	var p problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != status {
		t.Errorf("problem status %d, want %d", p.Status, status)
	}
	return p
}

func TestUnknownUser(t *testing.T) {
	rec := serve(t, "GET", "/users/2", "")
	p := decodeProblem(t, rec, http.StatusNotFound)
	if p.Detail != "no user 2" {
		t.Errorf("detail %q", p.Detail)
	}
	// plinth.New gives every request an ID, sent in X-Request-Id and in
	// problem bodies.
	if id := rec.Header().Get("X-Request-Id"); id == "" || p.RequestID != id {
		t.Errorf("X-Request-Id %q, request_id %q: want the same ID", id, p.RequestID)
	}
}

func TestRequestIDIsKept(t *testing.T) {
	rec := serve(t, "GET", "/users/2", "", "X-Request-Id", "test-42")
	if p := decodeProblem(t, rec, http.StatusNotFound); p.RequestID != "test-42" {
		t.Errorf("request_id %q, want the incoming test-42", p.RequestID)
	}
	if got := rec.Header().Get("X-Request-Id"); got != "test-42" {
		t.Errorf("X-Request-Id %q, want test-42", got)
	}
}

func TestRouterAnswers(t *testing.T) {
	rec := serve(t, "DELETE", "/users/1", "")
	decodeProblem(t, rec, http.StatusMethodNotAllowed)
	if got := rec.Header().Get("Allow"); got != "GET, HEAD, OPTIONS" {
		t.Errorf("Allow %q", got)
	}
	decodeProblem(t, serve(t, "GET", "/nowhere", ""), http.StatusNotFound)
}
