package api

import (
	"fmt"
	"reflect"
	"slices"
)

// Security is a security scheme that a guard or middleware checks, declared
// for the document with Group.SetSecurity: Name is its key in
// components.securitySchemes, Scheme what it is (for an API key in a
// bearer token, {Type: "http", Scheme: "bearer"}), Scopes the OAuth2 or
// OpenID Connect scopes it demands, or for other types the roles (OpenAPI
// 3.1 allows both). Default none.
//
// The operations it secures list a 401 problem response (credentials
// missing or wrong), and a 403 too when Scopes is not empty (credentials
// that lack one): a guard that refuses an authenticated caller for a role
// declares that role here.
type Security struct {
	Name   string
	Scheme SecurityScheme
	Scopes []string
}

// SetSecurity declares what the middleware or guards on g's Router check,
// once for the group rather than on each Operation: the operations
// registered on g afterwards, and on the groups made from it afterwards,
// list one security requirement naming every scheme of secs (all of them
// are required), unless their Operation sets Security itself (an empty,
// non-nil Security documents an operation open to all); those operations
// list the 401 problem response, and with Scopes the 403 (see Security).
// The document's components.securitySchemes lists each scheme once, with
// Config.SecuritySchemes. No call, the default, documents no security. It
// documents only: the checking is the middleware's or the guards'. It
// panics on a scheme without a name or a type, and on a name declared
// before with another scheme.
func (g *Group) SetSecurity(secs ...Security) {
	req := map[string][]string{}
	for _, s := range secs {
		if s.Name == "" || s.Scheme.Type == "" {
			panic(fmt.Sprintf("api: SetSecurity on %q: a scheme needs a Name and a Scheme.Type", g.prefix))
		}
		g.api.declareScheme(s.Name, s.Scheme, g.prefix)
		req[s.Name] = slices.Clone(s.Scopes)
	}
	g.security = nil
	if len(secs) > 0 {
		g.security = []map[string][]string{req}
	}
}

// declareScheme records scheme under name for components.securitySchemes.
func (a *API) declareScheme(name string, scheme SecurityScheme, where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if prev, ok := a.schemes[name]; ok && !reflect.DeepEqual(prev, scheme) {
		panic(fmt.Sprintf("api: SetSecurity on %q: the scheme %q is already declared otherwise (%+v)", where, name, prev))
	}
	if c, ok := a.cfg.SecuritySchemes[name]; ok && !reflect.DeepEqual(c, scheme) {
		panic(fmt.Sprintf("api: SetSecurity on %q: the scheme %q is Config.SecuritySchemes' otherwise (%+v)", where, name, c))
	}
	if a.schemes == nil {
		a.schemes = map[string]SecurityScheme{}
	}
	a.schemes[name] = scheme
}

// scopeSecurity is the security an operation registered on a gets when its
// Operation has none: none at the App's root.
func (a *API) scopeSecurity() []map[string][]string { return nil }

// scopeSecurity is the security an operation registered on g gets when its
// Operation has none (SetSecurity).
func (g *Group) scopeSecurity() []map[string][]string { return g.security }
