package metrics_test

import (
	"path/filepath"
	"testing"

	"github.com/plinth-go/plinth/internal/doccheck"
)

// TestDocSnippets compiles the ```go blocks of the repository's
// documentation that import this module (internal/doccheck's package comment
// gives the convention). The core's TestDocSnippets compiles the others; it
// leaves these here because client_golang is in this module's go.sum, not
// the core's.
func TestDocSnippets(t *testing.T) {
	const root = "../.."
	files, err := doccheck.DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := doccheck.Extract(root, files)
	if err != nil {
		t.Error(err)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := doccheck.Modules(absRoot)
	if err != nil {
		t.Fatal(err)
	}
	var mine []*doccheck.Snippet
	for _, s := range snippets {
		for _, m := range doccheck.ModulesOf(s, absRoot, mods) {
			if m.Path == "github.com/plinth-go/plinth/observe/metrics" {
				mine = append(mine, s)
			}
		}
	}
	if len(mine) == 0 {
		t.Fatal("no ```go block imports observe/metrics, yet docs/observability.md has a Metrics section with some: is the selection broken?")
	}
	failures, err := doccheck.Compile(root, ".", t.TempDir(), mine)
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
