// Package doccheck compiles the Go snippets of the repository's Markdown
// documentation against the working tree, so that a page cannot show code
// that does not build. Its test runs it: TestDocSnippets (part of `go test
// ./...`) compiles the snippets that need only the core with the core's
// go.sum, and those that import another module of the repository (data,
// redisstore, observe, ...) with examples' go.sum, which holds their
// third-party dependencies. No other module imports this package.
//
// # The convention
//
// Every ```go block of the repository's top-level *.md files and of
// docs/*.md is compiled. There is no way to exempt one. A block is either:
//
//   - a whole file: its first line that is neither blank nor a // comment
//     starts with "package". It is compiled as it is, alone in its package;
//   - a fragment: anything else. The fragment's leading paragraphs
//     (separated by blank lines) that parse as declarations (import, const,
//     var, type, func) are put at package level; the rest becomes the body
//     of a function func(c *plinth.Ctx) error, in a package that declares
//     var app = plinth.New(). So a fragment may use app and c without
//     declaring them. The variables declared at the fragment's top level
//     count as used, because a fragment is the middle of a function; a
//     nested one that is never used is still an error.
//
// Imports are inferred: a selector x.Y whose x the snippet does not declare
// imports the package that the table in imports.go knows by that name (the
// usual standard library packages, plinth, api, middleware and compress). A
// package the table does not know, or an ambiguous name such as rand, is
// imported explicitly, in the block or in its context comment.
//
// A context comment is an HTML comment that starts with "<!-- doccheck" and
// comes right before the block (blank lines may separate them). Markdown
// renderers hide it. Its lines up to "-->" are Go declarations, put at
// package level, that the snippet assumes: the handlers, middleware and
// stores that the prose mentions but does not show. For example:
//
//	<!-- doccheck
//	var db *sql.DB
//	func getUser(c *plinth.Ctx) error { return nil }
//	-->
//
// Its first line may also say file=PATH (a path from the repository root):
// the block must then be byte for byte the content of that file, which
// `go test ./...` compiles and runs like any other, so the page shows code
// known to work. Whole-file blocks naming files of one directory are
// compiled together, as one package.
//
// The snippets are written into a temporary module that requires the
// repository's modules with replace directives pointing at the working tree,
// with the go.sum of the module running the test, and checked by one
// `go vet` run (type checking plus vet's analysers, except "unreachable",
// because a fragment may list alternative return statements). The go
// command runs with GOPROXY=off and GOFLAGS=-mod=mod, so it never reaches
// the network. Errors are reported at the Markdown file and line, through
// //line directives.
package doccheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Snippet is one ```go block of a Markdown file.
type Snippet struct {
	File string // Markdown file, slash-separated, relative to the repository root
	Line int    // line of the opening fence, from 1
	Code string // the block's content, indentation of the fence removed

	Context     string // Go source of the context comment, "" without one
	ContextLine int    // Markdown line of the context's first source line
	SameAs      string // file=PATH of the context comment, "" without one
}

// Pos returns "file:line" of the block's opening fence.
func (s *Snippet) Pos() string { return s.File + ":" + strconv.Itoa(s.Line) }

// DocFiles returns the Markdown files whose snippets are compiled: the
// repository's top-level *.md files and docs/*.md, slash-separated and
// relative to root.
func DocFiles(root string) ([]string, error) {
	var files []string
	for _, pat := range []string{"*.md", "docs/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	sort.Strings(files)
	return files, nil
}

// Extract returns the ```go blocks of the Markdown files (relative to root),
// with their context comments. A malformed file (an unterminated fence or
// comment, a context comment not followed by a ```go block) is an error that
// names the file and line.
func Extract(root string, files []string) ([]*Snippet, error) {
	var all []*Snippet
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		s, err := ExtractMarkdown(f, data)
		all = append(all, s...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return all, errors.Join(errs...)
}

// fenceRE matches an opening fence at any indentation (a block in a nested
// list item is indented further than CommonMark's three spaces), so that no
// Go block goes unchecked.
var fenceRE = regexp.MustCompile("^([ \t]*)(`{3,}|~{3,})[ \t]*([^ \t`]*)")

// ExtractMarkdown returns the ```go blocks of one Markdown document; name is
// the file name used in positions.
func ExtractMarkdown(name string, data []byte) ([]*Snippet, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []*Snippet
	var errs []error
	var pending *Snippet // context comment waiting for its block
	pendingLine := 0
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceRE.FindStringSubmatch(line); m != nil && !(m[2][0] == '`' && strings.Contains(line[len(m[0]):], "`")) {
			indent, fence, lang := m[1], m[2], m[3]
			start := i
			var body []string
			closed := false
			for i++; i < len(lines); i++ {
				if t := strings.TrimSpace(lines[i]); len(t) >= len(fence) && strings.Trim(t, fence[:1]) == "" {
					closed = true
					break
				}
				body = append(body, strings.TrimPrefix(lines[i], indent))
			}
			if !closed {
				errs = append(errs, fmt.Errorf("%s:%d: code block never closed", name, start+1))
				break
			}
			if !strings.EqualFold(lang, "go") && !strings.EqualFold(lang, "golang") {
				if pending != nil {
					errs = append(errs, fmt.Errorf("%s:%d: doccheck comment followed by a %q block, not a Go one", name, pendingLine, lang))
					pending = nil
				}
				continue
			}
			s := &Snippet{File: name, Line: start + 1, Code: strings.Join(body, "\n") + "\n"}
			if pending != nil {
				s.Context, s.ContextLine, s.SameAs = pending.Context, pending.ContextLine, pending.SameAs
				pending = nil
			}
			out = append(out, s)
			continue
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "<!-- doccheck") {
			if pending != nil {
				errs = append(errs, fmt.Errorf("%s:%d: doccheck comment not followed by a ```go block", name, pendingLine))
			}
			start := i
			head := strings.TrimPrefix(trimmed, "<!-- doccheck")
			closed := false
			if strings.HasSuffix(head, "-->") {
				head, closed = strings.TrimSuffix(head, "-->"), true
			}
			c := &Snippet{ContextLine: start + 2}
			for _, w := range strings.Fields(head) {
				if p, ok := strings.CutPrefix(w, "file="); ok && p != "" && c.SameAs == "" {
					c.SameAs = p
				} else {
					errs = append(errs, fmt.Errorf("%s:%d: doccheck comment: unknown word %q (only file=PATH)", name, start+1, w))
				}
			}
			var src []string
			for !closed {
				i++
				if i >= len(lines) {
					errs = append(errs, fmt.Errorf("%s:%d: doccheck comment never closed", name, start+1))
					break
				}
				if before, ok := strings.CutSuffix(strings.TrimRight(lines[i], " \t"), "-->"); ok {
					if strings.TrimSpace(before) != "" {
						errs = append(errs, fmt.Errorf("%s:%d: put the doccheck comment's --> on a line of its own", name, i+1))
					}
					closed = true
					break
				}
				src = append(src, lines[i])
			}
			if len(src) > 0 {
				c.Context = strings.Join(src, "\n") + "\n"
			}
			pending, pendingLine = c, start+1
			continue
		}
		if pending != nil && trimmed != "" {
			errs = append(errs, fmt.Errorf("%s:%d: doccheck comment not followed by a ```go block", name, pendingLine))
			pending = nil
		}
	}
	if pending != nil {
		errs = append(errs, fmt.Errorf("%s:%d: doccheck comment not followed by a ```go block", name, pendingLine))
	}
	return out, errors.Join(errs...)
}

