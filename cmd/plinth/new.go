package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const newUsage = `Usage: plinth new PATH [--template NAME] [--module PATH] [--replace DIR]

Writes a new Plinth project into the directory PATH (created; it must be
empty if it exists), then runs "go mod tidy" in it. The project's
"go vet ./...", "go test ./..." and "go run ." work at once.

Flags:
  --template NAME   the project's shape (default minimal): %s
  --module PATH     its module path (default example.com/BASE, BASE being
                    PATH's last element in lower case)
  --replace DIR     use the Plinth checkout in DIR (replace directives for
                    every Plinth module the project needs) instead of the
                    release this plinth was built from
`

// cmdNew is `plinth new`.
func cmdNew(env *environment, args []string) error {
	fl := flag.NewFlagSet("new", flag.ContinueOnError)
	tmpl := fl.String("template", "minimal", "")
	module := fl.String("module", "", "")
	replace := fl.String("replace", "", "")
	fl.Usage = func() { fmt.Fprintf(fl.Output(), newUsage, strings.Join(templateNames(), ", ")) }
	pos, err := parseFlags(fl, args, env.stderr)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		return usagef("new: missing PATH, the directory of the new project (plinth new PATH [--template NAME])")
	case 1:
	default:
		return usagef("new: one PATH expected, got %d arguments: %s", len(pos), strings.Join(pos, " "))
	}
	dir := pos[0]
	if !slices.Contains(templateNames(), *tmpl) {
		return usagef("new: unknown template %q; the templates are %s", *tmpl, strings.Join(templateNames(), ", "))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	name := filepath.Base(abs)
	modPath := *module
	if modPath == "" {
		modPath = defaultModulePath(name)
		if err := checkModulePath(modPath); err != nil {
			return usagef("new: cannot make a module path from the directory name %q (%s: %v); pass --module", name, modPath, err)
		}
	} else if err := checkModulePath(modPath); err != nil {
		return usagef("new: invalid module path %q: %v", modPath, err)
	}
	var src *plinthSource
	if *replace != "" {
		if src, err = checkoutSource(*replace); err != nil {
			return err
		}
	} else {
		v := buildVersion()
		if !releaseVersion(v) {
			return usagef("new: this plinth was built from a source tree (version %s), not from a release, so there is no "+
				"version of Plinth to require; pass --replace DIR with the path of a Plinth checkout (Plinth is not on "+
				"the Go module proxy yet: see \"Using it from your module\" in Plinth's README)", v)
		}
		src = releaseSource(v)
	}
	if err := checkTarget(dir); err != nil {
		return err
	}

	note := ""
	if src.checkout != "" {
		note = "go.mod replaces Plinth by the checkout in " + src.checkout + ", which `docker build` does not see: " +
			"drop the replace lines and require a released Plinth before building the image."
	}
	files, err := renderTemplate(*tmpl, map[string]string{
		"__MODULE__":      modPath,
		"__NAME__":        name,
		"__GO_VERSION__":  dockerGoVersion,
		"__DOCKER_NOTE__": note,
	})
	if err != nil {
		return err
	}
	mods, err := src.modules(files)
	if err != nil {
		return err
	}
	files = append(files, projectFile{Path: "go.mod", Data: src.goMod(modPath, mods)})
	if err := writeProject(abs, files); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "plinth: wrote %d files of the %s template to %s (module %s", len(files), *tmpl, dir, modPath)
	if src.checkout != "" {
		fmt.Fprintf(env.stdout, ", Plinth from %s)\n", src.checkout)
	} else {
		fmt.Fprintf(env.stdout, ", Plinth %s)\n", src.version)
	}

	fmt.Fprintf(env.stdout, "plinth: go mod tidy (in %s): resolving dependencies and writing go.sum\n", dir)
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = abs
	tidy.Env = goEnv(env.environ(), "GOWORK=off")
	tidy.Stdout, tidy.Stderr = env.stderr, env.stderr
	if err := tidy.Run(); err != nil {
		hint := ""
		if src.checkout == "" {
			hint = fmt.Sprintf(" If Plinth %s is not on the module proxy, generate the project with --replace DIR (a Plinth checkout).", src.version)
		}
		fmt.Fprintf(env.stderr, "plinth: go mod tidy failed in %s: %v. The project's files are written, but its go.sum is "+
			"incomplete: fix the cause and run go mod tidy there.%s\n", dir, err, hint)
		return errReported
	}
	fmt.Fprintf(env.stdout, "\nNext:\n\n\tcd %s\n\tgo run .        # serves on :8080 (or $PLINTH_ADDR)\n\tgo test ./...\n\n", dir)
	return nil
}

// checkTarget returns a usage error unless dir is absent or an empty
// directory.
func checkTarget(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return usagef("new: %s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		more := ""
		if len(entries) > 1 {
			more = fmt.Sprintf(" and %d more", len(entries)-1)
		}
		return usagef("new: %s is not empty (it has %s%s); choose a new or empty directory", dir, entries[0].Name(), more)
	}
	return nil
}

// writeProject writes files below dir, creating it and the directories
// within.
func writeProject(dir string, files []projectFile) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Data, mode); err != nil {
			return err
		}
	}
	return nil
}

// environ returns the environment of the processes the commands start.
func (e *environment) environ() []string {
	if e.env != nil {
		return e.env
	}
	return os.Environ()
}

// goEnv returns base with the variables in set (NAME=value) replacing
// theirs, and any -mod flag taken out of GOFLAGS: the project's go.mod and
// go.sum are written by the go command, not checked against it.
func goEnv(base []string, set ...string) []string {
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, val, _ := strings.Cut(kv, "=")
		if slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			continue
		}
		if name == "GOFLAGS" {
			var keep []string
			for _, f := range strings.Fields(val) {
				if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "--mod=") {
					keep = append(keep, f)
				}
			}
			kv = "GOFLAGS=" + strings.Join(keep, " ")
		}
		out = append(out, kv)
	}
	return append(out, set...)
}
