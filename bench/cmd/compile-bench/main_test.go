package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const appsDir = "../../compile/apps"

// TestApps checks the peers' apps: one directory per framework and
// template, each its own module, each with the handler text that the
// rebuild edits.
func TestApps(t *testing.T) {
	var want []string
	for _, a := range allApps() {
		if !isPlinth(a) {
			want = append(want, a)
		}
	}
	entries, err := os.ReadDir(appsDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("apps in %s: %v, want %v", appsDir, got, want)
	}
	for _, name := range want {
		dir := filepath.Join(appsDir, name)
		for _, f := range []string{"go.mod", "go.sum"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil && !(f == "go.sum" && name == "std-minimal") {
				t.Errorf("%s: %v", name, err)
			}
		}
		_, tmpl, _ := strings.Cut(name, "-")
		if _, err := findEdit(dir, editMarker[tmpl]); err != nil {
			t.Error(err)
		}
	}
}

// TestAPIAppsAlike checks that the api apps share their store and their
// test table, so that they differ only in the framework.
func TestAPIAppsAlike(t *testing.T) {
	var store, table []byte
	for _, fw := range frameworks[1:] {
		dir := filepath.Join(appsDir, fw+"-api")
		s, err := os.ReadFile(filepath.Join(dir, "store.go"))
		if err != nil {
			t.Fatal(err)
		}
		test, err := os.ReadFile(filepath.Join(dir, "app_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		i, j := bytes.Index(test, []byte("func TestTasks(")), bytes.Index(test, []byte("func openTestStore("))
		if i < 0 || j < i {
			t.Fatalf("%s/app_test.go: no TestTasks followed by openTestStore", dir)
		}
		if store == nil {
			store, table = s, test[i:j]
			continue
		}
		if !bytes.Equal(s, store) {
			t.Errorf("%s/store.go differs from std-api's", dir)
		}
		if !bytes.Equal(test[i:j], table) {
			t.Errorf("%s/app_test.go: TestTasks differs from std-api's", dir)
		}
	}
}

// TestPinnedVersions checks that the apps require the peers at the versions
// the bench module uses, and SQLite at the data layer's.
func TestPinnedVersions(t *testing.T) {
	pins := requires(t, "../../go.mod")
	for k, v := range requires(t, "../../../data/go.mod") {
		if strings.HasPrefix(k, "modernc.org/sqlite") {
			pins[k] = v
		}
	}
	direct := map[string][]string{
		"chi":   {"github.com/go-chi/chi/v5"},
		"gin":   {"github.com/gin-gonic/gin"},
		"echo":  {"github.com/labstack/echo/v4"},
		"huma":  {"github.com/danielgtaylor/huma/v2"},
		"fiber": {"github.com/gofiber/fiber/v2"},
	}
	for _, fw := range frameworks[1:] {
		for _, tmpl := range templates {
			name := fw + "-" + tmpl
			mods := direct[fw]
			if tmpl == "api" {
				mods = append(slices.Clone(mods), "modernc.org/sqlite")
				if fw != "huma" {
					mods = append(mods, "github.com/go-playground/validator/v10")
				}
			}
			got := requires(t, filepath.Join(appsDir, name, "go.mod"))
			for _, m := range mods {
				if pins[m] == "" {
					t.Fatalf("no pin for %s", m)
				}
				if got[m] != pins[m] {
					t.Errorf("%s requires %s %q, want %s (as bench/go.mod or data/go.mod)", name, m, got[m], pins[m])
				}
			}
		}
	}
}

var requireLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9.\-]+\.[a-z]+/\S+)\s+(v\S+)`)

// requires returns the required modules of a go.mod and their versions.
func requires(t *testing.T, gomod string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range requireLine.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

func TestEdit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "handlers.go")
	orig := "package main\n\nfunc hello() string { return \"Hello, \" + \"x\" }\n"
	if err := os.WriteFile(file, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "handlers_test.go"), []byte(orig), 0o644)
	found, err := findEdit(dir, editMarker["minimal"])
	if err != nil || found != file {
		t.Fatalf("findEdit = %q, %v", found, err)
	}
	a := &app{template: "minimal", editFile: file, editOrig: []byte(orig)}
	if err := a.edit(2); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"Hello (edit 2), "`) {
		t.Errorf("edited: %s", b)
	}
	if err := a.restore(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Errorf("restored: %s", b)
	}
	if _, err := findEdit(dir, "nowhere"); err == nil {
		t.Error("findEdit found a marker that is nowhere")
	}
}

func TestWriteMarkdown(t *testing.T) {
	run := func(cold float64) map[string]timing {
		return map[string]timing{stepCold: {cold, 2 * cold}, stepVet: {1, 2}, stepRebuild: {0.5, 0.6}, stepVetEdited: {0.2, 0.3}}
	}
	res := &measurement{Rounds: 3, Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Finished: time.Date(2026, 1, 2, 3, 40, 0, 0, time.UTC)}
	res.Apps = []*appResult{
		{Name: "plinth-minimal", Framework: "plinth", Template: "minimal", Runs: []map[string]timing{run(10), run(30), run(11)},
			Size: 10 << 20, Stripped: 7 << 20, ModulesListed: 6, ModulesLinked: 2, PackagesStd: 190, PackagesMore: 4},
		{Name: "gin-minimal", Framework: "gin", Template: "minimal", Runs: []map[string]timing{run(20), run(21), run(19)},
			Size: 20 << 20, Stripped: 14 << 20, ModulesListed: 31, ModulesLinked: 20, PackagesStd: 250, PackagesMore: 90},
		{Name: "std-minimal", Framework: "std", Template: "minimal", Runs: []map[string]timing{run(9), run(9), run(9)},
			Size: 8 << 20, Stripped: 5 << 20, ModulesListed: 1, ModulesLinked: 0, PackagesStd: 185, PackagesMore: 1},
	}
	c := &config{runs: 3, command: "bench/compile/run.sh"}
	var b bytes.Buffer
	writeMarkdown(&b, c, res, machineInfo{CPUs: "2", GoVersion: "go1.26.8 linux/amd64"})
	s := b.String()
	for _, want := range []string{
		"# Build time and binary size (2026-01-02)\n\nCommand: `bench/compile/run.sh` (2026-01-02 03:04 to 03:40 UTC).",
		"| plinth-minimal | 11.00 | 22.00 | 1.00 | 2.00 | 0.50 | 0.60 | 0.20 | 0.30 | 10.00 | 7.00 | 6 | 2 | 190 + 4 |",
		"- `minimal`, Plinth's figure over each peer's: cold-build CPU lower than gin (0.55×); not lower than std (1.22×). Stripped binary smaller than gin (0.50×); not smaller than std (1.40×).",
		"\n## Every run\n",
		"| plinth-minimal | 2 | 0.0 | 30.00 | 60.00 |",
		"| gin-minimal | 20971520 | 14680064 |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the results lack %q:\n%s", want, s)
		}
	}
	if i := strings.Index(s, "\n## "); i != strings.Index(s, "\n"+EveryRunHeading) {
		t.Errorf("a heading before %q: bench/cmd/report would copy it into BENCHMARKS.md", EveryRunHeading)
	}
}
