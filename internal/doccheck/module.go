package doccheck

import (
	"path/filepath"
	"testing"
)

// CheckModule is the TestDocSnippets of a repository module other than the
// core (its dependencies are in its own go.sum): it compiles the ```go
// blocks of the documentation that import modPath, from the module's
// directory, root being the repository root seen from there. where names
// the page that has such blocks, for the failure when none is found (the
// selection would be broken).
func CheckModule(t *testing.T, root, modPath, where string) {
	t.Helper()
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := Extract(root, files)
	if err != nil {
		t.Error(err)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := Modules(absRoot)
	if err != nil {
		t.Fatal(err)
	}
	var mine []*Snippet
	for _, s := range snippets {
		for _, m := range ModulesOf(s, absRoot, mods) {
			if m.Path == modPath {
				mine = append(mine, s)
			}
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no ```go block imports %s, yet %s has some: is the selection broken?", modPath, where)
	}
	failures, err := Compile(root, ".", t.TempDir(), mine)
	for _, f := range failures {
		t.Error(f)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range mine {
		t.Logf("compiled %s", s.Pos())
	}
}