// IsFile reports whether the snippet is a whole file: its first line that is
// neither blank nor a // comment starts with "package".
func (s *Snippet) IsFile() bool {
	for _, l := range strings.Split(s.Code, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		return strings.HasPrefix(t, "package ") || strings.HasPrefix(t, "package\t")
	}
	return false
}

// unit is one package of the generated module.
type unit struct {
	dir      string            // directory in the generated module
	snippets []*Snippet        // the blocks it holds (several for file= groups)
	files    map[string]string // file name (may contain a directory, for embed) -> content
	imports  []string          // import paths it uses
	err      error             // set when the unit could not be generated
}

// generate turns one snippet into the files of its package. abs is the
// absolute repository root (positions name the Markdown files by absolute
// path, which the report shortens), gen the absolute directory of the
// snippet's package in the generated module. It returns the package's files
// and the import paths they use; a syntax error comes with the files.
func generate(s *Snippet, absRoot, gen string) (files map[string]string, imports []string, err error) {
	md := filepath.Join(absRoot, filepath.FromSlash(s.File))
	if s.IsFile() {
		if s.Context != "" {
			return nil, nil, fmt.Errorf("%s: a whole-file block takes no declarations in its doccheck comment", s.Pos())
		}
		name := "snippet.go"
		if s.SameAs != "" {
			name = path.Base(s.SameAs)
		}
		src := fmt.Sprintf("//line %s:%d:1\n%s", md, s.Line+1, s.Code)
		imports, err := fileImports(src)
		files = map[string]string{name: src}
		addEmbeds(files, s.Code)
		return files, imports, err
	}

	var b lineWriter
	b.println("package snippet")
	b.println("")
	importAt := b.n // the import block goes here, once the names are known

	var explicit []importSpec
	var ctx string
	if s.Context != "" {
		var err error
		ctx, err = takeImports(s.Context, fmt.Sprintf("//line %s:%d:1\n", md, s.ContextLine), &explicit)
		if err != nil {
			return nil, nil, err
		}
	}

	// Leading paragraphs that parse as declarations go to package level.
	lines := strings.Split(strings.TrimSuffix(s.Code, "\n"), "\n")
	split := 0
	for split < len(lines) {
		end := split
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		para := strings.Join(lines[split:end], "\n")
		if strings.TrimSpace(para) != "" {
			if _, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+para, parser.SkipObjectResolution); err != nil {
				break
			}
		}
		for end < len(lines) && strings.TrimSpace(lines[end]) == "" {
			end++
		}
		split = end
	}
	decls, body := strings.Join(lines[:split], "\n")+"\n", lines[split:]
	if split > 0 {
		var err error
		decls, err = takeImports(decls, fmt.Sprintf("//line %s:%d:1\n", md, s.Line+1), &explicit)
		if err != nil {
			return nil, nil, err
		}
	}

	declared := packageLevelNames(ctx + "\n" + decls)
	if !declared["app"] {
		b.println("var app = plinth.New()")
		b.println("")
	}
	if ctx != "" {
		b.printf("//line %s:%d:1\n", md, s.ContextLine)
		b.print(ctx)
		b.restore()
	}
	if split > 0 {
		b.printf("//line %s:%d:1\n", md, s.Line+1)
		b.print(decls)
		b.restore()
	}
	if len(body) > 0 {
		b.println("func _(c *plinth.Ctx) error {")
		b.printf("//line %s:%d:1\n", md, s.Line+1+split)
		b.print(strings.Join(body, "\n") + "\n")
		b.restore()
		for _, v := range topLevelVars(strings.Join(body, "\n")) {
			b.printf("\t_ = %s\n", v)
		}
		b.println("\treturn nil")
		b.println("}")
	}

	src := b.render(gen)
	imports, err = inferImports(src, explicit)
	if len(imports) > 0 {
		// Explicit imports keep their Markdown position, so that "imported
		// and not used" points at them.
		imp := []string{"import (\n"}
		for _, p := range imports {
			inferred := true
			for _, sp := range explicit {
				if sp.path == p {
					inferred = false
					alias := ""
					if sp.name != defaultName(p) {
						alias = sp.name + " "
					}
					imp = append(imp, fmt.Sprintf("//line %s:%d:%d\n%s%q\n", sp.pos.Filename, sp.pos.Line, sp.pos.Column, alias, p), restoreMark)
				}
			}
			if inferred {
				imp = append(imp, fmt.Sprintf("\t%q\n", p))
			}
		}
		imp = append(imp, ")\n\n")
		// The import block shifts every later line of the generated file:
		// the restore directives are rendered after it.
		b.insert(importAt, imp...)
	}
	files = map[string]string{"snippet.go": b.render(gen)}
	addEmbeds(files, s.Code)
	return files, imports, err
}

