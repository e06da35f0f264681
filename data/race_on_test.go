//go:build race

package data

// raceEnabled: sync.Pool drops items at random under the race detector, so
// allocation counts are not exact there.
const raceEnabled = true
