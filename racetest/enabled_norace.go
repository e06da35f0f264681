//go:build !race

package racetest

// Enabled reports whether the race detector is on: true in a binary built
// with -race (the build tag race), false otherwise, as here.
const Enabled = false
