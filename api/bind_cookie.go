package api

import (
	"net/http"
)

// bindCookies binds the cookie parameters: the first cookie of each name;
// an absent or empty cookie is absent.
func (ip *inputPlan) bindCookies(r *http.Request, st *bindState) {
	for _, p := range ip.cookie {
		ck, err := r.Cookie(p.name)
		if err != nil || ck.Value == "" {
			st.missing(p)
		} else {
			st.set(p, ck.Value)
		}
	}
}
