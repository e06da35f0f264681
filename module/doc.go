// Package module gives an App the structure large teams ask for, resolved
// entirely at startup: modules that declare the providers they make, the
// modules they import and what they export; controllers whose methods are
// handlers; filters, guards and middleware (NestJS's interceptors) on a
// module, a controller or a route; and lifecycle hooks in dependency order.
//
// Nothing of it runs per request. Mount checks the whole graph (a missing,
// ambiguous or cyclic dependency is an error that prints its path), builds
// every provider once, in dependency order, and registers each route with
// its filters, guards and middleware composed into one handler, so a
// handler reached through a module costs what the same handler with the
// same middleware registered directly costs. Providers are typed
// constructors checked by the compiler (Provide, Provide1, ... ProvideN
// take the constructor's parameters as type parameters); types are looked
// up with reflect only at startup, never on the request path.
//
// The name: a Go module is something else, but this is what NestJS, Angular
// and the teams that ask for the pattern call it, and module.New("orders")
// reads as what it is.
//
//	users := module.New("users")
//	module.Provide(users, NewUserRepo)        // func() (*UserRepo, error)
//	module.Export[*UserRepo](users)
//
//	orders := module.New("orders").SetPrefix("/orders").Import(users)
//	module.Provide1(orders, NewOrderService)  // func(*UserRepo) (*OrderService, error)
//	module.Provide1(orders, NewOrderController)
//	module.Controller[*OrderController](orders)
//
//	if _, err := module.Mount(app, orders, module.MountConfig{API: doc}); err != nil { ... }
package module