// lineWriter builds a generated file whose "restore" //line directives name
// the line that follows them in the final file.
type lineWriter struct {
	parts []string // text, or "\x00restore" markers
	n     int      // parts written
}

func (w *lineWriter) print(s string)               { w.parts = append(w.parts, s); w.n++ }
func (w *lineWriter) println(s string)             { w.print(s + "\n") }
func (w *lineWriter) printf(f string, args ...any) { w.print(fmt.Sprintf(f, args...)) }

// restore returns positions to the generated file, after a block's lines.
func (w *lineWriter) restore() { w.print(restoreMark) }

func (w *lineWriter) insert(at int, s ...string) {
	w.parts = slices.Insert(w.parts, at, s...)
	w.n += len(s)
}

const restoreMark = "\x00restore"

// render returns the file, whose own positions are those of dir/snippet.go.
func (w *lineWriter) render(dir string) string {
	var b strings.Builder
	line := 1
	for _, p := range w.parts {
		if p == restoreMark {
			p = fmt.Sprintf("//line %s:%d:1\n", filepath.Join(dir, "snippet.go"), line+1)
		}
		b.WriteString(p)
		line += strings.Count(p, "\n")
	}
	return b.String()
}

// importSpec is an import written in a snippet.
type importSpec struct {
	name string         // the local name: the default one, an alias, "_" or "."
	path string         // import path
	pos  token.Position // in the Markdown file
}

