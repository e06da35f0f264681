package modcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// workModules returns go.work's modules: directory and module path. It
// skips t when go.work is absent (the core copied alone has no siblings to
// check).
func workModules(t *testing.T) (dirs, paths []string) {
	t.Helper()
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if os.IsNotExist(err) {
		t.Skip("no go.work beside the core: there are no other modules to check")
	}
	if err != nil {
		t.Fatal(err)
	}
	use := regexp.MustCompile(`(?m)^\s*(\.[^\s)]*)\s*$`)
	modLine := regexp.MustCompile(`(?m)^module\s+(\S+)`)
	for _, m := range use.FindAllStringSubmatch(string(work), -1) {
		gomod, err := os.ReadFile(filepath.Join(root, m[1], "go.mod"))
		if err != nil {
			t.Fatalf("go.work uses %s: %v", m[1], err)
		}
		mm := modLine.FindSubmatch(gomod)
		if mm == nil {
			t.Fatalf("%s/go.mod has no module line", m[1])
		}
		dirs, paths = append(dirs, m[1]), append(paths, string(mm[1]))
	}
	if len(dirs) < 2 {
		t.Fatalf("go.work lists %d modules", len(dirs))
	}
	return dirs, paths
}

// TestNoForeignInternal: no package of any module, tests included, imports
// another module's internal package (its direct imports, as go list gives
// them; what its dependencies import is their own business).
func TestNoForeignInternal(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the packages of every module (-short)")
	}
	dirs, paths := workModules(t)
	for i, dir := range dirs {
		cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}|{{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
		cmd.Dir = filepath.Join(root, dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", dir, err)
		}
		for line := range strings.Lines(string(out)) {
			pkg, imports, _ := strings.Cut(strings.TrimSpace(line), "|")
			for _, p := range Foreign(paths[i], strings.Fields(imports), paths) {
				t.Errorf("%s (module %s) imports %s, another module's internal package: export what it needs or keep a copy (modcheck.Copies)", pkg, paths[i], p)
			}
		}
	}
}

// TestCopiesEqual: every copy in Copies has the same files as the core's
// package, byte for byte.
func TestCopiesEqual(t *testing.T) {
	for orig, copies := range Copies {
		for _, c := range copies {
			if _, err := os.Stat(filepath.Join(root, c)); os.IsNotExist(err) {
				t.Logf("%s is absent (its module is not beside the core): not compared", c)
				continue
			}
			diffs, err := Differences(root, orig, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
		}
	}
}

// TestDifferences: a copy with a changed file, a missing one and an extra
// one is reported three times; an exact copy not at all.
func TestDifferences(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/x.go", "package x\n")
	write("a/y.go", "package x // y\n")
	write("same/x.go", "package x\n")
	write("same/y.go", "package x // y\n")
	write("bad/x.go", "package x // changed\n")
	write("bad/z.go", "package x\n")
	if d, err := Differences(dir, "a", "same"); err != nil || len(d) != 0 {
		t.Errorf("an exact copy: %v, %v", d, err)
	}
	d, err := Differences(dir, "a", "bad")
	if err != nil || len(d) != 3 {
		t.Fatalf("a broken copy: %d differences %v, %v; want 3", len(d), d, err)
	}
	for i, want := range []string{"bad/x.go differs", "bad/y.go is missing", "bad/z.go is not in a"} {
		if !strings.Contains(d[i], want) {
			t.Errorf("difference %d = %q, want %q", i, d[i], want)
		}
	}
}

// TestForeign: an import of another module's internal package is found,
// the module's own internal packages, third-party internals and ordinary
// packages are not.
func TestForeign(t *testing.T) {
	mods := []string{"example.com/lib", "example.com/lib/data", "example.com/lib/redisstore"}
	got := Foreign("example.com/lib/data", []string{
		"example.com/lib/internal/envconf",      // the core's: foreign
		"example.com/lib/data/internal/envconf", // its own
		"example.com/lib/redisstore/internal/x", // a sibling's: foreign
		"example.com/lib/web",                   // not internal
		"golang.org/x/net/internal/socks",       // not the repository's
		"example.com/lib/internalx",             // not an internal element
	}, mods)
	want := []string{"example.com/lib/internal/envconf", "example.com/lib/redisstore/internal/x"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Foreign = %v, want %v", got, want)
	}
	if got := Foreign("example.com/lib", []string{"example.com/lib/internal/envconf", "example.com/lib/data/internal/envconf"}, mods); len(got) != 1 || got[0] != "example.com/lib/data/internal/envconf" {
		t.Errorf("Foreign from the core = %v, want the data module's internal package only", got)
	}
}
