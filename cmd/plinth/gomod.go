package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// placeholderVersion is the version a module requires of a module that a
// replace directive supplies, as `go mod tidy` writes it.
const placeholderVersion = "v0.0.0-00010101000000-000000000000"

// goDirective is the go line of a new project's go.mod: Plinth's minimum.
const goDirective = "1.26.0"

// knownModules are Plinth's modules other than the core, by path below
// it. They are released with the core, under the same version. With
// --replace, the checkout's own go.mod files are read instead.
// TestKnownModulesMatchTheWorkspace holds the list equal to go.work's
// modules, less the benchmarks and the examples.
var knownModules = []string{
	"cache/ottercache",
	"data",
	"jobs/riverjobs",
	"mail/smtpmail",
	"middleware/compress",
	"observe",
	"redisstore",
	"ws",
}

// plinthSource says where a new project gets Plinth from: a released
// version from the module proxy, or a local checkout (--replace).
type plinthSource struct {
	version  string            // the version required of every Plinth module
	checkout string            // absolute path of the checkout; "" for a release
	dirs     map[string]string // checkout only: module path -> its directory
}

// releaseSource is Plinth at version v from the module proxy.
func releaseSource(v string) *plinthSource {
	dirs := map[string]string{corePath: ""}
	for _, m := range knownModules {
		dirs[corePath+"/"+m] = ""
	}
	return &plinthSource{version: v, dirs: dirs}
}

// checkoutSource is Plinth from the checkout in dir: every go.mod below it
// whose module path is Plinth's core or below it (testdata, hidden and
// vendor directories are skipped).
func checkoutSource(dir string) (*plinthSource, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if mod, err := modulePathOf(filepath.Join(abs, "go.mod")); err != nil || mod != corePath {
		if err != nil {
			return nil, usagef("--replace %s: not a Plinth checkout: %v", dir, err)
		}
		return nil, usagef("--replace %s: not a Plinth checkout: its go.mod is module %s, want %s", dir, mod, corePath)
	}
	src := &plinthSource{version: placeholderVersion, checkout: abs, dirs: map[string]string{}}
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != abs && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		mod, err := modulePathOf(p)
		if err == nil && (mod == corePath || strings.HasPrefix(mod, corePath+"/")) {
			src.dirs[mod] = filepath.Dir(p)
		}
		return nil
	})
	return src, err
}

// modulePathOf returns the module path declared by the go.mod file at p.
func modulePathOf(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", p)
}

// moduleOf returns the Plinth module that provides package pkg: the
// longest known module path that is pkg or a prefix of it.
func (s *plinthSource) moduleOf(pkg string) string {
	best := ""
	for m := range s.dirs {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// modules returns the Plinth modules a project of files needs: the core,
// every module whose packages the Go files import, and, from a checkout,
// the Plinth modules those require in turn (their replace directives do
// not apply to the project, so the project needs its own).
func (s *plinthSource) modules(files []projectFile) ([]string, error) {
	need := map[string]bool{corePath: true}
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		af, err := parser.ParseFile(fset, f.Path, f.Data, parser.ImportsOnly)
		if err != nil {
			return nil, fmt.Errorf("template file %s: %v", f.Path, err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if m := s.moduleOf(p); m != "" {
				need[m] = true
			}
		}
	}
	if s.checkout != "" {
		queue := slices.Collect(maps.Keys(need))
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			reqs, err := plinthRequires(filepath.Join(s.dirs[m], "go.mod"))
			if err != nil {
				return nil, err
			}
			for _, r := range reqs {
				if _, ok := s.dirs[r]; ok && !need[r] {
					need[r] = true
					queue = append(queue, r)
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(need)), nil
}

// plinthRequires returns the Plinth modules that the go.mod file at p
// requires.
func plinthRequires(p string) ([]string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var out []string
	inRequire := false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case f[0] == "require" && len(f) > 1 && f[1] == "(":
			inRequire = true
			continue
		case f[0] == ")":
			inRequire = false
			continue
		case f[0] == "require" && len(f) >= 3:
			f = f[1:]
		case !inRequire:
			continue
		}
		if f[0] == corePath || strings.HasPrefix(f[0], corePath+"/") {
			out = append(out, f[0])
		}
	}
	return out, nil
}

// goMod returns the go.mod of a project with module path module that
// requires mods, with a replace directive for each when s is a checkout.
func (s *plinthSource) goMod(module string, mods []string) []byte {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	fmt.Fprintf(w, "module %s\n\ngo %s\n\nrequire (\n", module, goDirective)
	for _, m := range mods {
		fmt.Fprintf(w, "\t%s %s\n", m, s.version)
	}
	fmt.Fprintf(w, ")\n")
	if s.checkout != "" {
		fmt.Fprintf(w, "\n// Plinth from a local checkout (plinth new --replace): drop these lines to\n// use a released version instead.\nreplace (\n")
		for _, m := range mods {
			dir := s.dirs[m]
			if strings.ContainsAny(dir, " \t\"'`\\") {
				dir = strconv.Quote(dir)
			}
			fmt.Fprintf(w, "\t%s => %s\n", m, dir)
		}
		fmt.Fprintf(w, ")\n")
	}
	w.Flush()
	return b.Bytes()
}
