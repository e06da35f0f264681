package module

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"

	"github.com/plinth-go/plinth"
	"github.com/plinth-go/plinth/api"
)

// MountConfig configures Mount; its zero value mounts at the App's root
// with no OpenAPI document.
type MountConfig struct {
	// API, when set, registers the controllers' routes through the
	// document's groups, so that their typed operations (Routes.API)
	// appear in it, tagged with their module's name. It must belong to the
	// same App.
	API *api.API
	// Router, when set, mounts below this group of the App instead of its
	// root. It cannot be combined with API, whose groups start at the root.
	Router *plinth.Router
	// Replace provides values in place of every provider of their types
	// (their dependencies are then not needed): a fake repository in a
	// test, in one line. Replacing a type nobody provides is an error.
	Replace []Replacement
}

// Replacement is a value that Mount provides in place of a provider.
type Replacement struct {
	typ reflect.Type
	v   any
}

// Replace returns a Replacement of T's provider by v.
func Replace[T any](v T) Replacement { return Replacement{typ: typeOf[T](), v: v} }

// Graph is a mounted module graph: its values, for tests and for code
// outside the request path.
type Graph struct {
	g *graph
}

// Get returns the value of T as module m sees it (its own providers and
// its imports' exports). It is for tests and startup code: handlers get
// their dependencies as constructor parameters.
func Get[T any](gr *Graph, m *Module) (T, error) {
	var zero T
	p, err := lookup(m, typeOf[T](), gr.g.modules)
	if err != nil {
		return zero, err
	}
	n := gr.g.providers[p]
	if n == nil {
		return zero, fmt.Errorf("module: %s is not part of this graph", m.name)
	}
	v, err := gr.g.get(n)
	if err != nil {
		return zero, err
	}
	return v.(T), nil
}

// Mount checks the graph of root and the modules it imports, builds every
// provider once in dependency order, registers every controller's routes
// with their scopes, and registers the lifecycle: the OnStart hooks and
// the Starter values run (imports first) through the App's OnStart, the
// OnStop hooks and Stopper values in reverse through the App's OnStop.
// Errors name the module, the type and the path: a missing or ambiguous
// dependency, a cycle (orders.Service -> payments.Client ->
// orders.Service), an export nobody provides, a constructor's failure.
// Call it before the App is built; a module is mounted once.
func Mount(app *plinth.App, root *Module, cfg ...MountConfig) (*Graph, error) {
	if len(cfg) > 1 {
		return nil, errors.New("module: Mount takes at most one MountConfig")
	}
	var c MountConfig
	if len(cfg) == 1 {
		c = cfg[0]
	}
	if c.API != nil && c.Router != nil {
		return nil, errors.New("module: Mount: MountConfig.API and Router cannot be combined (the api groups start at the App's root)")
	}
	if c.API != nil && c.API.App() != app {
		return nil, errors.New("module: Mount: the api document belongs to another App")
	}
	overrides := map[reflect.Type]any{}
	for _, r := range c.Replace {
		if r.typ == nil {
			return nil, errors.New("module: Mount: a zero Replacement (make them with module.Replace)")
		}
		overrides[r.typ] = r.v
	}
	mods, err := collect(root)
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		if m.mounted {
			return nil, fmt.Errorf("module: %s is already mounted", m.name)
		}
	}
	if err := substitute(mods, overrides); err != nil {
		return nil, err
	}
	g, err := resolve(mods, overrides)
	if err != nil {
		return nil, err
	}
	if err := checkUnrouted(mods); err != nil {
		return nil, err
	}
	for _, m := range mods {
		for _, p := range m.providers {
			if _, err := g.get(g.providers[p]); err != nil {
				return nil, err
			}
		}
	}
	base := app.Router
	if c.Router != nil {
		base = c.Router
	}
	for _, m := range mods {
		if err := mountControllers(g, m, base, c.API, mods); err != nil {
			return nil, err
		}
	}
	lifecycle(app, g, mods)
	for _, m := range mods {
		m.mounted = true
	}
	return &Graph{g: g}, nil
}

// routableType is the Routable interface, which a controller implements.
var routableType = reflect.TypeFor[Routable]()

