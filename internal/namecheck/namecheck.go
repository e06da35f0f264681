// Package namecheck checks the rules of docs/naming.md that a machine can
// check, on the source of every package of the library modules (the
// go.work modules other than examples/, bench/ and cmd/):
//
//   - dir: a package is named like its directory (the last element of its
//     import path: the module root's package is named after the module);
//   - option-type: no exported type named Option or Opt or ending so (the
//     functional options' type): configuration is a Config struct;
//   - option-func: no exported function returning an option type or a
//     func(*X) (a functional option's constructor);
//   - option-param: no exported function or method whose variadic last
//     parameter is an option type, and no constructor (New, NewX, Open,
//     OpenX) whose variadic last parameter is a func(*X);
//   - options-type: no exported type named Options or ending so: a
//     configuration type is Config or XConfig (per-call options, XOpts,
//     are not configuration);
//   - new-config: New and NewX take their Config (a type named Config or
//     XConfig) by value, as their last parameter;
//   - attach: Attach installs a thing on an App: `Attach(app *plinth.App)`
//     as a method of the thing, or the package function
//     `Attach(app *plinth.App)` (a package with no thing) or
//     `Attach(app *plinth.App, x I)` with I an interface of the package; no
//     result;
//   - doc: every exported name has a doc comment (functions, types,
//     methods of exported types, constants and variables, alone or by
//     their group's comment); the methods of the standard error interfaces
//     (Error() string, Unwrap() error) need none: the interface's is
//     theirs.
//
// The check reads the source with go/parser only (no type checking, no
// dependency on golang.org/x/tools), so it runs in a second over the
// repository. Test files, testdata, package main and the rules other than
// dir in internal packages are left out: what they export is no API.
package namecheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// A Violation is one place that breaks one rule.
type Violation struct {
	Pos  string // file:line, relative to the checked root
	Rule string // dir, option-type, option-func, option-param, options-type, new-config, attach, doc
	Msg  string
}

// String returns "pos: rule: msg".
func (v Violation) String() string { return v.Pos + ": " + v.Rule + ": " + v.Msg }

// LibraryModules returns the directories of the go.work modules under root
// that are libraries: all but examples/, bench/ and cmd/ and their
// subdirectories.
func LibraryModules(root string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mods []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "use (":
			in = true
			continue
		case in && line == ")":
			in = false
			continue
		case strings.HasPrefix(line, "use ") && !in:
			line = strings.TrimSpace(strings.TrimPrefix(line, "use "))
		case !in:
			continue
		}
		if line == "" {
			continue
		}
		dir := filepath.ToSlash(filepath.Clean(line))
		if skipped(dir) {
			continue
		}
		mods = append(mods, dir)
	}
	return mods, sc.Err()
}

// skipped reports whether a directory, relative to the root, is an
// application rather than a library.
func skipped(rel string) bool {
	for _, p := range []string{"examples", "bench", "cmd"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// CheckRepository checks every package of the library modules under root.
func CheckRepository(root string) ([]Violation, error) {
	mods, err := LibraryModules(root)
	if err != nil {
		return nil, err
	}
	var all []Violation
	for _, m := range mods {
		vs, err := CheckModule(root, m)
		if err != nil {
			return nil, err
		}
		all = append(all, vs...)
	}
	return all, nil
}

// CheckModule checks the packages of the module in root/mod (mod relative
// to root, "." for root itself), leaving out the directories of other
// modules, testdata, hidden ones and those skipped by LibraryModules.
func CheckModule(root, mod string) ([]Violation, error) {
	base := filepath.Join(root, mod)
	var dirs []string
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != base {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if skipped(filepath.ToSlash(rel)) {
			return filepath.SkipDir
		}
		dirs = append(dirs, path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	modPath, err := modulePath(filepath.Join(base, "go.mod"))
	if err != nil {
		return nil, err
	}
	var all []Violation
	for _, d := range dirs {
		rel, err := filepath.Rel(base, d)
		if err != nil {
			return nil, err
		}
		vs, err := CheckDir(root, d, path.Join(modPath, filepath.ToSlash(rel)))
		if err != nil {
			return nil, err
		}
		all = append(all, vs...)
	}
	return all, nil
}

// modulePath returns the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// CheckDir checks the package in dir, whose import path is importPath (its
// non-test .go files; none: no package, nothing to check). Positions are
// relative to root.
func CheckDir(root, dir, importPath string) ([]Violation, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if ignoredByBuild(f) {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, nil
	}
	c := &checker{root: root, fset: fset, files: files, types: map[string]ast.Expr{}}
	c.run(dir, importPath)
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Pos < c.out[j].Pos })
	return c.out, nil
}

// ignoredByBuild reports a file with a "//go:build ignore" constraint.
func ignoredByBuild(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, "ignore") {
				return true
			}
		}
	}
	return false
}

