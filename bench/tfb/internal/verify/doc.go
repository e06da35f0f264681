// Package verify is a black-box checker for the TechEmpower Framework
// Benchmarks test types (json, db, queries, fortunes, updates, plaintext,
// cached-queries). It sends HTTP requests to a running server, reads the
// benchmark database to confirm updates and count queries, and reports one
// Result per check, as TFB's own verifier would judge it.
//
// The rules come from the TFB toolset (bench/tfb/RULES.md):
// required headers, content types, no gzip, body shapes and value ranges,
// clamping of the queries/count parameter, a Date header that changes, the
// exact fortunes table with HTML escaping, updates that persist, and the
// number of SQL statements and rows per request.
package verify
