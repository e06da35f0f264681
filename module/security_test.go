package module_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
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
}

// TestScopeSecurity (issue 25.12): a guard's scope declares the scheme it
// checks; the document lists it in components and on the guarded
// operation only, and the guard still guards.
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
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("POST", "/k/closed", nil))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("POST /k/closed without the key: %d", w.Code)
	}
}
