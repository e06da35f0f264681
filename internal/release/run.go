package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// checkVersion refuses what is not a version a module can be released at:
// canonical semver (v1.2.3, a pre-release allowed, no build metadata), and
// no major version above 1, which would need /vN in the module paths.
func checkVersion(v string) error {
	if v == "" {
		return fmt.Errorf("-version is required (such as v0.1.0)")
	}
	if !semver.IsValid(v) || semver.Canonical(v) != v {
		return fmt.Errorf("-version %q is not a canonical semantic version such as v0.1.0", v)
	}
	if m := semver.Major(v); m != "v0" && m != "v1" {
		return fmt.Errorf("-version %s: a major version above v1 needs a /%s suffix in every module path", v, m)
	}
	return nil
}

// run makes the release that cfg describes.
func run(cfg config) error {
	if err := checkVersion(cfg.version); err != nil {
		return err
	}
	if cfg.proxy == "" {
		return fmt.Errorf("-proxy is required: the directory to write the release into")
	}
	root, err := filepath.Abs(cfg.root)
	if err != nil {
		return err
	}
	proxy, err := filepath.Abs(cfg.proxy)
	if err != nil {
		return err
	}
	r, err := loadRepo(root)
	if err != nil {
		return err
	}
	base, err := r.siblingVersion()
	if err != nil {
		return err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.log, format+"\n", args...) }
	logf("release %s of %s (commit %.12s), %d modules; the tree requires siblings at %s", cfg.version, r.released[0].path, r.commit, len(r.released), orNone(base))

	released := map[string]bool{}
	prev := map[string]string{}
	for _, m := range r.released {
		released[m.path] = true
		vs, err := versionsIn(proxy, m.path)
		if err != nil {
			return err
		}
		if slices.Contains(vs, cfg.version) {
			return fmt.Errorf("%s %s already exists in %s: a version is released once", m.path, cfg.version, proxy)
		}
		for _, v := range vs {
			if semver.Compare(v, cfg.version) < 0 {
				prev[m.path] = v
			}
		}
	}

	work, err := os.MkdirTemp("", "plinth-release-")
	if err != nil {
		return err
	}
	defer removeAll(work)
	stage := filepath.Join(work, "proxy")

	// Write the modules in dependency order: each go.sum holds the
	// checksums of the sibling zips written before it.
	done := map[string]*built{}
	var order []*built
	for _, m := range r.released {
		gomod, err := rewriteGoMod(m, released, cfg.version)
		if err != nil {
			return err
		}
		sum, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.dir), "go.sum"))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		gosum, err := rewriteGoSum(sum, gomod, done, cfg.version)
		if err != nil {
			return err
		}
		b, err := writeModule(stage, r, m, cfg.version, gomod, gosum)
		if err != nil {
			return err
		}
		b.prev = prev[m.path]
		done[m.path] = b
		order = append(order, b)
	}

	env, err := goEnv(stage, proxy, r.released[0].path)
	if err != nil {
		return err
	}
	if err := purgeCache(order, cfg.version); err != nil {
		return err
	}
	var changes, failed []string
	for _, b := range order {
		dir := filepath.Join(work, "check", b.escapedDir)
		if err := extract(b, cfg.version, dir); err != nil {
			return err
		}
		if cfg.tidy {
			if err := tidyTree(b, dir, root, base, env, done); err != nil {
				return err
			}
			logf("tidy %s: %s/go.mod and go.sum written", b.m.path, b.m.dir)
			continue
		}
		if err := checkAlone(dir, env); err != nil {
			logf("FAIL %s %s: %v", b.m.path, cfg.version, err)
			failed = append(failed, b.m.path)
			continue
		}
		logf("ok   %s %s: tidy, builds and vets alone", b.m.path, cfg.version)
		if b.prev == "" {
			logf("     %s: no earlier version in %s to compare the API with", b.m.path, proxy)
			continue
		}
		lines, err := compareAPI(b, cfg.version, dir, proxy, work, env)
		if err != nil {
			return err
		}
		changes = append(changes, lines...)
	}
	for _, l := range changes {
		logf("api  %s", l)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d modules do not stand alone (above): %s; %s is unchanged", len(failed), strings.Join(failed, ", "), proxy)
	}
	if cfg.tidy {
		logf("-tidy: nothing released; review and commit the go.mod and go.sum files written")
		return nil
	}
	if err := publish(stage, proxy, cfg.version, order); err != nil {
		return err
	}
	logf("wrote %d modules into %s (GOPROXY=%s)", len(order), proxy, fileURL(proxy))
	logf("tags a release would push (nothing was pushed):")
	for _, b := range order {
		logf("  %s", tagOf(b.m.dir, cfg.version))
	}
	return nil
}

// compareAPI compares the module copy in dir with the previous version in
// the proxy and judges the changes.
func compareAPI(b *built, version, dir, proxy, work string, env []string) ([]string, error) {
	oldDir := filepath.Join(work, "old", b.escapedDir)
	old := &built{m: b.m, zipFile: filepath.Join(proxy, b.escapedDir, "@v", b.prev+".zip")}
	if err := extract(old, b.prev, oldDir); err != nil {
		return nil, fmt.Errorf("%s %s from %s: %v", b.m.path, b.prev, proxy, err)
	}
	oldAPI, err := loadAPI(oldDir, b.m.path, env)
	if err != nil {
		return nil, err
	}
	newAPI, err := loadAPI(dir, b.m.path, env)
	if err != nil {
		return nil, err
	}
	return judge(b.m.path, b.prev, version, apidiff.ModuleChanges(oldAPI, newAPI))
}

// tidyTree tidies the module copy in dir and writes its go.mod (siblings
// required at base, the tree's version) and go.sum (less the siblings'
// lines) into the module's directory in the tree.
func tidyTree(b *built, dir, root, base string, env []string, siblings map[string]*built) error {
	tidyEnv := append(slices.Clone(env), "GOFLAGS=-mod=mod")
	if err := goCmd(dir, tidyEnv, "mod", "tidy"); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return err
	}
	for _, req := range f.Require {
		if siblings[req.Mod.Path] != nil && base != "" {
			if err := f.AddRequire(req.Mod.Path, base); err != nil {
				return err
			}
		}
	}
	gomod, err := f.Format()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(b.m.dir), "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var keep []string
	for line := range strings.Lines(string(sum)) {
		if f := strings.Fields(line); len(f) > 0 && siblings[f[0]] == nil {
			keep = append(keep, line)
		}
	}
	return os.WriteFile(filepath.Join(root, filepath.FromSlash(b.m.dir), "go.sum"), []byte(strings.Join(keep, "")), 0o644)
}

// tagOf is the git tag of the module in dir at version.
func tagOf(dir, version string) string {
	if dir == "." {
		return version
	}
	return strings.TrimPrefix(dir, "./") + "/" + version
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// removeAll removes dir, making the module cache's read-only directories
// writable first.
func removeAll(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
