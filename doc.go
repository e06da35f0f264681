// Package plinth is a web framework on net/http: an *App is an http.Handler,
// any http.Handler is a valid route, any func(http.Handler) http.Handler a
// valid middleware, and route patterns are Go 1.22 ServeMux patterns
// ("GET /users/{id}", "/files/{path...}", "/{$}"), matched the way ServeMux
// matches them.
//
// # The model
//
// New returns an App with the production defaults: a default layer around
// every route and fallback (panic recovery, request IDs, security headers
// and a handler timeout), a request body limit, and a server loop (Run,
// Serve) with timeouts, a connection limit, health probes and a bounded
// graceful drain, configured by Config and PLINTH_* environment variables.
// Bare returns an App that only routes.
//
// Routes are registered on the App or on groups (Router.Group), which scope
// middleware and fallbacks (404, 405, automatic OPTIONS, path redirects) by
// path prefix. Nothing is composed while routes are registered: the first
// request, or Build, freezes the App into a routing table in which every
// route's middleware chain is composed once, header values are rendered and
// conflicts between patterns have already been reported (registration panics,
// naming both patterns and where each was registered).
//
// A request is routed without allocating: the router walks a segment tree
// (or a static-path index) and stores path values in a pooled Ctx, the
// request context of native handlers (HandlerFunc, func(*Ctx) error). A
// handler's error goes to one renderer, RFC 9457 problem JSON by default
// (Problem, App.ErrorHandler). Plain http.Handler routes get r.PathValue and
// r.Pattern, and find their Ctx with CtxOf.
//
// # Where things are
//
//   - app.go: App, New, Bare, Build, ServeHTTP, typed state; doc.go: this.
//   - router.go: Router, registration, groups, middleware lists, fallbacks;
//     compose.go: how chains are composed from native and standard
//     middleware.
//   - routing_*.go: the router. routing_pattern.go parses patterns and
//     relates them (conflicts, precedence), routing_index.go finds the
//     patterns a new one may conflict with, routing_tree.go is the segment
//     tree, routing_static.go the index of all-literal paths, routing_table.go
//     the frozen App, routing_dispatch.go the per-request routing and the
//     router's own answers, routing_scope.go the fallbacks of each prefix,
//     routing_path.go and routing_method.go path cleaning and method sets.
//   - ctx*.go: the request context. ctx.go holds Ctx and its response
//     helpers, ctx_writer.go the response writer that records the status,
//     ctx_body.go the request body's limit, pacing and read errors,
//     ctx_clientip.go the client's address and scheme behind trusted proxies;
//     problem.go the error renderer.
//   - layer*.go: the default layer. layer.go holds its four parts as one
//     implementation and the standalone layers (Recover, RequestID,
//     Security, Timeout); layer_default.go composes them for New;
//     layer_recover.go, layer_requestid.go, layer_security.go and
//     layer_timeout.go are the parts.
//   - server*.go and config.go: the server loop, the connection limit
//     (server_listener.go), the health probes (server_health.go), platform
//     pieces, and the configuration with its environment variables, all
//     resolved in one place (App.resolve).
//
// The optional middleware catalogue is package middleware, typed handlers
// with validation and OpenAPI are package api; compression is its own module
// (middleware/compress). docs/ in the repository has the guides.
package plinth
