// Package httpsyntax holds the helpers for HTTP syntax (RFC 9110, and the
// URL query) shared by the core and its modules, so that they read a header
// the same way:
//
//   - tokens and whitespace: IsToken, TrimOWS;
//   - comma-separated lists: ListHas;
//   - Vary: VaryNames (names fixed at construction) and AddVary;
//   - Accept-Encoding: ParseAcceptEncoding and its weights, ParseQ;
//   - the raw URL query: LookupQuery, UnescapeQuery.
//
// Everything a request reaches allocates nothing unless its doc comment
// says when it does.
//
// It is internal: modules of this repository (middleware/compress among
// them) may import it, users may not.
package httpsyntax
