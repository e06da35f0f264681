package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// unreleased are the modules of the workspace that are not part of a
// Plinth release, each with its reason: a new project never imports them,
// so knownModules leaves them out.
var unreleased = map[string]string{
	"bench":    "benchmarks against peer frameworks, and the api package's conformance suite",
	"examples": "example applications",
	"internal": "the release tool (internal/release), never imported",
}

// TestKnownModulesMatchTheWorkspace: knownModules, which a new project
// created from a release resolves imports with, lists every module of the
// workspace (go.work's use lines, each module path read from its go.mod)
// except the core and the unreleased ones, and nothing else: a module
// added, renamed or removed without updating the list fails here.
func TestKnownModulesMatchTheWorkspace(t *testing.T) {
	root := filepath.Join("..", "..")
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if os.IsNotExist(err) {
		t.Skip("no go.work: the core module outside its repository has no workspace to compare the list with")
	}
	if err != nil {
		t.Fatalf("the checkout's go.work: %v", err)
	}
	var want []string
	for _, dir := range workUses(string(work)) {
		mod, err := modulePathOf(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			t.Errorf("go.work uses %s: %v", dir, err)
			continue
		}
		if mod == corePath {
			continue
		}
		rel, ok := strings.CutPrefix(mod, corePath+"/")
		if !ok {
			t.Errorf("go.work uses %s, module %s: not below %s", dir, mod, corePath)
			continue
		}
		if rel != filepath.ToSlash(filepath.Clean(dir)) {
			t.Errorf("go.work uses %s, whose module path is %s: the path below the core is not the directory", dir, mod)
		}
		if first, _, _ := strings.Cut(rel, "/"); unreleased[rel] != "" || unreleased[first] != "" {
			continue
		}
		want = append(want, rel)
	}
	if len(want) == 0 {
		t.Fatalf("go.work lists no released module:\n%s", work)
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(knownModules))
	for _, m := range want {
		if !slices.Contains(got, m) {
			t.Errorf("knownModules misses %s (a module of go.work)", m)
		}
	}
	for _, m := range got {
		if !slices.Contains(want, m) {
			t.Errorf("knownModules lists %s, which is not a released module of go.work", m)
		}
	}
}

// workUses returns the directories a go.work file's use directives name,
// in the block form and the one-line form.
func workUses(work string) []string {
	var dirs []string
	block := false
	for line := range strings.Lines(work) {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 1:
			dirs = append(dirs, strings.Trim(f[0], `"`))
		case len(f) == 2 && f[0] == "use" && f[1] == "(":
			block = true
		case len(f) == 2 && f[0] == "use":
			dirs = append(dirs, strings.Trim(f[1], `"`))
		}
	}
	return dirs
}

func TestWorkUses(t *testing.T) {
	got := workUses("go 1.26.0\n\nuse ./one // a comment\nuse (\n\t.\n\t./a/b\n\t\"./c\"\n)\n")
	if want := []string{"./one", ".", "./a/b", "./c"}; !slices.Equal(got, want) {
		t.Errorf("workUses = %q, want %q", got, want)
	}
}
