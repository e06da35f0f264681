package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// unreleasedDirs are the top directories of go.work's modules that are
// never released (docs/packages.md); a module whose path has an internal
// element is never released either.
var unreleasedDirs = []string{"bench", "examples"}

// mod is one module of the workspace.
type mod struct {
	dir  string // relative to the root, slash-separated; "." for the root
	path string
	file *modfile.File
}

// repo is the repository: its modules, the released ones in dependency
// order (a module after the siblings it requires), and the commit.
type repo struct {
	root     string
	mods     []*mod
	released []*mod
	work     *modfile.WorkFile
	commit   string
	time     string // the commit's time, RFC 3339
	files    []string
}

// git runs git in dir and returns its standard output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// loadRepo reads the repository at root: it must be a clean git work tree
// with a go.work.
func loadRepo(root string) (*repo, error) {
	status, err := git(root, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	if status != "" {
		return nil, fmt.Errorf("the tree at %s is dirty: commit or stash first (a release is made of committed files only):\n%s", root, status)
	}
	r := &repo{root: root}
	if r.commit, err = git(root, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	r.commit = strings.TrimSpace(r.commit)
	if r.time, err = git(root, "show", "-s", "--format=%cI", "HEAD"); err != nil {
		return nil, err
	}
	r.time = strings.TrimSpace(r.time)
	ls, err := git(root, "ls-files", "-z")
	if err != nil {
		return nil, err
	}
	for f := range strings.SplitSeq(ls, "\x00") {
		if f != "" {
			r.files = append(r.files, f)
		}
	}

	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, fmt.Errorf("the repository has no go.work: %v", err)
	}
	if r.work, err = modfile.ParseWork("go.work", data, nil); err != nil {
		return nil, err
	}
	for _, u := range r.work.Use {
		dir := path.Clean(filepath.ToSlash(u.Path))
		gomod := filepath.Join(root, filepath.FromSlash(dir), "go.mod")
		data, err := os.ReadFile(gomod)
		if err != nil {
			return nil, fmt.Errorf("go.work uses %s: %v", u.Path, err)
		}
		f, err := modfile.Parse(gomod, data, nil)
		if err != nil {
			return nil, err
		}
		if f.Module == nil {
			return nil, fmt.Errorf("%s has no module line", gomod)
		}
		r.mods = append(r.mods, &mod{dir: dir, path: f.Module.Mod.Path, file: f})
	}
	var released []*mod
	for _, m := range r.mods {
		first, _, _ := strings.Cut(m.dir, "/")
		if slices.Contains(unreleasedDirs, first) || slices.Contains(strings.Split(m.path, "/"), "internal") {
			continue
		}
		released = append(released, m)
	}
	if len(released) == 0 {
		return nil, fmt.Errorf("go.work lists no module to release")
	}
	if r.released, err = dependencyOrder(released); err != nil {
		return nil, err
	}
	return r, nil
}

// dependencyOrder sorts mods so that each comes after the siblings its
// go.mod requires: a module's go.sum needs their checksums.
func dependencyOrder(mods []*mod) ([]*mod, error) {
	byPath := map[string]*mod{}
	for _, m := range mods {
		byPath[m.path] = m
	}
	var out []*mod
	state := map[*mod]int{} // 1 visiting, 2 done
	var visit func(m *mod) error
	visit = func(m *mod) error {
		switch state[m] {
		case 1:
			return fmt.Errorf("the modules require each other in a cycle through %s", m.path)
		case 2:
			return nil
		}
		state[m] = 1
		for _, req := range m.file.Require {
			if s := byPath[req.Mod.Path]; s != nil {
				if err := visit(s); err != nil {
					return err
				}
			}
		}
		state[m] = 2
		out = append(out, m)
		return nil
	}
	for _, m := range mods {
		if err := visit(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// siblingVersion returns the version at which the released modules require
// each other (the last release) and checks that go.work replaces exactly
// that version of each by its directory. "" when no module requires
// another.
func (r *repo) siblingVersion() (string, error) {
	isReleased := map[string]bool{}
	for _, m := range r.released {
		isReleased[m.path] = true
	}
	base := ""
	for _, m := range r.mods {
		for _, req := range m.file.Require {
			if !isReleased[req.Mod.Path] {
				continue
			}
			switch {
			case base == "":
				base = req.Mod.Version
			case req.Mod.Version != base:
				return "", fmt.Errorf("%s/go.mod requires %s %s, another module %s: every module requires its siblings at the last released version", m.dir, req.Mod.Path, req.Mod.Version, base)
			}
		}
		for _, rep := range m.file.Replace {
			if isReleased[rep.Old.Path] {
				return "", fmt.Errorf("%s/go.mod replaces %s: a released go.mod must not (go.work joins the modules)", m.dir, rep.Old.Path)
			}
		}
	}
	if base == "" {
		return "", nil
	}
	replaced := map[string]string{}
	for _, rep := range r.work.Replace {
		if rep.Old.Version != base {
			return "", fmt.Errorf("go.work replaces %s %s, but the modules require %s", rep.Old.Path, rep.Old.Version, base)
		}
		replaced[rep.Old.Path] = path.Clean(rep.New.Path)
	}
	for _, m := range r.released {
		if dir, ok := replaced[m.path]; !ok || dir != m.dir {
			return "", fmt.Errorf("go.work must replace %s %s with ./%s (got %q), or the go command fetches that version instead of reading the tree", m.path, base, m.dir, dir)
		}
	}
	return base, nil
}

// filesOf returns the committed files of m, relative to its directory,
// less those of the modules nested in it.
func (r *repo) filesOf(m *mod) []string {
	var nested []string
	for _, f := range r.files {
		if path.Base(f) == "go.mod" && path.Dir(f) != m.dir {
			nested = append(nested, path.Dir(f)+"/")
		}
	}
	prefix := m.dir + "/"
	if m.dir == "." {
		prefix = ""
	}
	var out []string
	for _, f := range r.files {
		if !strings.HasPrefix(f, prefix) {
			continue
		}
		inNested := false
		for _, n := range nested {
			if strings.HasPrefix(f, n) && len(n) > len(prefix) {
				inNested = true
				break
			}
		}
		if !inNested {
			out = append(out, strings.TrimPrefix(f, prefix))
		}
	}
	return out
}
