package main

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// templates holds the project templates, one directory each
// (templates/minimal, templates/api, ...). A template is its directory and
// nothing else: adding one is adding a directory. Its files are written to
// the new project under the same relative paths, with two changes that
// keep the go command and git from treating them as part of this
// repository: a ".tmpl" suffix is removed (main.go.tmpl is main.go) and an
// element's leading "_" becomes "." (_gitignore is .gitignore, _ci/run is
// .ci/run). The project's go.mod is not a template: `plinth new` writes it
// for the Plinth modules that the template's Go files import.
//
// In every file, these placeholders are replaced (plain text, so that
// html/template views keep their {{ }}):
//
//	__MODULE__       the module path (example.com/app)
//	__NAME__         the project's name, its directory's base name (app)
//	__GO_VERSION__   the Go version of the Docker build image (1.26)
//	__DOCKER_NOTE__  a sentence about --replace and docker build, or nothing
//
// A file that starts with "#!" is written executable.
//
//go:embed all:templates
var templates embed.FS

// dockerGoVersion is the Go version of the templates' Docker build stage:
// Plinth's minimum.
const dockerGoVersion = "1.26"

// templateNames lists the templates, sorted.
func templateNames() []string {
	entries, err := templates.ReadDir("templates")
	if err != nil {
		panic(err) // the embedded tree is part of the binary
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// projectFile is one file of a new project.
type projectFile struct {
	Path string // slash-separated, relative to the project
	Data []byte
	Exec bool
}

// renderTemplate returns the files of template name with vars replaced
// (placeholder -> value).
func renderTemplate(name string, vars map[string]string) ([]projectFile, error) {
	root := "templates/" + name
	if _, err := fs.Stat(templates, root); err != nil {
		return nil, fmt.Errorf("no template %q", name)
	}
	var pairs []string
	for k, v := range vars {
		pairs = append(pairs, k, v)
	}
	repl := strings.NewReplacer(pairs...)
	var files []projectFile
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		data = []byte(repl.Replace(string(data)))
		files = append(files, projectFile{
			Path: projectPath(strings.TrimPrefix(p, root+"/")),
			Data: data,
			Exec: bytes.HasPrefix(data, []byte("#!")),
		})
		return nil
	})
	return files, err
}

// projectPath maps a template file's path to the project's: ".tmpl" off
// the end, a leading "_" of each element to ".".
func projectPath(p string) string {
	p = strings.TrimSuffix(p, ".tmpl")
	elems := strings.Split(p, "/")
	for i, e := range elems {
		if strings.HasPrefix(e, "_") {
			elems[i] = "." + e[1:]
		}
	}
	return path.Join(elems...)
}
