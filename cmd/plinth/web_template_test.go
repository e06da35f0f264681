package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebTemplateMatchesExample: the web template is examples/web, less its
// Redis and PostgreSQL openers, its database and what needs one (the job
// queue): its views, catalogues, stylesheet and handlers must not drift
// from the example's, which the browser tests check. The template keeps its
// users in memory (users.go.tmpl, and the tests that build the site
// without a database, app_test.go.tmpl), so that a new project starts with
// the core module only; examples/web keeps them in its database, shared by
// its instances (docs/deploy.md's rehearsal).
func TestWebTemplateMatchesExample(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "web")
	if _, err := os.Stat(example); os.IsNotExist(err) {
		t.Skip("examples/web is absent (the core module outside its repository): nothing to compare the template with")
	}
	same := map[string]string{ // template file -> example file
		"handlers.go.tmpl": "handlers.go",
	}
	for _, dir := range []string{"templates", "locales", "static"} {
		err := fs.WalkDir(os.DirFS(example), dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				same[p] = p
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for tmpl, ex := range same {
		want, err := os.ReadFile(filepath.Join(example, filepath.FromSlash(ex)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := templates.ReadFile("templates/web/" + tmpl)
		if err != nil {
			t.Errorf("the web template lacks %s (examples/web has %s)", tmpl, ex)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("templates/web/%s differs from examples/web/%s: copy it over", tmpl, ex)
		}
	}
	app, err := templates.ReadFile("templates/web/app.go.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(app), "redisstore") || strings.Contains(string(app), "pgstore") {
		t.Error("the web template's app.go imports a store module: new projects should start with the core only")
	}
}
