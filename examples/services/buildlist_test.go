package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// "An app that imports only the core adds no module to its build list":
// every package that any package of the core module imports (jobs, cache
// and mail included) is the standard library's, the core module's or
// golang.org/x's.
// (The backends, River, go-redis, otter and go-mail, are in modules of
// their own, as this example's go.mod shows.)
func TestCheckCoreBuildList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list (-short)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Every package of the core module (its nested modules, the backends,
	// are not part of ./... here), jobs, cache and mail among them.
	pkgs := []string{"./..."}
	for _, p := range []string{"jobs", "cache", "mail"} {
		if _, err := os.Stat(filepath.Join(root, p, "doc.go")); err != nil {
			t.Errorf("%s is not in the core: %v", p, err)
		}
	}
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}{{end}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		seen++
		pkg, mod, _ := strings.Cut(line, " ")
		if mod != "github.com/plinth-go/plinth" && !strings.HasPrefix(mod, "golang.org/x/") {
			t.Errorf("package %s of module %q is in the core's build (want the standard library, the core and golang.org/x only)", pkg, mod)
		}
	}
	if seen == 0 {
		t.Fatalf("go list listed no package:\n%s", out)
	}
	// And the module graph: the core's go.mod requires nothing else.
	cmd = exec.Command("go", "list", "-m", "all")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		mod, _, _ := strings.Cut(line, " ")
		if mod != "github.com/plinth-go/plinth" && !strings.HasPrefix(mod, "golang.org/x/") {
			t.Errorf("the core module's build list has %s", line)
		}
	}
}
