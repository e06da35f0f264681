package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
	"github.com/plinth-go/plinth/data"
	"github.com/plinth-go/plinth/examples/modular/orders"
	"github.com/plinth-go/plinth/examples/modular/payments"
	"github.com/plinth-go/plinth/examples/modular/platform"
	"github.com/plinth-go/plinth/examples/modular/users"
	"github.com/plinth-go/plinth/module"
)

// shop returns a new module graph: the root module "shop" imports orders,
// which imports users and payments, which import platform.
func shop(db *data.DB, log *slog.Logger) *module.Module {
	pf := platform.Module(db.SQL(), log)
	us := users.Module(pf)
	pay := payments.Module(pf, log)
	ord := orders.Module(pf, us, pay)
	return module.New("shop").Import(us, pay, ord).
		OnStart(func(ctx context.Context) error {
			log.InfoContext(ctx, "shop: ready")
			return nil
		}).
		OnStop(func(ctx context.Context) error {
			log.InfoContext(ctx, "shop: stopping")
			return nil
		})
}

// newApp mounts the shop on a new App over db, migrated: the modules'
// routes and typed operations, the OpenAPI document at /openapi.json (and
// its page at /docs), and the database's readiness, shutdown and error
// mapping. Each replacement provides a value in place of its type's
// provider (a fake payments client in a test: module.Replace). It is
// separate from main so that the tests serve the same App.
func newApp(db *data.DB, log *slog.Logger, replace ...module.Replacement) (*plinth.App, error) {
	app := plinth.New()
	db.Attach(app)
	doc := api.New(app, api.Config{Title: "Plinth modular shop", Version: "1.0.0",
		Description: "Users, orders and payments: one module each, one tag each."})
	root := shop(db, log)
	if _, err := module.Mount(app, root, module.MountConfig{API: doc, Replace: replace}); err != nil {
		return nil, err
	}
	app.Get("/{$}", func(c *plinth.Ctx) error {
		return c.JSON(http.StatusOK, map[string]string{
			"service": "modular", "users": "/users", "orders": "/orders", "payments": "/payments", "docs": "/docs"})
	})
	return app, nil
}