// takeImports removes the import declarations of src (a list of
// declarations), keeping its line count, and appends their specs to specs.
// line is the //line directive that gives src's position.
func takeImports(src, line string, specs *[]importSpec) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\n"+line+src, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	lines := strings.Split(src, "\n")
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			p, _ := strconv.Unquote(is.Path.Value)
			sp := importSpec{name: defaultName(p), path: p, pos: fset.Position(is.Path.Pos())}
			if is.Name != nil {
				sp.name, sp.pos = is.Name.Name, fset.Position(is.Name.Pos())
			}
			*specs = append(*specs, sp)
		}
		from, to := fset.PositionFor(g.Pos(), false).Line-3, fset.PositionFor(g.End(), false).Line-3
		for i := from; i <= to && i < len(lines); i++ {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n"), nil
}

// defaultName is the name a package is imported under by default: the
// last path element, without a major version suffix.
func defaultName(p string) string {
	n := path.Base(p)
	if len(n) > 1 && n[0] == 'v' && strings.Trim(n[1:], "0123456789") == "" && path.Dir(p) != "." {
		n = path.Base(path.Dir(p))
	}
	return n
}

// packageLevelNames returns the names declared by a list of declarations.
func packageLevelNames(src string) map[string]bool {
	names := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return names
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[sp.Name.Name] = true
				}
			}
		}
	}
	return names
}

// topLevelVars returns the variables that the statements of body (a
// function body) declare at its top level, in order.
func topLevelVars(body string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+body+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil
	}
	var vars []string
	seen := map[string]bool{"_": true}
	add := func(id *ast.Ident) {
		if !seen[id.Name] {
			seen[id.Name] = true
			vars = append(vars, id.Name)
		}
	}
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, e := range st.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						add(n)
					}
				}
			}
		}
	}
	return vars
}

// inferImports returns the import paths of src (a file without imports):
// the explicit ones, and the known packages whose names it uses as
// qualifiers without declaring or importing them. A syntax error is
// returned with what could be read.
func inferImports(src string, explicit []importSpec) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if f == nil {
		return nil, err
	}
	declared := map[string]bool{}
	qualifiers := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				qualifiers[id.Name] = true
			}
		case *ast.FuncDecl:
			if n.Recv == nil {
				declared[n.Name.Name] = true
			}
		case *ast.FuncType:
			for _, l := range []*ast.FieldList{n.TypeParams, n.Params, n.Results} {
				if l != nil {
					for _, fld := range l.List {
						for _, nm := range fld.Names {
							declared[nm.Name] = true
						}
					}
				}
			}
		case *ast.ValueSpec:
			for _, nm := range n.Names {
				declared[nm.Name] = true
			}
		case *ast.TypeSpec:
			declared[n.Name.Name] = true
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		}
		return true
	})
	set := map[string]bool{}
	// An explicit import stays even if unused, so that the compiler says so.
	for _, sp := range explicit {
		set[sp.path] = true
		declared[sp.name] = true
	}
	for q := range qualifiers {
		if p, ok := knownPackages[q]; ok && !declared[q] {
			set[p] = true
		}
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, err
}

// fileImports returns the import paths of a whole file.
func fileImports(src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if f == nil {
		return nil, err
	}
	var paths []string
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		paths = append(paths, p)
	}
	return paths, err
}

