package suite

import "strings"

// rewrite maps each segment of an httprouter path through fn; fn gets the
// segment and, for parameters, its name and whether it is a catch-all.
func rewrite(path string, fn func(seg, name string, param, catchAll bool) string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = fn(s, s[1:], true, false)
		case strings.HasPrefix(s, "*"):
			segs[i] = fn(s, s[1:], true, true)
		default:
			segs[i] = fn(s, "", false, false)
		}
	}
	return strings.Join(segs, "/")
}

// RequestPath is a concrete path for an httprouter path: every parameter
// replaced by its own name (/users/:user -> /users/user).
func RequestPath(path string) string {
	return rewrite(path, func(seg, name string, param, _ bool) string {
		if param {
			return name
		}
		return seg
	})
}

// MuxPath converts to Go 1.22 ServeMux syntax (Plinth and net/http):
// :x -> {x}, *x -> {x...}, and a trailing slash -> /{$} because in
// httprouter syntax "/users/" matches only itself.
func MuxPath(path string) string {
	p := rewrite(path, func(seg, name string, param, catchAll bool) string {
		switch {
		case catchAll:
			return "{" + name + "...}"
		case param:
			return "{" + name + "}"
		}
		return seg
	})
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	return p
}

// ChiPath converts to chi syntax: :x -> {x}, *x -> * (chi's catch-all has
// no name; its value is chi.URLParam(r, "*")).
func ChiPath(path string) string {
	return rewrite(path, func(seg, name string, param, catchAll bool) string {
		switch {
		case catchAll:
			return "*"
		case param:
			return "{" + name + "}"
		}
		return seg
	})
}

// EchoPath converts to echo syntax: :x stays, *x -> * (echo's catch-all has
// no name; its value is c.Param("*")).
func EchoPath(path string) string {
	return rewrite(path, func(seg, _ string, _, catchAll bool) string {
		if catchAll {
			return "*"
		}
		return seg
	})
}
