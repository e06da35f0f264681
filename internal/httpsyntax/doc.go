// Package httpsyntax holds helpers for HTTP header field syntax (RFC 9110)
// shared by the core and its modules: today the Vary merge, later the
// token and q-value helpers the middleware now keep to themselves.
//
// It is internal: modules of this repository (middleware/compress among
// them) may import it, users may not.
package httpsyntax