// checkUnrouted fails on a provider whose type has a Routes method but that
// no module declares a controller: its routes would never be registered,
// and every request to them would be a silent 404. Failing is safe: Routes
// can only be called by Mount (a Routes value is made by Mount alone), so
// such a provider has no other way to serve its routes.
func checkUnrouted(mods []*Module) error {
	routed := map[*provider]bool{}
	for _, m := range mods {
		for _, d := range m.controllers {
			if p, err := lookup(m, d.typ, mods); err == nil {
				routed[p] = true
			}
		}
	}
	for _, m := range mods {
		for _, p := range m.providers {
			if routed[p] || !p.typ.Implements(routableType) {
				continue
			}
			return fmt.Errorf("module: %s (%s in %s) has a Routes method but is not a controller, so its routes "+
				"would never be registered: declare it with module.Controller[%s](%s) (or in a module that imports it)",
				p.typ, p.where, m.name, p.typ, m.name)
		}
	}
	return nil
}

// substitute checks that every replaced type has a provider.
func substitute(mods []*Module, overrides map[reflect.Type]any) error {
	for t := range overrides {
		found := false
		for _, m := range mods {
			for _, p := range m.providers {
				found = found || p.typ == t
			}
		}
		if !found {
			return fmt.Errorf("module: Replace[%s]: no module provides it", t)
		}
	}
	return nil
}

// mountControllers registers m's controllers below base.
func mountControllers(g *graph, m *Module, base *plinth.Router, doc *api.API, mods []*Module) error {
	if len(m.controllers) == 0 {
		return nil
	}
	var modRouter *plinth.Router
	var modGroup *api.Group
	if doc != nil {
		modGroup = doc.Group(m.prefix)
		modGroup.SetTags(m.name)
		modRouter = modGroup.Router()
	} else {
		modRouter = base.Group(m.prefix)
	}
	if !m.scope.empty() {
		modRouter.Use(m.scope.middleware())
	}
	for _, d := range m.controllers {
		p, err := lookup(m, d.typ, mods)
		if err != nil {
			return fmt.Errorf("module: controller %s of %s: %w", d.typ, m.name, err)
		}
		v, err := g.get(g.providers[p])
		if err != nil {
			return err
		}
		ctrl, ok := v.(Routable)
		if !ok || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil() {
			return fmt.Errorf("module: controller %s of %s is nil", d.typ, m.name)
		}
		r := &Routes{module: m, log: mountLogger(base.App())}
		if modGroup != nil {
			r.group = modGroup.Group(d.cfg.Prefix)
			r.router = r.group.Router()
		} else {
			r.router = modRouter.Group(d.cfg.Prefix)
		}
		if !d.cfg.Scope.empty() {
			r.router.Use(d.cfg.Scope.middleware())
		}
		ctrl.Routes(r)
	}
	return nil
}

// mountLogger is where Mount's warnings go: the App's Logger, its
// Config.Logger, or slog.Default().
func mountLogger(app *plinth.App) *slog.Logger {
	switch {
	case app == nil:
	case app.Logger != nil:
		return app.Logger
	case app.Config.Logger != nil:
		return app.Config.Logger
	}
	return slog.Default()
}

// lifecycle registers the start and stop work of the graph on app: per
// module, imports first, its providers' Starter values in build order and
// then its OnStart hooks; stops in the exact reverse, only for what
// started.
func lifecycle(app *plinth.App, g *graph, mods []*Module) {
	type step struct {
		start, stop func(context.Context) error
	}
	var steps []step
	for _, m := range mods {
		for _, n := range g.order {
			if n.p.module != m {
				continue
			}
			var s step
			if st, ok := n.value.(Starter); ok {
				s.start = st.OnStart
			}
			if sp, ok := n.value.(Stopper); ok {
				s.stop = sp.OnStop
			}
			if s.start != nil || s.stop != nil {
				steps = append(steps, s)
			}
		}
		for _, h := range m.onStart {
			steps = append(steps, step{start: h})
		}
		if len(m.onStop) > 0 {
			stops := slices.Clone(m.onStop)
			steps = append(steps, step{stop: func(ctx context.Context) error {
				var errs []error
				for _, h := range slices.Backward(stops) {
					errs = append(errs, h(ctx))
				}
				return errors.Join(errs...)
			}})
		}
	}
	if len(steps) == 0 {
		return
	}
	started := 0 // steps whose start ran (or had none) before a failure
	app.OnStart(func(ctx context.Context) error {
		for i, s := range steps {
			if s.start != nil {
				if err := s.start(ctx); err != nil {
					started = i
					return err
				}
			}
			started = i + 1
		}
		return nil
	})
	app.OnStop(func(ctx context.Context) error {
		var errs []error
		for _, s := range slices.Backward(steps[:started]) {
			if s.stop != nil {
				if err := s.stop(ctx); err != nil {
					errs = append(errs, err)
				}
			}
		}
		return errors.Join(errs...)
	})
}
