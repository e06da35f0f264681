// Package racetest tells a test whether its binary was built with the race
// detector (go test -race), in one constant, Enabled, for every module of
// Plinth.
//
// The race detector changes what some tests measure: escape analysis keeps
// more values on the heap and sync.Pool drops items at random, so
// allocation counts mean nothing, and every operation is several times
// slower. A test that counts allocations skips under it; a test that runs
// many exchanges at once runs fewer:
//
//	if racetest.Enabled {
//		t.Skip("the race detector changes allocation counts")
//	}
//
// It is the exported form of the standard library's internal/race.Enabled,
// which no module outside the standard library may import; Plinth's
// satellite modules import this one instead of keeping a copy of the two
// build-tagged files.
package racetest
