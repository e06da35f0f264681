// Package conformance holds the test that starts every TechEmpower
// implementation of this module (Plinth in both pool modes, go-std, fiber,
// gin) against a temporary PostgreSQL database with the TFB schema and
// checks each endpoint's shape, headers and parameter clamping. It needs
// PLINTH_TEST_POSTGRES, a base URL such as
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; without it
// the test skips.
package conformance
