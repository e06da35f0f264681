package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var placeholderRE = regexp.MustCompile(`__[A-Z_]+__`)

// Every template renders to gofmt-clean Go files with no placeholder left,
// and has what every project needs.
func TestTemplatesRender(t *testing.T) {
	vars := map[string]string{"__MODULE__": "example.com/app", "__NAME__": "app", "__GO_VERSION__": "1.26", "__DOCKER_NOTE__": ""}
	for _, name := range templateNames() {
		files, err := renderTemplate(name, vars)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]projectFile{}
		for _, f := range files {
			have[f.Path] = f
			if m := placeholderRE.Find(f.Data); m != nil {
				t.Errorf("%s/%s: placeholder %s left", name, f.Path, m)
			}
			if strings.HasSuffix(f.Path, ".go") {
				src, err := format.Source(f.Data)
				if err != nil {
					t.Errorf("%s/%s: %v", name, f.Path, err)
				} else if !bytes.Equal(src, f.Data) {
					t.Errorf("%s/%s is not gofmt-clean", name, f.Path)
				}
			}
		}
		for _, want := range []string{"main.go", "README.md", "Dockerfile", ".gitignore", ".dockerignore", ".ci/run"} {
			if _, ok := have[want]; !ok {
				t.Errorf("%s: no %s", name, want)
			}
		}
		if f := have[".ci/run"]; !f.Exec {
			t.Errorf("%s: .ci/run is not executable", name)
		}
		if readme := string(have["README.md"].Data); !strings.Contains(readme, "go run .") || !strings.Contains(readme, "go test ./...") {
			t.Errorf("%s: the README lacks its two commands", name)
		} else if strings.Contains(readme, "`plinth ") && !strings.Contains(readme, "go install github.com/plinth-go/plinth/cmd/plinth@latest") {
			t.Errorf("%s: the README names plinth commands but not how to install plinth", name)
		}
		if d := string(have["Dockerfile"].Data); strings.Count(d, "FROM ") != 2 || !strings.Contains(d, "distroless") {
			t.Errorf("%s: the Dockerfile is not a two-stage build onto distroless:\n%s", name, d)
		}
		if _, ok := have["go.mod"]; ok {
			t.Errorf("%s: a template must not hold go.mod (plinth new writes it)", name)
		}
	}
}

func TestProjectPath(t *testing.T) {
	for in, want := range map[string]string{
		"main.go.tmpl":       "main.go",
		"_gitignore":         ".gitignore",
		"_ci/run":            ".ci/run",
		"users/repo.go.tmpl": "users/repo.go",
		"migrations/a.sql":   "migrations/a.sql",
	} {
		if got := projectPath(in); got != want {
			t.Errorf("projectPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The modules a project needs: what its Go files import, the core always,
// and from a checkout what those require in turn, each with a replace.
func TestGoMod(t *testing.T) {
	root := checkout(t)
	src, err := checkoutSource(root)
	if err != nil {
		t.Fatal(err)
	}
	files := []projectFile{{Path: "main.go", Data: []byte(`package main

import (
	_ "github.com/plinth-go/plinth/api"
	_ "github.com/plinth-go/plinth/data"
	_ "example.com/other"
)
`)}}
	mods, err := src.modules(files)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(mods, " ") != corePath+" "+corePath+"/data" {
		t.Errorf("modules: %q", mods)
	}
	gomod := string(src.goMod("example.com/app", mods))
	for _, want := range []string{
		"module example.com/app\n",
		"\t" + corePath + " " + placeholderVersion + "\n",
		"\t" + corePath + " => " + root + "\n",
		"\t" + corePath + "/data => " + filepath.Join(root, "data") + "\n",
	} {
		if !strings.Contains(gomod, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}

	// A release: required at its version, no replace.
	rel := releaseSource("v1.2.3")
	mods, _ = rel.modules(files)
	gomod = string(rel.goMod("example.com/app", mods))
	if !strings.Contains(gomod, corePath+"/data v1.2.3") || strings.Contains(gomod, "replace") {
		t.Errorf("release go.mod:\n%s", gomod)
	}

	// A Plinth module that requires another: both are replaced.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+corePath+"\n"), 0o644)
	for sub, gm := range map[string]string{
		"a": "module " + corePath + "/a\n\nrequire (\n\t" + corePath + " v0.0.0\n\t" + corePath + "/b v0.0.0\n)\n",
		"b": "module " + corePath + "/b\n\nrequire " + corePath + " v0.0.0\n\nreplace " + corePath + " => ..\n",
	} {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
		os.WriteFile(filepath.Join(dir, sub, "go.mod"), []byte(gm), 0o644)
	}
	fake, err := checkoutSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	mods, err = fake.modules([]projectFile{{Path: "main.go", Data: []byte("package main\nimport _ \"" + corePath + "/a/x\"\n")}})
	if err != nil || strings.Join(mods, " ") != corePath+" "+corePath+"/a "+corePath+"/b" {
		t.Errorf("transitive modules: %q %v", mods, err)
	}
}
