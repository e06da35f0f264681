package apptest

import (
	"testing"

	"github.com/plinth-go/plinth/plinthtest"
)

// client serves a fresh App to a test client, in process: no listener, no
// network, the whole App (router, New's default layer, middleware, error
// renderer) in the call.
func client(t *testing.T) *plinthtest.Client {
	return plinthtest.New(t, NewApp(), plinthtest.Config{})
}

func TestHello(t *testing.T) {
	client(t).Get("/hello/Ada").
		Status(200).Contains("Hello, Ada!").
		Header("Api-Version", "1").
		Header("X-Content-Type-Options", "nosniff") // plinth.New's security headers
}

func TestUnknownUser(t *testing.T) {
	r := client(t).Get("/users/2")
	r.Problem(404, "").HasDetail("no user 2")
	// plinth.New gives every request an ID, sent in X-Request-Id and in
	// problem bodies.
	r.Contains(`"request_id":"` + r.Headers().Get("X-Request-Id") + `"`)
}

func TestRequestIDIsKept(t *testing.T) {
	client(t).Get("/users/2", "X-Request-Id", "test-42").
		Header("X-Request-Id", "test-42").Contains(`"request_id":"test-42"`)
}

func TestRouterAnswers(t *testing.T) {
	c := client(t)
	c.Delete("/users/1").Header("Allow", "GET, HEAD, OPTIONS").Problem(405, "")
	c.Get("/nowhere").Problem(404, "")
}