// addEmbeds creates a placeholder for every //go:embed pattern of code: a
// file for a name with an extension, a directory holding one file otherwise.
func addEmbeds(files map[string]string, code string) {
	for _, l := range strings.Split(code, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "//go:embed ")
		if !ok {
			continue
		}
		for _, p := range strings.Fields(rest) {
			p = strings.Trim(p, "\"`")
			p = strings.TrimPrefix(p, "all:")
			if p == "" || strings.ContainsAny(p, "*?[") {
				continue // a glob: the go command reports it if nothing matches
			}
			if path.Ext(p) != "" {
				files[p] = "placeholder\n"
			} else {
				files[p+"/placeholder.txt"] = "placeholder\n"
			}
		}
	}
}

// Module is a module of the repository.
type Module struct {
	Path string // module path
	Dir  string // absolute directory
}

// Modules returns the repository's modules (every go.mod below root, outside
// testdata and hidden directories), the root's first.
func Modules(root string) ([]Module, error) {
	var mods []Module
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		mp, err := modulePath(p)
		if err != nil {
			return err
		}
		mods = append(mods, Module{Path: mp, Dir: filepath.Dir(p)})
		return nil
	})
	sort.Slice(mods, func(i, j int) bool { return len(mods[i].Dir) < len(mods[j].Dir) })
	return mods, err
}

func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// goLine returns the go directive of a go.mod file ("go 1.26.0").
func goLine(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "go ") {
			return strings.TrimSpace(l), nil
		}
	}
	return "", fmt.Errorf("%s: no go directive", gomod)
}

// ModulesOf returns the repository modules whose packages the snippet
// imports (by longest module path prefix). A snippet that does not parse
// imports what can be read of it.
func ModulesOf(s *Snippet, absRoot string, mods []Module) []Module {
	_, imports, _ := generate(s, absRoot, absRoot)
	var out []Module
	for _, p := range imports {
		best := -1
		for i, m := range mods {
			if (p == m.Path || strings.HasPrefix(p, m.Path+"/")) && (best < 0 || len(m.Path) > len(mods[best].Path)) {
				best = i
			}
		}
		if best >= 0 && !slices.Contains(out, mods[best]) {
			out = append(out, mods[best])
		}
	}
	return out
}

// Failure is a unit that did not compile.
type Failure struct {
	Snippets []*Snippet // the blocks of the unit (several for a file= group)
	Output   string     // the compiler's or vet's messages, at Markdown positions where they fall in a block
}

// Error formats the failure for a test log.
func (f *Failure) Error() string {
	pos := make([]string, len(f.Snippets))
	for i, s := range f.Snippets {
		pos[i] = s.Pos()
	}
	return fmt.Sprintf("%s: ```go block does not compile:\n%s", strings.Join(pos, ", "), f.Output)
}

