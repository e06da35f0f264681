package api

import "github.com/plinth-go/plinth"

// bindPath binds the path parameters: each wildcard's value, which the
// router guarantees is there (registration checked that every wildcard has
// its field); a value that does not parse is a type error.
func (ip *inputPlan) bindPath(c *plinth.Ctx, st *bindState) {
	for _, p := range ip.path {
		st.set(p, c.Param(p.name))
	}
}