type checker struct {
	root  string
	fset  *token.FileSet
	files []*ast.File
	types map[string]ast.Expr // the package's type declarations, by name
	pkg   string
	out   []Violation
}

func (c *checker) report(pos token.Pos, rule, format string, args ...any) {
	p := c.fset.Position(pos)
	name := p.Filename
	if rel, err := filepath.Rel(c.root, name); err == nil {
		name = filepath.ToSlash(rel)
	}
	c.out = append(c.out, Violation{Pos: fmt.Sprintf("%s:%d", name, p.Line), Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) run(dir, importPath string) {
	c.pkg = c.files[0].Name.Name
	if c.pkg == "main" {
		return
	}
	if want := path.Base(importPath); c.pkg != want {
		c.report(c.files[0].Name.Pos(), "dir", "package %s in directory %s (import path %s): a package is named like its directory (naming.md, \"packages and directories\")", c.pkg, want, importPath)
	}
	rel, _ := filepath.Rel(c.root, dir)
	if slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "internal") {
		return // no API: only the directory rule
	}
	for _, f := range c.files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					c.types[ts.Name.Name] = ts.Type
				}
			}
		}
	}
	for _, f := range c.files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				c.genDecl(d)
			case *ast.FuncDecl:
				c.funcDecl(d)
			}
		}
	}
}

// optionName reports a name of the functional options' type.
func optionName(name string) bool {
	return strings.HasSuffix(name, "Option") || strings.HasSuffix(name, "Opt")
}

// configName reports a name of a configuration type.
func configName(name string) bool { return strings.HasSuffix(name, "Config") }

// typeName returns the name of a type expression's named type (T, *T,
// pkg.T, T[X], *pkg.T[X]) and whether it was a pointer; "" for a literal
// type.
func typeName(e ast.Expr) (name string, ptr bool) {
	if s, ok := e.(*ast.StarExpr); ok {
		e, ptr = s.X, true
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name, ptr
	case *ast.SelectorExpr:
		return x.Sel.Name, ptr
	}
	return "", ptr
}

// funcOfPointer reports a func(*X) type with no result: the shape of a
// functional option.
func funcOfPointer(e ast.Expr) bool {
	ft, ok := e.(*ast.FuncType)
	if !ok || ft.Results != nil && len(ft.Results.List) > 0 || ft.Params == nil || len(ft.Params.List) != 1 {
		return false
	}
	_, ptr := typeName(ft.Params.List[0].Type)
	return ptr && len(ft.Params.List[0].Names) <= 1
}

func (c *checker) genDecl(g *ast.GenDecl) {
	for _, s := range g.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			name := s.Name.Name
			if !ast.IsExported(name) {
				continue
			}
			if g.Doc == nil && s.Doc == nil && s.Comment == nil {
				c.report(s.Pos(), "doc", "type %s has no doc comment", name)
			}
			switch {
			case optionName(name):
				c.report(s.Pos(), "option-type", "type %s: no functional options; configuration is a Config struct (naming.md, \"configuration\"), per-call options an XOpts struct", name)
			case strings.HasSuffix(name, "Options"):
				c.report(s.Pos(), "options-type", "type %s: a configuration type is named Config or XConfig, never Options (naming.md, \"configuration\")", name)
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if ast.IsExported(n.Name) && g.Doc == nil && s.Doc == nil && s.Comment == nil {
					c.report(n.Pos(), "doc", "%s %s has no doc comment (nor has its group)", g.Tok, n.Name)
				}
			}
		}
	}
}

