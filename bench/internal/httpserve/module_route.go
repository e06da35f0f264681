package httpserve

import (
	"net/http"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/bench/internal/suite"
	"github.com/plinth-go/plinth/module"
)

// itemController is the module-route scenario's controller.
type itemController struct{}

func (itemController) Routes(r *module.Routes) {
	r.Get("/{id}", func(c *plinth.Ctx) error { return c.Text(http.StatusOK, suite.Hello) })
}

// moduleApp mounts the module-route scenario on app: a module at /items
// with a guard that lets every request through and a pass-through
// interceptor around its controller.
func moduleApp(app *plinth.App) (http.Handler, error) {
	m := module.New("items").SetPrefix("/items").
		Guard(func(*plinth.Ctx) error { return nil }).
		Use(func(next plinth.HandlerFunc) plinth.HandlerFunc { return func(c *plinth.Ctx) error { return next(c) } })
	module.Value(m, itemController{})
	module.Controller[itemController](m)
	if _, err := module.Mount(app, m); err != nil {
		return nil, err
	}
	return app, nil
}
