package api_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// nextLine returns file:line of the line after its call.
func nextLine() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", file, line+1)
}

func noop(context.Context, *struct{}) (*struct{}, error) { return nil, nil }

// TestRegistrationSource checks that app.Routes() reports, for an
// operation registered with api.Register (on the API and through a Group),
// the file and line of the Register call in the user's code, not a line of
// the api package, and that a conflicting registration's panic names the
// user's lines of both registrations.
func TestRegistrationSource(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-"})
	rootAt := nextLine()
	api.Register(a, api.Operation{Method: "GET", Path: "/src"}, noop)
	var groupAt string
	a.Group("/g", func(g *api.Group) {
		groupAt = nextLine()
		api.Register(g, api.Operation{Method: "GET", Path: "/src"}, noop)
	})
	ctxAt := nextLine()
	api.RegisterCtx(a, api.Operation{Method: "GET", Path: "/ctx"}, func(*plinth.Ctx, *struct{}) (*struct{}, error) { return nil, nil })

	limitAt := nextLine() // on a group of its own, for its body limit
	api.Register(a, api.Operation{Method: "POST", Path: "/limited", MaxBodyBytes: 10}, noop)

	want := map[string]string{"GET /src": rootAt, "GET /g/src": groupAt, "GET /ctx": ctxAt, "POST /limited": limitAt}
	for _, rt := range app.Routes() {
		if w, ok := want[rt.Pattern]; ok {
			if rt.Source != w {
				t.Errorf("%s: Source %q, want %q (the Register call)", rt.Pattern, rt.Source, w)
			}
			delete(want, rt.Pattern)
		}
	}
	if len(want) > 0 {
		t.Errorf("routes not listed: %v", want)
	}

	// A second operation on the same method and path (another ID, so that
	// the router, not the ID check, refuses it).
	var msg string
	conflictAt := ""
	func() {
		defer func() { msg = fmt.Sprint(recover()) }()
		conflictAt = nextLine()
		api.Register(a, api.Operation{Method: "GET", Path: "/src", OperationID: "again"}, noop)
	}()
	if !strings.Contains(msg, "conflicts with") {
		t.Fatalf("no conflict panic: %s", msg)
	}
	for _, at := range []string{conflictAt, rootAt} {
		if !strings.Contains(msg, at) {
			t.Errorf("the panic does not name %s:\n%s", at, msg)
		}
	}
	if strings.Contains(msg, string(filepath.Separator)+"api"+string(filepath.Separator)+"register.go") ||
		strings.Contains(msg, string(filepath.Separator)+"api"+string(filepath.Separator)+"api.go") {
		t.Errorf("the panic points into the api package:\n%s", msg)
	}

	// A plain route and then an operation on it, through a group.
	plainAt := nextLine()
	app.Get("/plain", func(c *plinth.Ctx) error { return nil })
	func() {
		defer func() { msg = fmt.Sprint(recover()) }()
		a.Group("", func(g *api.Group) {
			conflictAt = nextLine()
			api.Register(g, api.Operation{Method: "GET", Path: "/plain"}, noop)
		})
	}()
	for _, at := range []string{conflictAt, plainAt} {
		if !strings.Contains(msg, at) {
			t.Errorf("the panic does not name %s:\n%s", at, msg)
		}
	}
}
