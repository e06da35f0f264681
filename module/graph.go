package module

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// graph is the checked dependency graph of the modules below a root.
type graph struct {
	modules   []*Module // every module, imports before importers
	providers map[*provider]*node
	order     []*node // singletons in the order they were built
}

// node is a provider with its dependencies resolved.
type node struct {
	p     *provider
	deps  []*node
	value any
	built bool
}

// collect lists the modules below root, imports first, and checks that
// imports have no cycle and that module names are unique.
func collect(root *Module) ([]*Module, error) {
	var out []*Module
	state := map[*Module]int{} // 1 visiting, 2 done
	names := map[string]*Module{}
	var visit func(m *Module, path []string) error
	visit = func(m *Module, path []string) error {
		path = append(path, m.name)
		switch state[m] {
		case 1:
			return fmt.Errorf("module: import cycle: %s", strings.Join(path, " -> "))
		case 2:
			return nil
		}
		if other, ok := names[m.name]; ok && other != m {
			return fmt.Errorf("module: two different modules are named %q: a module imported in several places must be one *Module value", m.name)
		}
		names[m.name] = m
		state[m] = 1
		for _, i := range m.imports {
			if err := visit(i, path); err != nil {
				return err
			}
		}
		state[m] = 2
		out = append(out, m)
		return nil
	}
	if err := visit(root, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// own returns m's provider of t, or nil; two are an error. It reads the
// module's index (made by indexProviders), or scans before there is one.
func own(m *Module, t reflect.Type) (*provider, error) {
	ps := m.index[t]
	if m.index == nil {
		for _, p := range m.providers {
			if p.typ == t {
				ps = append(ps, p)
			}
		}
	}
	switch len(ps) {
	case 0:
		return nil, nil
	case 1:
		return ps[0], nil
	}
	return nil, fmt.Errorf("module %s provides %s twice (%s and %s)", m.name, t, ps[0].where, ps[1].where)
}

// indexProviders indexes each module's providers by type, so that
// resolving N providers costs N lookups, not N scans.
func indexProviders(mods []*Module) {
	for _, m := range mods {
		m.index = make(map[reflect.Type][]*provider, len(m.providers))
		for _, p := range m.providers {
			m.index[p.typ] = append(m.index[p.typ], p)
		}
	}
}

// exported returns the provider of t that m exports (its own, or one it
// re-exports from its imports), or nil when m does not export t.
func exported(m *Module, t reflect.Type) (*provider, error) {
	if !slices.Contains(m.exports, t) {
		return nil, nil
	}
	p, err := own(m, t)
	if err != nil || p != nil {
		return p, err
	}
	p, err = fromImports(m, t)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("module %s exports %s but neither provides it nor imports a module that exports it", m.name, t)
	}
	return p, nil
}

// fromImports returns the provider of t that m's imports export: nil for
// none, an error for two.
func fromImports(m *Module, t reflect.Type) (*provider, error) {
	var found *provider
	var from []string
	for _, i := range m.imports {
		p, err := exported(i, t)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		if found != nil && found != p {
			return nil, fmt.Errorf("module %s: %s is ambiguous: exported by %s and by %s; provide it in %s or import only one",
				m.name, t, strings.Join(from, ", "), i.name, m.name)
		}
		found = p
		from = append(from, i.name)
	}
	return found, nil
}

// lookup finds the provider of t visible in m: its own, else its imports'
// exports. A missing one is an error that says where it is hidden, if it
// is.
func lookup(m *Module, t reflect.Type, all []*Module) (*provider, error) {
	p, err := own(m, t)
	if err != nil || p != nil {
		return p, err
	}
	p, err = fromImports(m, t)
	if err != nil || p != nil {
		return p, err
	}
	var hidden []string
	for _, o := range all {
		if q, _ := own(o, t); q != nil && o != m {
			if slices.Contains(m.imports, o) {
				hidden = append(hidden, o.name+" provides it but does not export it")
			} else {
				hidden = append(hidden, o.name+" provides it; import it (and have it export it)")
			}
		}
	}
	msg := fmt.Sprintf("no provider of %s is visible in module %s", t, m.name)
	if len(hidden) > 0 {
		msg += " (" + strings.Join(hidden, "; ") + ")"
	}
	return nil, errors.New(msg)
}

// resolve links every provider of every module to its dependencies and
// builds nothing yet; it reports a missing or ambiguous dependency with
// the path that needs it, and cycles.
func resolve(mods []*Module, overrides map[reflect.Type]any) (*graph, error) {
	indexProviders(mods)
	g := &graph{modules: mods, providers: map[*provider]*node{}}
	for _, m := range mods {
		for _, p := range m.providers {
			n := &node{p: p}
			if v, ok := overrides[p.typ]; ok {
				n.p = &provider{module: m, typ: p.typ, where: "Replace", build: func([]any) (any, error) { return v, nil }}
			}
			g.providers[p] = n
		}
	}
	for _, m := range mods {
		for _, p := range m.providers {
			if _, err := own(m, p.typ); err != nil {
				return nil, fmt.Errorf("module: %w", err)
			}
			n := g.providers[p]
			if n.p != p {
				continue // replaced: no dependencies
			}
			for _, d := range p.deps {
				dp, err := lookup(m, d, mods)
				if err != nil {
					return nil, fmt.Errorf("module: %s (%s in %s) needs %s: %w", p.typ, p.where, m.name, d, err)
				}
				n.deps = append(n.deps, g.providers[dp])
			}
		}
	}
	if err := g.checkCycles(); err != nil {
		return nil, err
	}
	return g, nil
}

// checkCycles reports a dependency cycle as the path of types around it.
func (g *graph) checkCycles() error {
	state := map[*node]int{}
	var stack []*node
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case 1:
			i := slices.Index(stack, n)
			var path []string
			for _, s := range stack[i:] {
				path = append(path, s.p.typ.String())
			}
			path = append(path, n.p.typ.String())
			return fmt.Errorf("module: dependency cycle: %s", strings.Join(path, " -> "))
		case 2:
			return nil
		}
		state[n] = 1
		stack = append(stack, n)
		for _, d := range n.deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		return nil
	}
	for _, m := range g.modules {
		for _, p := range m.providers {
			if err := visit(g.providers[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// get returns n's value, building it (and its dependencies) on first use;
// a transient provider is built anew for every call.
func (g *graph) get(n *node) (any, error) {
	if n.built && !n.p.transient {
		return n.value, nil
	}
	args := make([]any, len(n.deps))
	for i, d := range n.deps {
		v, err := g.get(d)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	v, err := n.p.build(args)
	if err != nil {
		return nil, fmt.Errorf("module: building %s (%s in %s): %w", n.p.typ, n.p.where, n.p.module.name, err)
	}
	if !n.p.transient {
		n.value, n.built = v, true
	}
	g.order = append(g.order, &node{p: n.p, value: v, built: true})
	return v, nil
}
