package main

import (
	"fmt"
	"strings"
)

// checkModulePath reports why path cannot be the module path of a new
// project, or nil. It accepts what `go mod init` accepts (the go command
// checks the path with golang.org/x/mod/module.CheckImportPath, then
// refuses the reserved "go" and "toolchain"), written out here so that the
// CLI does not depend on x/mod: "shop" is as valid as example.com/shop
// (module.CheckPath, for paths fetched from a server, also wants a dot in
// the first element; a project's own path need not have one). The rules:
// slash-separated elements of ASCII letters, digits and - . _ ~ +, none
// empty, none all dots or ending with a dot, no Windows device name (con,
// nul, com1, ...) before an element's first dot, no element ending in a
// tilde and digits, no leading dash, not a local path (./app).
func checkModulePath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("the path is empty")
	case path == "." || path == ".." || strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../"):
		return fmt.Errorf("it is a local path; a module path is a name such as shop or example.com/shop")
	case strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/"):
		return fmt.Errorf("the path starts or ends with a slash")
	case strings.HasPrefix(path, "-"):
		return fmt.Errorf("the path starts with a dash")
	case path == "go" || path == "toolchain":
		return fmt.Errorf("%q is reserved by the go command", path)
	}
	for _, e := range strings.Split(path, "/") {
		if e == "" {
			return fmt.Errorf("the path has an empty element (a double slash)")
		}
		if strings.Count(e, ".") == len(e) {
			return fmt.Errorf("the path has a %q element", e)
		}
		if strings.HasSuffix(e, ".") {
			return fmt.Errorf("element %q ends with a dot", e)
		}
		for _, r := range e {
			if !pathChar(r) {
				return fmt.Errorf("element %q has the character %q (allowed: ASCII letters, digits and - . _ ~ +)", e, r)
			}
		}
		short, _, _ := strings.Cut(e, ".")
		for _, bad := range windowsNames {
			if strings.EqualFold(short, bad) {
				return fmt.Errorf("element %q is a Windows device name", e)
			}
		}
		if t := strings.LastIndexByte(short, '~'); t >= 0 && t < len(short)-1 && strings.Trim(short[t+1:], "0123456789") == "" {
			return fmt.Errorf("element %q ends with a tilde and digits (a Windows short name)", e)
		}
	}
	return nil
}

// windowsNames are the device names Windows reserves, which the go command
// refuses as path elements.
var windowsNames = []string{"CON", "PRN", "AUX", "NUL",
	"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}

func pathChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		r == '-' || r == '.' || r == '_' || r == '~' || r == '+'
}

// defaultModulePath is the module path of a project in directory base
// when --module is not given: example.com/BASE, base in lower case (the
// go command's own examples use example.com, a domain reserved for
// documentation, so the path is valid and can never clash with a real
// one; replace it by your repository's path when you publish the module).
func defaultModulePath(base string) string {
	return "example.com/" + strings.ToLower(base)
}
