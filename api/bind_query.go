package api

import (
	"net/http"
	"net/url"
	"strings"
)

// bindQuery binds the scalar query parameters from the raw query, without
// building url.Values: each parameter takes the first value of its name
// (a value that is not validly escaped is a type error); an empty value
// counts as absent, so that a later one or the default applies. Pairs with
// a ';' are ignored, as net/url does.
func (ip *inputPlan) bindQuery(raw string, st *bindState) {
	if len(ip.query) == 0 {
		return
	}
	var found uint64 // bit j: ip.query[j] has its value
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		k, val, _ := strings.Cut(kv, "=")
		if k == "" || strings.IndexByte(kv, ';') >= 0 {
			continue
		}
		k, ok := unescapeQuery(k)
		if !ok {
			continue
		}
		j := ip.queryIndex(k, found)
		if j < 0 {
			continue
		}
		p := ip.query[j]
		found |= 1 << j
		if val, ok = unescapeQuery(val); !ok {
			st.bad(p.loc, "type", p.what, val)
		} else if val != "" {
			st.set(p, val)
		} else {
			found &^= 1 << j // empty: as if absent
		}
	}
	for j, p := range ip.query {
		if found&(1<<j) == 0 {
			st.missing(p)
		}
	}
}

// queryIndex returns the index in ip.query of the first parameter named k
// that has no value yet (not in found), -1 if none.
func (ip *inputPlan) queryIndex(k string, found uint64) int {
	for j, p := range ip.query {
		if p.name == k && found&(1<<j) == 0 {
			return j
		}
	}
	return -1
}

// bindQueryLists binds the slice query parameters: every value of the
// name, empty ones included among others (?tag=a&tag=); a name with no
// value but "" is absent.
func (ip *inputPlan) bindQueryLists(r *http.Request, st *bindState) {
	if len(ip.qlist) == 0 {
		return
	}
	vals := r.URL.Query()
	for _, p := range ip.qlist {
		if vs := vals[p.name]; !allEmpty(vs) {
			st.setAll(p, vs)
		} else {
			st.missing(p)
		}
	}
}

// allEmpty reports whether vs has no value but "".
func allEmpty(vs []string) bool {
	for _, v := range vs {
		if v != "" {
			return false
		}
	}
	return true
}

// unescapeQuery decodes a query key or value as net/url does ('+' is a
// space); it reports false for a bad escape.
func unescapeQuery(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}
