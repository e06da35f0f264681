package main

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests release a repository of their own, made in a temporary
// directory: a core module example.com/lib (package lib, func Hello) and a
// satellite example.com/lib/sat that requires it, joined by go.work as
// this repository's modules are, plus an examples module that is never
// released.
var fixture = map[string]string{
	"go.work": `go 1.26.0

use (
	.
	./examples
	./sat
)

replace (
	example.com/lib v0.1.0 => ./
	example.com/lib/sat v0.1.0 => ./sat
)
`,
	"go.mod":           "module example.com/lib\n\ngo 1.26.0\n",
	"lib.go":           "// Package lib says hello.\npackage lib\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n\n// Bye leaves.\nfunc Bye() string { return \"bye\" }\n",
	"lib_test.go":      "package lib\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n",
	"internal/x/x.go":  "package x\n\n// X is internal.\nconst X = 1\n",
	"sat/go.mod":       "module example.com/lib/sat\n\ngo 1.26.0\n\nrequire example.com/lib v0.1.0\n",
	"sat/sat.go":       "// Package sat uses lib.\npackage sat\n\nimport \"example.com/lib\"\n\n// Twice greets twice.\nfunc Twice() string { return lib.Hello() + lib.Hello() }\n",
	"examples/go.mod":  "module example.com/lib/examples\n\ngo 1.26.0\n\nrequire example.com/lib/sat v0.1.0\n\nrequire example.com/lib v0.1.0 // indirect\n",
	"examples/main.go": "package main\n\nimport \"example.com/lib/sat\"\n\nfunc main() { println(sat.Twice()) }\n",
	"README.md":        "lib\n",
}

// newRepo writes the fixture into a git repository and commits it.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	for name, content := range fixture {
		write(t, dir, name, content)
	}
	gitRun(t, dir, "init", "-q")
	commit(t, dir, "the fixture")
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func commit(t *testing.T, dir, msg string) {
	t.Helper()
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", msg)
}

// release runs the tool on the repository in dir and returns its output.
func release(t *testing.T, dir, proxy, version string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(config{version: version, proxy: proxy, root: dir, log: &out})
	return out.String(), err
}

func TestRefusesBadVersions(t *testing.T) {
	dir := newRepo(t)
	proxy := t.TempDir()
	for _, v := range []string{"", "0.1.0", "v0.1", "v1", "v0.1.0+build", "v2.0.0", "latest"} {
		if _, err := release(t, dir, proxy, v); err == nil {
			t.Errorf("version %q: released, want a refusal", v)
		}
	}
	if es, _ := os.ReadDir(proxy); len(es) != 0 {
		t.Errorf("the refusals wrote %d entries into the proxy", len(es))
	}
}

func TestRefusesDirtyTree(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "lib.go", fixture["lib.go"]+"\n// Changed.\n")
	_, err := release(t, dir, t.TempDir(), "v0.1.0")
	if err == nil || !strings.Contains(err.Error(), "dirty") {
		t.Errorf("a changed file: %v, want a refusal naming the dirty tree", err)
	}
	gitRun(t, dir, "checkout", "--", "lib.go")
	write(t, dir, "notes.txt", "untracked\n")
	if _, err := release(t, dir, t.TempDir(), "v0.1.0"); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("an untracked file: %v, want a refusal naming it", err)
	}
}