// Compile checks the snippets in one go vet run of a temporary module in
// tmp: modDir is the module whose go.sum is used (the module running the
// test), root the repository root, whose modules are required and replaced
// by their directories in the working tree. It returns the snippets that did
// not compile; an error means the check itself could not run.
func Compile(root, modDir, tmp string, snippets []*Snippet) ([]*Failure, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	mods, err := Modules(absRoot)
	if err != nil {
		return nil, err
	}
	absMod, err := filepath.Abs(modDir)
	if err != nil {
		return nil, err
	}

	const modPath = "doccheck.local"
	var units []*unit
	groups := map[string]*unit{}
	for i, s := range snippets {
		if s.SameAs != "" && s.IsFile() {
			dir := "f/" + path.Dir(s.SameAs)
			if u := groups[dir]; u != nil {
				u.snippets = append(u.snippets, s)
				continue
			}
			u := &unit{dir: dir, snippets: []*Snippet{s}}
			groups[dir] = u
			units = append(units, u)
			continue
		}
		units = append(units, &unit{dir: fmt.Sprintf("s%03d", i+1), snippets: []*Snippet{s}})
	}
	needed := map[string]bool{mods[0].Path: true}
	var failures []*Failure
	var vet []*unit
	for _, u := range units {
		gen := filepath.Join(tmp, filepath.FromSlash(u.dir))
		u.files = map[string]string{}
		for _, s := range u.snippets {
			files, imports, err := generate(s, absRoot, gen)
			if err != nil {
				u.err = err
				break
			}
			for name, src := range files {
				if _, dup := u.files[name]; dup {
					u.err = fmt.Errorf("%s: two blocks for the file %s", s.Pos(), name)
				}
				u.files[name] = src
			}
			u.imports = append(u.imports, imports...)
		}
		if u.err != nil {
			failures = append(failures, &Failure{Snippets: u.snippets, Output: errorText(u.err, absRoot)})
			continue
		}
		for _, m := range mods {
			for _, p := range u.imports {
				if p == m.Path || strings.HasPrefix(p, m.Path+"/") {
					needed[m.Path] = true
				}
			}
		}
		for name, src := range u.files {
			f := filepath.Join(gen, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
				return nil, err
			}
		}
		vet = append(vet, u)
	}

	goDirective, err := goLine(filepath.Join(absMod, "go.mod"))
	if err != nil {
		return nil, err
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module %s\n\n%s\n\n", modPath, goDirective)
	for _, m := range mods {
		if needed[m.Path] {
			fmt.Fprintf(&gomod, "require %s v0.0.0-00010101000000-000000000000\n", m.Path)
			fmt.Fprintf(&gomod, "replace %s => %s\n", m.Path, m.Dir)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod.String()), 0o644); err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(filepath.Join(absMod, "go.sum"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		return nil, err
	}
	if len(vet) == 0 {
		return failures, nil
	}

	args := []string{"vet", "-unreachable=false"}
	byPkg := map[string]*unit{}
	for _, u := range vet {
		args = append(args, "./"+u.dir)
		byPkg[modPath+"/"+u.dir] = u
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOFLAGS=-mod=mod", // the generated go.mod lists the repository's modules only
		"GOPROXY=off",      // everything comes from the working tree and the module cache
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOSUMDB=off",
	)
	out, runErr := cmd.CombinedOutput()
	if runErr == nil {
		return failures, nil
	}
	if _, ok := runErr.(*exec.ExitError); !ok {
		return nil, fmt.Errorf("go vet: %v", runErr)
	}

	// Messages come in sections headed "# package": attribute each to its
	// unit, with Markdown paths made relative to the repository root.
	outputs := map[*unit]*strings.Builder{}
	var order []*unit
	var current *unit
	var stray strings.Builder
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if h, ok := strings.CutPrefix(l, "# "); ok {
			// "# pkg", "# [pkg]" or "# pkg [pkg.test]"
			current = byPkg[strings.Trim(strings.Fields(h + " ")[0], "[]")]
			continue
		}
		l = strings.TrimPrefix(l, "vet: ")
		l = strings.ReplaceAll(l, absRoot+string(filepath.Separator), "")
		if current == nil {
			stray.WriteString(l + "\n")
			continue
		}
		if outputs[current] == nil {
			outputs[current] = &strings.Builder{}
			order = append(order, current)
		}
		outputs[current].WriteString("\t" + l + "\n")
	}
	for _, u := range order {
		failures = append(failures, &Failure{Snippets: u.snippets, Output: outputs[u].String()})
	}
	if len(order) == 0 || stray.Len() > 0 {
		return failures, fmt.Errorf("go vet %s failed in %s: %v\n%s", strings.Join(args[2:], " "), tmp, runErr, out)
	}
	return failures, nil
}

// errorText formats a generation error. Of syntax errors it keeps those in
// Markdown files: the parser sorts errors by file name, which can put a
// consequence in the generated wrapper first.
func errorText(err error, absRoot string) string {
	var lines []string
	if list, ok := err.(scanner.ErrorList); ok {
		for _, e := range list {
			if strings.HasSuffix(e.Pos.Filename, ".md") {
				lines = append(lines, e.Error())
			}
		}
		if len(lines) == 0 { // only in the wrapper: show them
			for _, e := range list {
				lines = append(lines, e.Error())
			}
		}
	} else {
		lines = strings.Split(err.Error(), "\n")
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\t" + strings.ReplaceAll(l, absRoot+string(filepath.Separator), "") + "\n")
	}
	return b.String()
}

// CheckSameAs returns an error for every snippet with file=PATH whose content
// is not that file's.
func CheckSameAs(root string, snippets []*Snippet) []error {
	var errs []error
	for _, s := range snippets {
		if s.SameAs == "" {
			continue
		}
		if !s.IsFile() {
			errs = append(errs, fmt.Errorf("%s: file=%s on a block that is not a whole file", s.Pos(), s.SameAs))
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.SameAs)))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", s.Pos(), err))
			continue
		}
		if string(data) != s.Code {
			errs = append(errs, fmt.Errorf("%s: the block differs from %s, which it claims to show; copy the file into the page", s.Pos(), s.SameAs))
		}
	}
	return errs
}
