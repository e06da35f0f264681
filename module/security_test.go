package module_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/api/openapi"
	"github.com/plinth-go/plinth/module"
)

type keyedController struct{}

func newKeyedController() (*keyedController, error) { return &keyedController{}, nil }

var keyScheme = api.Security{Name: "apiKey", Scheme: api.SecurityScheme{Type: "apiKey", In: "header", Name: "X-Key"}}

func (*keyedController) Routes(r *module.Routes) {
	nop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	api.Register(r.API(), api.Operation{Method: http.MethodGet, Path: "/open"}, nop)
	guard := func(c *plinth.Ctx) error {
		if c.Request().Header.Get("X-Key") != "k" {
			return plinth.Unauthorized("X-Key required")
		}
		return nil
	}
	api.Register(r.API(module.Scope{Guards: []module.Guard{guard}, Security: []api.Security{keyScheme}}),
		api.Operation{Method: http.MethodPost, Path: "/closed"}, nop)
	admin := func(c *plinth.Ctx) error {
		if c.Request().Header.Get("X-Role") != "admin" {
			return plinth.Forbidden("admins only")
		}
		return nil
	}
	adminKey := keyScheme
	adminKey.Scopes = []string{"admin"}
	api.Register(r.API(module.Scope{Guards: []module.Guard{guard, admin}, Security: []api.Security{adminKey}}),
		api.Operation{Method: http.MethodDelete, Path: "/closed"}, nop)
}

// TestScopeSecurity: a guard's scope declares the scheme it
// checks; the document lists it in components and on the guarded
// operations only, with their 401 (and 403 for a role), and the guard
// still guards.
func TestScopeSecurity(t *testing.T) {
	m := module.New("keyed").SetPrefix("/k")
	module.Provide(m, newKeyedController)
	module.Controller[*keyedController](m)
	app := plinth.Bare()
	doc := api.New(app, api.Config{Title: "t", Version: "1"})
	if _, err := module.Mount(app, m, module.MountConfig{API: doc}); err != nil {
		t.Fatal(err)
	}
	d := doc.Document()
	if s := d.Components.SecuritySchemes["apiKey"]; s == nil || s.Name != "X-Key" {
		t.Errorf("components.securitySchemes: %+v", d.Components.SecuritySchemes)
	}
	if op := d.Paths["/k/closed"].Post; op == nil || len(op.Security) != 1 || op.Security[0]["apiKey"] == nil {
		t.Errorf("POST /k/closed security: %+v", op)
	}
	if op := d.Paths["/k/open"].Get; op == nil || len(op.Security) != 0 {
		t.Errorf("GET /k/open security: %+v", op)
	}
	// The scope's operations list the refusals themselves: 401 for the
	// scheme, 403 for the role the admin guard checks; the open one
	// neither.
	for _, c := range []struct {
		op               *openapi.Operation
		name             string
		want401, want403 bool
	}{
		{d.Paths["/k/open"].Get, "GET /k/open", false, false},
		{d.Paths["/k/closed"].Post, "POST /k/closed", true, false},
		{d.Paths["/k/closed"].Delete, "DELETE /k/closed", true, true},
	} {
		if c.op == nil {
			t.Fatalf("%s not documented", c.name)
		}
		if got := c.op.Responses["401"] != nil; got != c.want401 {
			t.Errorf("%s: 401 listed %v, want %v", c.name, got, c.want401)
		}
		if got := c.op.Responses["403"] != nil; got != c.want403 {
			t.Errorf("%s: 403 listed %v, want %v", c.name, got, c.want403)
		}
	}
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("POST", "/k/closed", nil))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("POST /k/closed without the key: %d", w.Code)
	}
}
