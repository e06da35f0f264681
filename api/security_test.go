package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

var bearer = api.Security{Name: "apiKey", Scheme: api.SecurityScheme{Type: "http", Scheme: "bearer"}}

// TestGroupSecurity: a group declares once the scheme its
// middleware checks; its operations, and those of its subgroups, list it,
// the document's components list the scheme once, and an operation with a
// Security of its own, or outside the group, keeps its own. A secured
// operation lists 401 itself, and 403 when it demands scopes or roles.
func TestGroupSecurity(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{})
	nop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	api.Register(a, api.Operation{Method: "GET", Path: "/open"}, nop)
	a.Group("/admin", func(g *api.Group) {
		g.SetSecurity(bearer)
		api.Register(g, api.Operation{Method: "GET", Path: "/users"}, nop)
		api.Register(g, api.Operation{Method: "GET", Path: "/health", Security: []map[string][]string{}}, nop)
		g.Group("/v2", func(g2 *api.Group) {
			api.Register(g2, api.Operation{Method: "POST", Path: "/users"}, nop)
		})
		g.Group("/roles", func(g2 *api.Group) {
			g2.SetSecurity(api.Security{Name: bearer.Name, Scheme: bearer.Scheme, Scopes: []string{"admin"}})
			api.Register(g2, api.Operation{Method: "DELETE", Path: "/users"}, nop)
		})
	})
	a.Group("/own", func(g *api.Group) {
		api.Register(g, api.Operation{Method: "GET", Path: "/scoped", Security: []map[string][]string{{"apiKey": {"read"}}}}, nop)
		api.Register(g, api.Operation{Method: "GET", Path: "/optional", Security: []map[string][]string{{"apiKey": nil}, {}}}, nop)
	})
	a.Group("/other", func(g *api.Group) { // the same scheme declared again: one entry
		g.SetSecurity(bearer)
		api.Register(g, api.Operation{Method: "GET", Path: "/x"}, nop)
	})

	doc := a.Document()
	if s := doc.Components.SecuritySchemes["apiKey"]; s == nil || s.Type != "http" || s.Scheme != "bearer" || len(doc.Components.SecuritySchemes) != 1 {
		t.Errorf("components.securitySchemes: %+v", doc.Components.SecuritySchemes)
	}
	wants := func(path, method string, want bool) {
		t.Helper()
		it := doc.Paths[path]
		if it == nil || it.Method(method) == nil || *it.Method(method) == nil {
			t.Fatalf("%s %s not documented", method, path)
		}
		op := *it.Method(method)
		got := len(op.Security) == 1 && op.Security[0]["apiKey"] != nil
		if got != want {
			t.Errorf("%s %s: security %v, want apiKey required: %v", method, path, op.Security, want)
		}
	}
	// A secured operation lists 401 without naming it in Errors; 403 only
	// with scopes or roles; an open one neither.
	refusals := func(path, method string, want401, want403 bool) {
		t.Helper()
		op := *doc.Paths[path].Method(method)
		if got := op.Responses["401"] != nil; got != want401 {
			t.Errorf("%s %s: 401 listed %v, want %v", method, path, got, want401)
		}
		if got := op.Responses["403"] != nil; got != want403 {
			t.Errorf("%s %s: 403 listed %v, want %v", method, path, got, want403)
		}
		if r := op.Responses["401"]; r != nil && r.Content["application/problem+json"].Schema.Ref != "#/components/schemas/ErrorModel" {
			t.Errorf("%s %s: 401 is not a problem: %+v", method, path, r)
		}
	}
	refusals("/open", "GET", false, false)
	refusals("/admin/users", "GET", true, false)
	refusals("/admin/health", "GET", false, false)
	refusals("/admin/v2/users", "POST", true, false)
	refusals("/admin/roles/users", "DELETE", true, true)
	refusals("/own/scoped", "GET", true, true)
	refusals("/own/optional", "GET", false, false)
	wants("/open", "GET", false)
	wants("/admin/users", "GET", true)
	wants("/admin/health", "GET", false)
	wants("/admin/v2/users", "POST", true)
	wants("/other/x", "GET", true)

	for _, bad := range []api.Security{{Name: "apiKey", Scheme: api.SecurityScheme{Type: "apiKey", In: "header", Name: "X-Key"}}, {Name: "", Scheme: bearer.Scheme}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetSecurity(%+v) did not panic", bad)
				}
			}()
			a.Group("/bad").SetSecurity(bad)
		}()
	}
}

// TestOperationHandlerName: App.Routes, and so `plinth
// routes`, name a typed operation by its operation ID and the handler's
// function, not by the package's closure.
func TestOperationHandlerName(t *testing.T) {
	app := plinth.Bare()
	a := api.New(app, api.Config{OpenAPIPath: "-", DocsPath: "-"})
	api.Register(a, api.Operation{Method: "GET", Path: "/things", OperationID: "listThings"}, listThings)
	for _, rt := range app.Routes() {
		if rt.Pattern != "GET /things" {
			continue
		}
		if rt.Handler != "listThings (github.com/plinth-go/plinth/api_test.listThings)" || strings.Contains(rt.Handler, "register") {
			t.Errorf("handler %q", rt.Handler)
		}
		return
	}
	t.Error("no route GET /things")
}

func listThings(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
