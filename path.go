package plinth

import (
	"path"
	"strings"
)

// cleanPath returns the canonical form of p the way ServeMux computes it:
// rooted, no "//", "." or ".." segments, and a trailing slash kept. It does not
// allocate when p is already clean.
func cleanPath(p string) string {
	if isCleanPath(p) {
		return p
	}
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// isCleanPath reports whether p is rooted and has no empty, "." or ".."
// segments (other than a final empty one from a trailing slash).
func isCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 1; i <= len(p); {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			j = len(p) - i
		}
		seg := p[i : i+j]
		if seg == "." || seg == ".." {
			return false
		}
		if seg == "" && i+j < len(p) { // "//"
			return false
		}
		i += j + 1
	}
	return true
}
