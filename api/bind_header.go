package api

import (
	"net/http"
	"strings"
)

// bindHeaders binds the header parameters: a scalar takes the first value
// (trimmed), a slice every comma-separated item of every value, blanks
// dropped. An absent header, or a single empty one, is absent.
func (ip *inputPlan) bindHeaders(h http.Header, st *bindState) {
	for _, p := range ip.header {
		hv := h[p.key]
		switch {
		case len(hv) == 0 || hv[0] == "" && len(hv) == 1:
			st.missing(p)
		case p.parseAll != nil:
			var vs []string
			for _, v := range hv {
				vs = append(vs, nonEmpty(splitList(v))...)
			}
			st.setAll(p, vs)
		default:
			st.set(p, strings.TrimSpace(hv[0]))
		}
	}
}

// nonEmpty returns vs without its empty strings (vs itself if it has none).
func nonEmpty(vs []string) []string {
	n := 0
	for _, v := range vs {
		if v != "" {
			n++
		}
	}
	if n == len(vs) {
		return vs
	}
	out := make([]string, 0, n)
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
