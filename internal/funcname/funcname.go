// Package funcname names a function value as the runtime knows it, for
// the route listings of the core and the api package (App.Routes, `plinth
// routes`).
package funcname

import (
	"reflect"
	"runtime"
)

// Of returns the name of the function f as the runtime knows it:
// main.listTasks, or main.routes.func1 for a closure; "func" when the
// runtime has no name for it. f must be a non-nil function.
func Of(f any) string {
	if fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer()); fn != nil {
		return fn.Name()
	}
	return "func"
}
