package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// goEnv is the environment of the go commands that check the release: no
// workspace, the staged release first in GOPROXY, then the proxy
// directory's earlier releases and the usual proxies. The machine's module
// cache is shared, so that third-party modules are neither fetched nor
// compiled again; purgeCache first removes from it the versions being
// released, so that an earlier rehearsal of the same version, cached here,
// cannot stand in for this one.
func goEnv(stage, proxy, corePath string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	chain := []string{fileURL(stage), fileURL(proxy)}
	if up := strings.TrimSpace(string(out)); up != "" && up != "off" {
		chain = append(chain, up)
	}
	env := os.Environ()
	env = append(env,
		"GOWORK=off",
		"GOFLAGS=-mod=readonly",
		"GOPROXY="+strings.Join(chain, ","),
		"GONOSUMDB="+corePath,
		"GOPRIVATE=",
		"GONOPROXY=",
	)
	return env, nil
}

// purgeCache removes the module cache's copies of the modules at version:
// the extracted directories and the downloaded files.
func purgeCache(mods []*built, version string) error {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	if cache == "" {
		return nil
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	for _, b := range mods {
		extracted := filepath.Join(cache, filepath.FromSlash(b.escapedDir)+"@"+escVersion)
		removeAll(extracted)
		for _, ext := range []string{".info", ".mod", ".zip", ".ziphash", ".lock", ".partial"} {
			if err := os.Remove(filepath.Join(cache, "cache", "download", filepath.FromSlash(b.escapedDir), "@v", version+ext)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// fileURL is a file:// GOPROXY entry for the absolute directory dir.
func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

// extract unzips the staged zip of b into dir.
func extract(b *built, version, dir string) error {
	mv := module.Version{Path: b.m.path, Version: version}
	return zip.Unzip(dir, mv, b.zipFile)
}

// goCmd runs the go command in dir with env and returns an error holding
// its output when it fails.
func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// checkAlone checks a module copy as a user's build sees it: its go.mod and
// go.sum tidy, its packages building and passing go vet.
func checkAlone(dir string, env []string) error {
	for _, args := range [][]string{
		{"mod", "tidy", "-diff"},
		{"build", "./..."},
		{"vet", "./..."},
	} {
		if err := goCmd(dir, env, args...); err != nil {
			return err
		}
	}
	return nil
}
