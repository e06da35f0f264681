package doccheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// examplesDir is the module whose go.sum the blocks importing a module
// other than the core are compiled with: examples requires every released
// module that the docs show, so its go.sum holds their dependencies.
const examplesDir = root + "/examples"

// TestDocSnippets compiles every ```go block of README.md, the other
// top-level Markdown files and docs/*.md that needs only the core module
// (see the package comment for the convention), and checks that the blocks
// claiming to show a repository file (file=PATH) show it exactly.
func TestDocSnippets(t *testing.T) {
	t.Parallel()
	start := time.Now()
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := Extract(root, files)
	if err != nil {
		t.Error(err)
	}
	if len(snippets) == 0 {
		t.Fatalf("no ```go block found in %v", files)
	}
	for _, err := range CheckSameAs(root, snippets) {
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
	core := mods[0]
	var here, elsewhere []*Snippet
	for _, s := range snippets {
		if other := ModulesOf(s, absRoot, mods); len(other) > 1 || len(other) == 1 && other[0] != core {
			elsewhere = append(elsewhere, s)
		} else {
			here = append(here, s)
		}
	}

	failures, err := Compile(root, root, t.TempDir(), here)
	for _, f := range failures {
		t.Error(f)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The blocks that import another module of the repository (data,
	// redisstore, observe, ...) compile against examples' go.sum; a core
	// module copied without its siblings has none to check.
	if _, err := os.Stat(filepath.Join(examplesDir, "go.sum")); err != nil {
		t.Logf("%d blocks import other modules of the repository: not compiled, %s is absent", len(elsewhere), examplesDir)
	} else {
		failures, err = Compile(root, examplesDir, t.TempDir(), elsewhere)
		for _, f := range failures {
			t.Error(f)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d blocks of %d files compiled in %v, %d of them with examples' go.sum", len(here)+len(elsewhere), len(files), time.Since(start).Round(time.Millisecond), len(elsewhere))
}

// TestReportsMarkdownPositions checks the convention and the report on
// testdata/blocks.md: its good blocks (a fragment using app, c, inferred
// imports, a context comment and a top-level variable left unused; a
// declaration block; a whole file) compile, and each broken one fails with
// the compiler's message at its Markdown file, line and column.
func TestReportsMarkdownPositions(t *testing.T) {
	t.Parallel()
	const name = "internal/doccheck/testdata/blocks.md"
	data, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := ExtractMarkdown(name, data)
	if err != nil {
		t.Fatal(err)
	}
	failures, err := Compile(root, root, t.TempDir(), snippets)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, f := range failures {
		if len(f.Snippets) != 1 {
			t.Fatalf("a failure of %d blocks: %v", len(f.Snippets), f)
		}
		got[f.Snippets[0].Line] = f.Output
	}

	// Every block whose info line in testdata/blocks.md is followed by a
	// "want" comment must fail with that message; every other one must pass.
	wants := map[int]string{}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if w, ok := strings.CutPrefix(l, "<!-- want "); ok {
			want := strings.TrimSuffix(w, " -->")
			for j := i + 1; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], "```go") {
					wants[j+1] = want
					break
				}
			}
		}
	}
	if len(wants) < 3 {
		t.Fatalf("testdata/blocks.md: %d blocks with a want comment, expected at least 3", len(wants))
	}
	for _, s := range snippets {
		want, bad := wants[s.Line]
		switch out, failed := got[s.Line]; {
		case bad && !failed:
			t.Errorf("%s: compiled, want a failure %q", s.Pos(), want)
		case bad && !strings.Contains(out, want):
			t.Errorf("%s: failed with\n%s\nwant it to contain %q", s.Pos(), out, want)
		case !bad && failed:
			t.Errorf("%s: want it to compile, got\n%s", s.Pos(), out)
		}
	}
}

func TestExtractMarkdownErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"text\n```go\nx := 1\n", "d.md:2: code block never closed"},
		{"<!-- doccheck\nvar x int\n-->\n\nprose\n", "d.md:1: doccheck comment not followed by a ```go block"},
		{"<!-- doccheck\nvar x int\n-->\n```sh\nls\n```\n", `d.md:1: doccheck comment followed by a "sh" block`},
		{"<!-- doccheck fil=x.go -->\n```go\nx := 1\n```\n", `d.md:1: doccheck comment: unknown word "fil=x.go"`},
		{"<!-- doccheck\nvar x int\n", "d.md:1: doccheck comment never closed"},
	} {
		_, err := ExtractMarkdown("d.md", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.doc, err, tc.want)
		}
	}
}

func TestExtractMarkdown(t *testing.T) {
	doc := "# T\n\n" +
		"```` ```go ```` in a paragraph is inline code.\n\n" +
		"<!-- doccheck file=examples/x/x.go\nvar db int\n-->\n\n" +
		"```go\npackage x\n```\n\n" +
		"- item\n\n  ```go\n  app.Get(\"/\", h)\n  ```\n\n" +
		"    1. nested\n\n       ```Go\n       y := 2\n       ```\n\n" +
		"````go\nx := \"```\"\n````\n" +
		"```sh\nls\n```\n"
	got, err := ExtractMarkdown("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Snippet{
		{File: "d.md", Line: 9, Code: "package x\n", Context: "var db int\n", ContextLine: 6, SameAs: "examples/x/x.go"},
		{File: "d.md", Line: 15, Code: "app.Get(\"/\", h)\n"},
		{File: "d.md", Line: 21, Code: "y := 2\n"},
		{File: "d.md", Line: 25, Code: "x := \"```\"\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if *got[i] != want[i] {
			t.Errorf("block %d: got %+v, want %+v", i, *got[i], want[i])
		}
	}
}

func TestInferredImports(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []string
	}{
		// a local variable named like a package is not an import
		{"api := app.Group(\"/api\")\napi.Get(\"/x\", h)\n", []string{"github.com/plinth-go/plinth"}},
		{"a := api.New(app, api.Config{})\n_ = a\n", []string{"github.com/plinth-go/plinth", "github.com/plinth-go/plinth/api"}},
		{"func f(http int) int { return http }\n", []string{"github.com/plinth-go/plinth"}},
		{"import mrand \"math/rand/v2\"\n\nn := mrand.IntN(3)\nd := time.Second\n", []string{"github.com/plinth-go/plinth", "math/rand/v2", "time"}},
		{"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n", []string{"fmt"}},
	} {
		_, got, err := generate(&Snippet{File: "d.md", Line: 1, Code: tc.code}, "/r", "/g")
		if err != nil {
			t.Errorf("%q: %v", tc.code, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: imports %q, want %q", tc.code, got, tc.want)
		}
	}
}
