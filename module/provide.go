package module

import (
	"context"
	"fmt"
	"reflect"
)

// provider makes one type in one module.
type provider struct {
	module    *Module
	typ       reflect.Type
	deps      []reflect.Type
	build     func(args []any) (any, error)
	transient bool
	where     string // the constructor, for errors
}

// Transient makes m's provider of T a factory: every provider or
// controller that depends on it gets a new value, built for it at startup.
// The default is one value shared by all, a singleton. Declare it after
// the provider.
func Transient[T any](m *Module) {
	m.open()
	t := typeOf[T]()
	for _, p := range m.providers {
		if p.typ == t {
			p.transient = true
			return
		}
	}
	panic(fmt.Sprintf("module: %s: Transient[%s] before (or without) its provider", m.name, t))
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

func addProvider[T any](m *Module, deps []reflect.Type, build func([]any) (any, error), fn any) {
	m.open()
	if fn != nil && reflect.ValueOf(fn).IsNil() {
		panic(fmt.Sprintf("module: %s: nil constructor for %s", m.name, typeOf[T]()))
	}
	p := &provider{module: m, typ: typeOf[T](), deps: deps, build: build, where: funcName(fn)}
	m.providers = append(m.providers, p)
}

// Value provides v as T in m.
func Value[T any](m *Module, v T) {
	addProvider[T](m, nil, func([]any) (any, error) { return v, nil }, nil)
}

// Provide registers fn as m's constructor of T. It is called once, at
// Mount, in dependency order (once per dependent if T is Transient); an
// error stops Mount, naming the provider.
func Provide[T any](m *Module, fn func() (T, error)) {
	addProvider[T](m, nil, func([]any) (any, error) { return fn() }, fn)
}

// Provide1 is Provide for a constructor with one dependency, looked up by
// its type among m's providers and its imports' exports.
func Provide1[T, A any](m *Module, fn func(A) (T, error)) {
	addProvider[T](m, []reflect.Type{typeOf[A]()},
		func(a []any) (any, error) { return fn(a[0].(A)) }, fn)
}

// Provide2 is Provide for a constructor with two dependencies.
func Provide2[T, A, B any](m *Module, fn func(A, B) (T, error)) {
	addProvider[T](m, []reflect.Type{typeOf[A](), typeOf[B]()},
		func(a []any) (any, error) { return fn(a[0].(A), a[1].(B)) }, fn)
}

// Provide3 is Provide for a constructor with three dependencies.
func Provide3[T, A, B, C any](m *Module, fn func(A, B, C) (T, error)) {
	addProvider[T](m, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C]()},
		func(a []any) (any, error) { return fn(a[0].(A), a[1].(B), a[2].(C)) }, fn)
}

// Provide4 is Provide for a constructor with four dependencies.
func Provide4[T, A, B, C, D any](m *Module, fn func(A, B, C, D) (T, error)) {
	addProvider[T](m, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C](), typeOf[D]()},
		func(a []any) (any, error) { return fn(a[0].(A), a[1].(B), a[2].(C), a[3].(D)) }, fn)
}

// Provide5 is Provide for a constructor with five dependencies. More than
// five usually means the type does too much; group them in a struct
// provided of its own.
func Provide5[T, A, B, C, D, E any](m *Module, fn func(A, B, C, D, E) (T, error)) {
	addProvider[T](m, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C](), typeOf[D](), typeOf[E]()},
		func(a []any) (any, error) { return fn(a[0].(A), a[1].(B), a[2].(C), a[3].(D), a[4].(E)) }, fn)
}

// Export makes m's provider of T (or the provider of T that m imports)
// visible to the modules that import m. What a module does not export is
// invisible to its importers.
func Export[T any](m *Module) {
	m.open()
	m.exports = append(m.exports, typeOf[T]())
}

// Starter is implemented by a provided value that has start-up work: the
// App runs OnStart before it accepts connections, in dependency order (a
// value's dependencies start first); a failure stops start-up.
type Starter interface {
	OnStart(ctx context.Context) error
}

// Stopper is implemented by a provided value that must be stopped: the App
// runs OnStop during its shutdown, after the drain, in the reverse of the
// start-up order, within the grace period.
type Stopper interface {
	OnStop(ctx context.Context) error
}
