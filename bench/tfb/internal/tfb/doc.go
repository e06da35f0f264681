// Package tfb holds what the TechEmpower implementations of this module
// share, so that they differ only in their HTTP framework: the World and
// Fortune rows, the query-count parameter rule, the database access (a pgx
// pool, or one connection per worker goroutine), the in-memory cache of the
// World table and the fortunes template.
//
// The SQL is the same for every implementation: one prepared
// "SELECT id, randomnumber FROM world WHERE id = $1" round trip per row,
// "SELECT id, message FROM fortune" for the fortunes and one bulk UPDATE per
// updates request.
package tfb
