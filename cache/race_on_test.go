//go:build race

package cache_test

// raceEnabled: the race detector changes escape analysis, so allocation
// counts are not exact there.
const raceEnabled = true
