package orders

import (
	"github.com/plinth-go/plinth/examples/modular/platform"
	"github.com/plinth-go/plinth/module"
)

// Module returns a new orders module that imports platform (the
// database), users (its repository) and payments (its service), with the
// controller at /orders, timed by platform.Timing.
func Module(pf, usersMod, paymentsMod *module.Module) *module.Module {
	m := module.New("orders").SetPrefix("/orders").Import(pf, usersMod, paymentsMod).Use(platform.Timing("orders"))
	module.Provide1(m, NewRepo)
	module.Provide3(m, NewService)
	module.Provide2(m, NewController)
	module.Controller[*Controller](m)
	return m
}
