package web

import (
	"net/http"
	"strconv"
	"strings"
)

// PrefersHTML reports whether the request's Accept header ranks text/html
// (or application/xhtml+xml) above application/json and
// application/problem+json, as browsers' navigations do. A missing Accept,
// "*/*" alone (curl) and API clients asking for JSON get false.
func PrefersHTML(r *http.Request) bool {
	var html, json float64 = -1, -1
	for _, line := range r.Header["Accept"] {
		for len(line) > 0 {
			var part string
			if i := strings.IndexByte(line, ','); i >= 0 {
				part, line = line[:i], line[i+1:]
			} else {
				part, line = line, ""
			}
			typ, params, _ := strings.Cut(part, ";")
			typ = strings.TrimSpace(typ)
			q := 1.0
			for params != "" {
				var p string
				p, params, _ = strings.Cut(params, ";")
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
						q = f
					}
				}
			}
			switch {
			case strings.EqualFold(typ, "text/html"), strings.EqualFold(typ, "application/xhtml+xml"):
				html = max(html, q)
			case strings.EqualFold(typ, "application/json"), strings.EqualFold(typ, "application/problem+json"):
				json = max(json, q)
			}
		}
	}
	return html > 0 && html > json
}
