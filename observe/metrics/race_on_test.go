//go:build race

package metrics_test

// raceEnabled reports whether the race detector is on: it makes sync.Pool
// drop items at random, so allocation counts mean nothing.
const raceEnabled = true
