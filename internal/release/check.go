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
// directory's earlier releases, then the machine's module cache (so that
// third-party modules come from disk) and the usual proxies; a module cache
// of the check's own, so that an earlier rehearsal of the same version,
// cached on this machine, cannot stand in for this one.
func goEnv(stage, proxy, modcache, corePath string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	chain := []string{fileURL(stage), fileURL(proxy)}
	if lines[0] != "" {
		chain = append(chain, fileURL(filepath.Join(lines[0], "cache", "download")))
	}
	if lines[1] != "" && lines[1] != "off" {
		chain = append(chain, lines[1])
	}
	env := os.Environ()
	env = append(env,
		"GOWORK=off",
		"GOFLAGS=-mod=readonly -modcacherw",
		"GOMODCACHE="+modcache,
		"GOPROXY="+strings.Join(chain, ","),
		"GONOSUMDB="+corePath,
		"GONOSUMCHECK=",
		"GOPRIVATE=",
		"GONOPROXY=",
	)
	return env, nil
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
