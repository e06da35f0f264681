//go:build race

package httpsyntax

// raceEnabled reports whether the race detector is on: it changes escape
// analysis and makes sync.Pool drop items, so allocation counts mean nothing.
const raceEnabled = true