func (c *checker) funcDecl(d *ast.FuncDecl) {
	name := d.Name.Name
	recv := ""
	if d.Recv != nil && len(d.Recv.List) == 1 {
		recv, _ = typeName(d.Recv.List[0].Type)
		if !ast.IsExported(recv) {
			return // not reachable as API
		}
	}
	if !ast.IsExported(name) {
		return
	}
	what := name
	if recv != "" {
		what = recv + "." + name
	}
	if d.Doc == nil && !(recv != "" && errorMethod(d)) {
		c.report(d.Pos(), "doc", "%s has no doc comment", what)
	}
	ft := d.Type
	params := fields(ft.Params)
	if recv == "" && ft.Results != nil {
		for _, r := range ft.Results.List {
			if n, _ := typeName(r.Type); n != "" && optionName(n) || funcOfPointer(r.Type) {
				c.report(d.Pos(), "option-func", "%s returns a functional option: configuration is a Config struct field (naming.md, \"configuration\")", what)
				break
			}
		}
	}
	if len(params) > 0 {
		if v, ok := params[len(params)-1].Type.(*ast.Ellipsis); ok {
			if n, _ := typeName(v.Elt); n != "" && optionName(n) || constructor(name) && recv == "" && funcOfPointer(v.Elt) {
				c.report(d.Pos(), "option-param", "%s takes variadic options: configuration is a Config struct, per-call options an XOpts pointer (naming.md)", what)
			}
		}
	}
	if recv == "" && named(name, "New") {
		for i, p := range params {
			n, ptr := typeName(p.Type)
			if n == "" || !configName(n) {
				continue
			}
			if i != len(params)-1 {
				c.report(d.Pos(), "new-config", "%s takes its %s as parameter %d of %d: the Config is the last parameter (naming.md, \"configuration\")", what, n, i+1, len(params))
			}
			if ptr {
				c.report(d.Pos(), "new-config", "%s takes a *%s: the Config is passed by value (naming.md, \"configuration\")", what, n)
			}
		}
	}
	if name == "Attach" {
		c.attach(d, what, recv, params)
	}
}

// named reports name == prefix or prefix followed by an exported word
// (New, NewStore; not Newline).
func named(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	return ok && (rest == "" || unicode.IsUpper(rune(rest[0])))
}

// constructor reports New, NewX, Open and OpenX.
func constructor(name string) bool { return named(name, "New") || named(name, "Open") }

// errorMethod reports Error() string and Unwrap() error, the methods of the
// standard error interfaces.
func errorMethod(d *ast.FuncDecl) bool {
	ps, rs := fields(d.Type.Params), fields(d.Type.Results)
	if len(ps) != 0 || len(rs) != 1 {
		return false
	}
	id, ok := rs[0].Type.(*ast.Ident)
	return ok && (d.Name.Name == "Error" && id.Name == "string" || d.Name.Name == "Unwrap" && id.Name == "error")
}

// fields returns a field list with one entry per parameter.
func fields(fl *ast.FieldList) []*ast.Field {
	if fl == nil {
		return nil
	}
	var out []*ast.Field
	for _, f := range fl.List {
		if len(f.Names) <= 1 {
			out = append(out, f)
			continue
		}
		for range f.Names {
			out = append(out, &ast.Field{Type: f.Type})
		}
	}
	return out
}

// isApp reports *plinth.App (or *App in package plinth).
func (c *checker) isApp(e ast.Expr) bool {
	s, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := s.X.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "plinth" && x.Sel.Name == "App"
	case *ast.Ident:
		return c.pkg == "plinth" && x.Name == "App"
	}
	return false
}

func (c *checker) attach(d *ast.FuncDecl, what, recv string, params []*ast.Field) {
	const shape = "Attach(app *plinth.App) on the thing, pkg.Attach(app) for a package with no thing, pkg.Attach(app, x) for an interface x of the package; no result (naming.md, \"installing a piece on an App\")"
	if d.Type.Results != nil && len(d.Type.Results.List) > 0 {
		c.report(d.Pos(), "attach", "%s returns a result: Attach cannot fail; a constructor (New/Open) returns the errors. Want %s", what, shape)
	}
	if len(params) == 0 || !c.isApp(params[0].Type) {
		c.report(d.Pos(), "attach", "%s: the first parameter is not a *plinth.App. Want %s", what, shape)
		return
	}
	switch {
	case len(params) == 1:
	case recv != "":
		c.report(d.Pos(), "attach", "%s takes %d parameters: what Attach needs is in the thing, from its constructor's config. Want %s", what, len(params), shape)
	case len(params) == 2:
		id, ok := params[1].Type.(*ast.Ident)
		if !ok {
			c.report(d.Pos(), "attach", "%s: its second parameter is not an interface of package %s: a concrete thing has its own Attach method. Want %s", what, c.pkg, shape)
			return
		}
		if _, isIface := c.types[id.Name].(*ast.InterfaceType); !isIface {
			c.report(d.Pos(), "attach", "%s: its second parameter, %s, is not an interface of package %s: a concrete thing has its own Attach method. Want %s", what, id.Name, c.pkg, shape)
		}
	default:
		c.report(d.Pos(), "attach", "%s takes %d parameters. Want %s", what, len(params), shape)
	}
}
