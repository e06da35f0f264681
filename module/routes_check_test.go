package module_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/module"
)

type Forgotten struct{}

func (Forgotten) Routes(r *module.Routes) {
	r.Get("/ping", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, "pong") })
}

// A provider with a Routes method that no module declares a controller
// fails Mount, naming it, its constructor and module, and the fix: before,
// Mount succeeded and every one of its routes was a silent 404.
func TestRoutableNotControllerFailsMount(t *testing.T) {
	m := module.New("health").SetPrefix("/health")
	module.Provide(m, func() (*Forgotten, error) { return &Forgotten{}, nil })
	_, err := module.Mount(plinth.New(), m)
	if err == nil {
		t.Fatal("Mount accepted a Routes provider that is not a controller")
	}
	for _, want := range []string{"*module_test.Forgotten (", " in health) has a Routes method but is not a controller",
		"module.Controller[*module_test.Forgotten](health)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A controller provided in one module and declared a controller by the
// module that imports it is routed: no error.
func TestControllerDeclaredByImporter(t *testing.T) {
	lib := module.New("lib")
	module.Provide(lib, func() (*Forgotten, error) { return &Forgotten{}, nil })
	module.Export[*Forgotten](lib)
	app := plinth.New()
	root := module.New("root").SetPrefix("/root").Import(lib)
	module.Controller[*Forgotten](root)
	if _, err := module.Mount(app, root); err != nil {
		t.Fatal(err)
	}
	if res, body := do(t, app, "GET", "/root/ping"); res.StatusCode != 200 || body != "pong" {
		t.Errorf("%d %q", res.StatusCode, body)
	}
}

type slashy struct{}

func (slashy) Routes(r *module.Routes) {
	ok := func(c *plinth.Ctx) error { return c.NoContent(http.StatusNoContent) }
	r.Post("/", ok)               // warned: POST /orders/anything
	r.Get("", ok)                 // the prefix itself
	r.Get("/{$}", ok)             // /orders/ alone
	r.Get("/files/{path...}", ok) // a catch-all on purpose
	r.Handle("PUT /items/", ok)   // warned
}

// A path ending in "/" under a controller's prefix is a catch-all: Mount
// logs a warning naming the module and the pattern, once per route.
func TestTrailingSlashUnderPrefixWarns(t *testing.T) {
	var logs bytes.Buffer
	app := plinth.New()
	app.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	m := module.New("orders").SetPrefix("/orders")
	module.Value(m, &slashy{})
	module.Controller[*slashy](m)
	if _, err := module.Mount(app, m); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if n := strings.Count(out, "matches every path below it"); n != 2 {
		t.Errorf("%d warnings, want 2 (POST / and PUT /items/):\n%s", n, out)
	}
	for _, want := range []string{`module=orders pattern="POST /" matches=/orders/...`, `pattern="PUT /items/" matches=/orders/items/...`} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %s:\n%s", want, out)
		}
	}
	if res, _ := do(t, app, "POST", "/orders/anything"); res.StatusCode != http.StatusNoContent {
		t.Errorf("the catch-all still works as net/http's: %d", res.StatusCode)
	}
}
