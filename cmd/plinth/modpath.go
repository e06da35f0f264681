package main

import (
	"fmt"
	"strings"
)

// checkModulePath reports why path cannot be the module path of a new
// project, or nil. The rules are the go command's for module paths
// (golang.org/x/mod/module.CheckPath), written out here so that the core
// module does not depend on x/mod: slash-separated elements of ASCII
// letters, digits and - . _ ~, none empty, none starting or ending with a
// dot, no leading dash in the first element, and a dot in the first
// element (a domain: example.com/app, github.com/you/app), since paths
// without one are reserved for the standard library.
func checkModulePath(path string) error {
	if path == "" {
		return fmt.Errorf("the path is empty")
	}
	if strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") {
		return fmt.Errorf("the path starts or ends with a slash")
	}
	elems := strings.Split(path, "/")
	for _, e := range elems {
		if e == "" {
			return fmt.Errorf("the path has an empty element (a double slash)")
		}
		if e == "." || e == ".." {
			return fmt.Errorf("the path has a %q element", e)
		}
		if strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".") {
			return fmt.Errorf("element %q starts or ends with a dot", e)
		}
		for _, r := range e {
			if !pathChar(r) {
				return fmt.Errorf("element %q has the character %q (allowed: ASCII letters, digits and - . _ ~)", e, r)
			}
		}
	}
	first := elems[0]
	if strings.HasPrefix(first, "-") {
		return fmt.Errorf("first element %q starts with a dash", first)
	}
	if !strings.Contains(first, ".") {
		return fmt.Errorf("first element %q is not a domain name (no dot): use example.com/%s or your repository's path", first, path)
	}
	if first != strings.ToLower(first) {
		return fmt.Errorf("first element %q is not in lower case", first)
	}
	return nil
}

func pathChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		r == '-' || r == '.' || r == '_' || r == '~'
}

// defaultModulePath is the module path of a project in directory base
// when --module is not given: example.com/BASE, base in lower case (the
// go command's own examples use example.com, a domain reserved for
// documentation, so the path is valid and can never clash with a real
// one; replace it by your repository's path when you publish the module).
func defaultModulePath(base string) string {
	return "example.com/" + strings.ToLower(base)
}
