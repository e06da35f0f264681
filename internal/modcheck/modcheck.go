// Package modcheck holds the repository's modules apart: no module imports
// another module's internal packages, and the few internal packages that
// several modules need exist as copies kept equal to the core's. Its tests
// run both checks over go.work's modules; the functions here are the checks
// themselves, so that a test can feed them a broken case.
package modcheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Copies lists the internal packages copied into other modules: the core's
// directory and each copy's, relative to the repository root. A satellite
// module cannot import the core's internal packages (the release would tie
// it to one version of the core's internals), so it carries a copy.
var Copies = map[string][]string{
	"internal/envconf":    {"data/internal/envconf", "observe/internal/envconf"},
	"internal/redact":     {"data/internal/redact", "redisstore/internal/redact"},
	"internal/httpsyntax": {"middleware/compress/internal/httpsyntax"},
}

// Differences compares the directory copy with orig, both under root: the
// same file names, each with the same bytes. It returns one line per
// difference, none when the copy is exact.
func Differences(root, orig, copy string) ([]string, error) {
	names := func(dir string) ([]string, error) {
		es, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range es {
			if !e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out, nil
	}
	want, err := names(orig)
	if err != nil {
		return nil, err
	}
	got, err := names(copy)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, n := range want {
		if !slices.Contains(got, n) {
			diffs = append(diffs, fmt.Sprintf("%s/%s is missing (%s/%s has it)", copy, n, orig, n))
			continue
		}
		a, err := os.ReadFile(filepath.Join(root, orig, n))
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(root, copy, n))
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(a, b) {
			diffs = append(diffs, fmt.Sprintf("%s/%s differs from %s/%s: copy it over", copy, n, orig, n))
		}
	}
	for _, n := range got {
		if !slices.Contains(want, n) {
			diffs = append(diffs, fmt.Sprintf("%s/%s is not in %s", copy, n, orig))
		}
	}
	return diffs, nil
}

// InternalOf returns the module of modules (module paths) whose internal
// tree holds the package path p, and whether p is internal at all: the
// module is the longest module path that p is under.
func InternalOf(p string, modules []string) (string, bool) {
	i := strings.LastIndex("/"+p+"/", "/internal/")
	if i < 0 {
		return "", false
	}
	owner := ""
	for _, m := range modules {
		if (p == m || strings.HasPrefix(p, m+"/")) && len(m) > len(owner) {
			owner = m
		}
	}
	return owner, owner != ""
}

// Foreign returns the imports of a package of module mod that are another
// repository module's internal packages.
func Foreign(mod string, imports, modules []string) []string {
	var out []string
	for _, p := range imports {
		if owner, ok := InternalOf(p, modules); ok && owner != mod {
			out = append(out, p)
		}
	}
	return out
}
