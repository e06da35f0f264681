package payments

import (
	"context"
	"log/slog"

	"github.com/plinth-go/plinth/examples/modular/platform"
	"github.com/plinth-go/plinth/module"
)

// Module returns a new payments module on platform's database and logger:
// the Client (NewSimulated; replace it with module.Replace[Client]), the
// repository, the Service (exported, for orders) and the controller at
// /payments. Its hooks log when the module starts and stops, after the
// client's OnStart and before its OnStop.
func Module(pf *module.Module, log *slog.Logger) *module.Module {
	m := module.New("payments").SetPrefix("/payments").Import(pf).Use(platform.Timing("payments"))
	module.Provide1(m, NewSimulated)
	module.Provide1(m, NewRepo)
	module.Provide2(m, NewService)
	module.Provide1(m, NewController)
	module.Controller[*Controller](m)
	module.Export[*Service](m)
	m.OnStart(func(ctx context.Context) error {
		log.InfoContext(ctx, "payments: module started")
		return nil
	})
	m.OnStop(func(ctx context.Context) error {
		log.InfoContext(ctx, "payments: module stopping")
		return nil
	})
	return m
}