// TestReleaseThenPatch releases v0.1.0 and reads the proxy as the go
// command will; then refuses v0.1.0 again, refuses a patch release that
// removes an exported name, and makes the minor release that lists it.
func TestReleaseThenPatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy, go build and go vet on module copies (-short)")
	}
	dir := newRepo(t)
	proxy := t.TempDir()
	out, err := release(t, dir, proxy, "v0.1.0")
	if err != nil {
		t.Fatalf("v0.1.0: %v\n%s", err, out)
	}
	for _, want := range []string{"ok   example.com/lib v0.1.0", "ok   example.com/lib/sat v0.1.0", "  v0.1.0\n", "  sat/v0.1.0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "examples") {
		t.Errorf("the examples module was released:\n%s", out)
	}
	for _, f := range []string{"list", "v0.1.0.info", "v0.1.0.mod", "v0.1.0.zip"} {
		for _, m := range []string{"example.com/lib", "example.com/lib/sat"} {
			if _, err := os.Stat(filepath.Join(proxy, m, "@v", f)); err != nil {
				t.Errorf("the proxy lacks %s/@v/%s: %v", m, f, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(proxy, "example.com/lib/examples")); err == nil {
		t.Error("the proxy holds the examples module")
	}
	satMod, _ := os.ReadFile(filepath.Join(proxy, "example.com/lib/sat/@v/v0.1.0.mod"))
	if !strings.Contains(string(satMod), "require example.com/lib v0.1.0") {
		t.Errorf("sat's go.mod:\n%s", satMod)
	}
	names := zipNames(t, filepath.Join(proxy, "example.com/lib/@v/v0.1.0.zip"))
	for _, n := range names {
		if strings.Contains(n, "/sat/") || strings.Contains(n, "/examples/") {
			t.Errorf("the core's zip holds %s, a file of another module", n)
		}
	}
	if !strings.Contains(strings.Join(names, " "), "example.com/lib@v0.1.0/internal/x/x.go") {
		t.Errorf("the core's zip lacks its internal package: %v", names)
	}

	if _, err := release(t, dir, proxy, "v0.1.0"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("v0.1.0 again: %v, want a refusal", err)
	}

	// Bye removed: incompatible.
	write(t, dir, "lib.go", strings.Replace(fixture["lib.go"], "\n// Bye leaves.\nfunc Bye() string { return \"bye\" }\n", "", 1))
	commit(t, dir, "remove Bye")
	out, err = release(t, dir, proxy, "v0.1.1")
	if err == nil || !strings.Contains(err.Error(), "Bye") || !strings.Contains(err.Error(), "patch") {
		t.Fatalf("a patch release without Bye: %v, want a refusal naming Bye\n%s", err, out)
	}
	if vs, _ := versionsIn(proxy, "example.com/lib"); strings.Join(vs, " ") != "v0.1.0" {
		t.Errorf("after the refusal the proxy lists %v, want v0.1.0 only", vs)
	}
	out, err = release(t, dir, proxy, "v0.2.0")
	if err != nil {
		t.Fatalf("v0.2.0: %v\n%s", err, out)
	}
	if !strings.Contains(out, "incompatible since v0.1.0") || !strings.Contains(out, "Bye") {
		t.Errorf("v0.2.0 does not list the removal of Bye:\n%s", out)
	}
	if vs, _ := versionsIn(proxy, "example.com/lib/sat"); strings.Join(vs, " ") != "v0.1.0 v0.2.0" {
		t.Errorf("sat's list: %v", vs)
	}
}

// TestRefusesUntidyModule: a satellite whose go.mod lacks a requirement is
// refused before the proxy is written.
func TestRefusesUntidyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy on module copies (-short)")
	}
	dir := newRepo(t)
	write(t, dir, "sat/other.go", "package sat\n\nimport \"golang.org/x/mod/semver\"\n\n// Valid checks v.\nfunc Valid(v string) bool { return semver.IsValid(v) }\n")
	commit(t, dir, "an import without its requirement")
	proxy := t.TempDir()
	out, err := release(t, dir, proxy, "v0.1.0")
	if err == nil || !strings.Contains(out, "FAIL example.com/lib/sat") {
		t.Fatalf("an untidy satellite: %v, want a refusal\n%s", err, out)
	}
	if es, _ := os.ReadDir(proxy); len(es) != 0 {
		t.Errorf("the refused release wrote %d entries into the proxy", len(es))
	}
}

func zipNames(t *testing.T, file string) []string {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}

func TestTagOf(t *testing.T) {
	for dir, want := range map[string]string{".": "v0.3.0", "data": "data/v0.3.0", "jobs/riverjobs": "jobs/riverjobs/v0.3.0"} {
		if got := tagOf(dir, "v0.3.0"); got != want {
			t.Errorf("tagOf(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestReleaseKind(t *testing.T) {
	for _, c := range []struct{ prev, v, want string }{
		{"v0.1.0", "v0.1.1", "patch"}, {"v0.1.3", "v0.2.0", "minor"}, {"v0.9.0", "v1.0.0", "major"}, {"v1.2.0", "v1.3.0", "minor"},
	} {
		if got := releaseKind(c.prev, c.v); got != c.want {
			t.Errorf("releaseKind(%s, %s) = %s, want %s", c.prev, c.v, got, c.want)
		}
	}
}
