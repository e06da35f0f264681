package plinth

import "path"

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
// segments (other than a final empty one from a trailing slash). It is one
// pass over the bytes: on the hot path a call per segment costs more.
func isCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if rest == "" {
			return true
		}
		switch rest[0] {
		case '/':
			return false
		case '.':
			if len(rest) == 1 || rest[1] == '/' {
				return false
			}
			if rest[1] == '.' && (len(rest) == 2 || rest[2] == '/') {
				return false
			}
		}
	}
	return true
}
