package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

// built is one module of the release, as written into the staging proxy.
type built struct {
	m          *mod
	gomod      []byte // the rewritten go.mod
	zipFile    string // in the staging proxy
	zipHash    string // h1: of the zip, as go.sum records it
	gomodHash  string // h1: of the go.mod
	prev       string // the previous version in the proxy, "" if none
	escapedDir string // the module's directory in a proxy
}

// versionsIn returns the versions that the proxy directory lists for the
// module path, in semver order; none when it has none.
func versionsIn(proxy, modPath string) ([]string, error) {
	esc, err := module.EscapePath(modPath)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(proxy, esc, "@v", "list"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs []string
	for _, v := range strings.Fields(string(data)) {
		if semver.IsValid(v) {
			vs = append(vs, v)
		}
	}
	semver.Sort(vs)
	return vs, nil
}

// rewriteGoMod returns m's go.mod with every requirement of a released
// sibling at version.
func rewriteGoMod(m *mod, released map[string]bool, version string) ([]byte, error) {
	f := m.file
	for _, req := range f.Require {
		if released[req.Mod.Path] {
			if err := f.AddRequire(req.Mod.Path, version); err != nil {
				return nil, err
			}
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, err
	}
	// Reparse so that m.file is not left changed for the next call.
	again, err := modfile.Parse(m.dir+"/go.mod", out, nil)
	if err != nil {
		return nil, err
	}
	m.file = again
	return out, nil
}

// rewriteGoSum returns go.sum's lines less those of released siblings,
// plus the checksums of the siblings the go.mod requires, at their new
// version.
func rewriteGoSum(sum []byte, gomod []byte, done map[string]*built, version string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return nil, err
	}
	var lines []string
	for line := range strings.Lines(string(sum)) {
		fields := strings.Fields(line)
		if len(fields) > 0 && done[fields[0]] != nil {
			continue
		}
		if strings.TrimSpace(line) != "" {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	for _, req := range f.Require {
		if b := done[req.Mod.Path]; b != nil {
			lines = append(lines,
				fmt.Sprintf("%s %s %s", req.Mod.Path, version, b.zipHash),
				fmt.Sprintf("%s %s/go.mod %s", req.Mod.Path, version, b.gomodHash))
		}
	}
	slices.SortStableFunc(lines, compareSumLines)
	if len(lines) == 0 {
		return nil, nil
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// compareSumLines orders go.sum lines as the go command writes them: by
// module path, then by version in semver order, a version's /go.mod line
// after its zip's.
func compareSumLines(a, b string) int {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) < 2 || len(fb) < 2 {
		return strings.Compare(a, b)
	}
	if c := strings.Compare(fa[0], fb[0]); c != 0 {
		return c
	}
	va, sa, _ := strings.Cut(fa[1], "/")
	vb, sb, _ := strings.Cut(fb[1], "/")
	if c := semver.Compare(va, vb); c != 0 {
		return c
	}
	return strings.Compare(sa, sb)
}

// memFile is a file of a module zip: read from the tree, or given.
type memFile struct {
	path string
	data []byte
}

func (f memFile) Path() string                 { return f.path }
func (f memFile) Lstat() (os.FileInfo, error)  { return memInfo{f}, nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

// memInfo is a memFile's os.FileInfo: a regular file.
type memInfo struct{ f memFile }

func (i memInfo) Name() string       { return filepath.Base(i.f.path) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// writeModule writes m at version into the staging proxy: its zip (the
// committed files, with the go.mod and go.sum given), .mod and .info.
func writeModule(stage string, r *repo, m *mod, version string, gomod, gosum []byte) (*built, error) {
	esc, err := module.EscapePath(m.path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(stage, esc, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []zip.File
	for _, rel := range r.filesOf(m) {
		var data []byte
		switch rel {
		case "go.mod":
			data = gomod
		case "go.sum":
			continue // added below, rewritten
		default:
			full := filepath.Join(r.root, filepath.FromSlash(m.dir), filepath.FromSlash(rel))
			info, err := os.Lstat(full)
			if err != nil {
				return nil, err
			}
			if !info.Mode().IsRegular() {
				continue // a module zip holds regular files only
			}
			if data, err = os.ReadFile(full); err != nil {
				return nil, err
			}
		}
		files = append(files, memFile{path: rel, data: data})
	}
	if gosum != nil {
		files = append(files, memFile{path: "go.sum", data: gosum})
	}
	mv := module.Version{Path: m.path, Version: version}
	zipPath := filepath.Join(dir, version+".zip")
	zf, err := os.Create(zipPath)
	if err != nil {
		return nil, err
	}
	if err := zip.Create(zf, mv, files); err != nil {
		zf.Close()
		return nil, fmt.Errorf("%s: %v", m.path, err)
	}
	if err := zf.Close(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, version+".mod"), gomod, 0o644); err != nil {
		return nil, err
	}
	info, err := json.Marshal(struct{ Version, Time string }{version, r.time})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, version+".info"), info, 0o644); err != nil {
		return nil, err
	}
	b := &built{m: m, gomod: gomod, zipFile: zipPath, escapedDir: esc}
	if b.zipHash, err = dirhash.HashZip(zipPath, dirhash.DefaultHash); err != nil {
		return nil, err
	}
	b.gomodHash, err = dirhash.DefaultHash([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// publish copies the staged release into the proxy directory and adds the
// version to each module's list.
func publish(stage, proxy, version string, mods []*built) error {
	for _, b := range mods {
		from := filepath.Join(stage, b.escapedDir, "@v")
		to := filepath.Join(proxy, b.escapedDir, "@v")
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		for _, ext := range []string{".info", ".mod", ".zip"} {
			data, err := os.ReadFile(filepath.Join(from, version+ext))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(to, version+ext), data, 0o644); err != nil {
				return err
			}
		}
		vs, err := versionsIn(proxy, b.m.path)
		if err != nil {
			return err
		}
		vs = append(vs, version)
		semver.Sort(vs)
		if err := os.WriteFile(filepath.Join(to, "list"), []byte(strings.Join(vs, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}
