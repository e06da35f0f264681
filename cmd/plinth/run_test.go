package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plinth-go/plinth/internal/syncbuf"
)

// Every bad command line gets its own message on standard error and exit
// status 2, and writes nothing.
func TestBadArguments(t *testing.T) {
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "main.go"), []byte("package main\n"), 0o644)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	notCheckout := t.TempDir()
	fresh := filepath.Join(tmp, "fresh")
	root := checkout(t)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"serve"}, `unknown command "serve"`},
		{"new without PATH", []string{"new"}, "missing PATH"},
		{"new with two PATHs", []string{"new", fresh, fresh + "2", "--replace", root}, "one PATH expected, got 2"},
		{"unknown template", []string{"new", fresh, "--template", "blog", "--replace", root}, `unknown template "blog"; the templates are api, minimal, modular, web`},
		{"unknown flag", []string{"new", fresh, "--tempalte", "api"}, "flag provided but not defined: -tempalte"},
		{"flag without value", []string{"new", fresh, "--template"}, "flag needs an argument: -template"},
		{"module path with a space", []string{"new", fresh, "--module", "example.com/my app", "--replace", root}, `invalid module path "example.com/my app": element "my app" has the character ' '`},
		{"local module path", []string{"new", fresh, "--module", "./myapp", "--replace", root}, `invalid module path "./myapp": it is a local path`},
		{"module path with a double slash", []string{"new", fresh, "--module", "example.com//x", "--replace", root}, "empty element"},
		{"module path from a bad directory name", []string{"new", filepath.Join(tmp, "my app"), "--replace", root}, `cannot make a module path from the directory name "my app"`},
		{"directory not empty", []string{"new", full, "--replace", root}, "is not empty (it has main.go)"},
		{"PATH is a file", []string{"new", file, "--replace", root}, "exists and is not a directory"},
		{"replace is not a checkout", []string{"new", fresh, "--replace", notCheckout}, "not a Plinth checkout"},
		{"no release to require", []string{"new", fresh}, "pass --replace DIR"},
		{"routes with two packages", []string{"routes", "./a", "./b"}, "routes takes one package, got 2 arguments"},
		{"openapi with a bad flag", []string{"openapi", "--yaml"}, "flag provided but not defined: -yaml"},
		{"dev with two packages", []string{"dev", ".", "."}, "dev takes one package"},
		{"version with an argument", []string{"version", "--short"}, "version takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := cli(&environment{}, tc.args...)
			if code != exitUsage {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a refused plinth new created its directory")
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("a refused plinth new wrote into a non-empty directory: %d entries", len(entries))
	}
}

func TestHelpAndVersion(t *testing.T) {
	var out, errOut syncbuf.Buffer
	code := run([]string{"version"}, &out, &errOut)
	stdout := out.String()
	if code != 0 || !strings.HasPrefix(stdout, "plinth ") || !strings.Contains(stdout, runtime.Version()) {
		t.Errorf("version: %d %q", code, stdout)
	}
	stdout, _, code = cli(&environment{}, "help")
	if code != 0 || !strings.Contains(stdout, "plinth new PATH") {
		t.Errorf("help: %d %q", code, stdout)
	}
	for _, cmd := range []string{"new", "routes", "openapi", "dev"} {
		_, stderr, code := cli(&environment{}, cmd, "-h")
		if code != 0 || !strings.Contains(stderr, "Usage: plinth "+cmd) {
			t.Errorf("%s -h: %d %q", cmd, code, stderr)
		}
	}
}

// TestCheckModulePath: what `go mod init` accepts (checked by hand with go
// 1.26: shop, Shop, example.com/shop, my+pkg, .x and std are accepted; the
// bad ones below are refused) and nothing else.
func TestCheckModulePath(t *testing.T) {
	for _, ok := range []string{"shop", "Shop", "example.com/shop", "example.com/app", "github.com/you/my-app",
		"example.com/a/b.c/d_e~f", "gitlab.example.org/X", "Example.com/app", "my+pkg", ".x", "std", "a~b"} {
		if err := checkModulePath(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/example.com/app", "example.com/app/", "example.com//app", "example.com/./app",
		"example.com/../app", "example.com/app.", "-example.com/app", "example.com/ä", "example.com/a b", "a b",
		"./shop", "../shop", ".", "go", "toolchain", "con", "example.com/nul.txt", "a/x~1", "x."} {
		if err := checkModulePath(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if got := defaultModulePath("MyApp"); got != "example.com/myapp" {
		t.Errorf("defaultModulePath: %q", got)
	}
}
