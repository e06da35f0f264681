package main

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"
)

// loadAPI type-checks the importable packages of the module copy in dir:
// not main packages, not internal ones, not tests.
func loadAPI(dir, modPath string, env []string) (*apidiff.Module, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir, Env: env}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("loading %s: %v", modPath, err)
	}
	m := &apidiff.Module{Path: modPath}
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		if p.Name == "main" || p.Types == nil || slices.Contains(strings.Split(p.PkgPath, "/"), "internal") {
			continue
		}
		m.Packages = append(m.Packages, p.Types)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading %s: %s", modPath, strings.Join(errs, "; "))
	}
	slices.SortFunc(m.Packages, func(a, b *types.Package) int { return strings.Compare(a.Path(), b.Path()) })
	return m, nil
}

// releaseKind says what semver lets version change against prev: "patch"
// (nothing incompatible), "minor" (incompatible changes only below v1) or
// "major".
func releaseKind(prev, version string) string {
	switch {
	case semver.Major(prev) != semver.Major(version):
		return "major"
	case semver.MajorMinor(prev) != semver.MajorMinor(version):
		return "minor"
	}
	return "patch"
}

// judge decides on a module's API changes between prev and version: an
// error when semver forbids them, else the lines to print.
func judge(modPath, prev, version string, report apidiff.Report) ([]string, error) {
	var incompatible, compatible []string
	for _, c := range report.Changes {
		if c.Compatible {
			compatible = append(compatible, c.Message)
		} else {
			incompatible = append(incompatible, c.Message)
		}
	}
	kind := releaseKind(prev, version)
	v1 := !strings.HasPrefix(version, "v0.")
	if len(incompatible) > 0 && (kind == "patch" || kind == "minor" && v1) {
		return nil, fmt.Errorf("%s %s has incompatible changes against %s, which a %s release must not have:\n  %s", modPath, version, prev, kind, strings.Join(incompatible, "\n  "))
	}
	var lines []string
	for _, m := range incompatible {
		lines = append(lines, fmt.Sprintf("%s: incompatible since %s: %s", modPath, prev, m))
	}
	for _, m := range compatible {
		lines = append(lines, fmt.Sprintf("%s: added since %s: %s", modPath, prev, m))
	}
	return lines, nil
}
