package users

import (
	"github.com/plinth-go/plinth/examples/modular/platform"
	"github.com/plinth-go/plinth/module"
)

// Module returns a new users module on platform's database: the
// repository (exported, for the guard of other modules), the controller at
// /users, timed by platform.Timing.
func Module(pf *module.Module) *module.Module {
	m := module.New("users").SetPrefix("/users").Import(pf).Use(platform.Timing("users"))
	module.Provide1(m, NewRepo)
	module.Provide1(m, NewController)
	module.Controller[*Controller](m)
	module.Export[*Repo](m)
	return m
}
