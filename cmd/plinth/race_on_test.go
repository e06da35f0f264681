//go:build race

package main

// raceEnabled reports whether the race detector is on. The tests that
// generate, build and run whole projects skip under it: the race detector
// makes them several times slower, and they test the go command's work on
// generated files, which the run without it covers.
const raceEnabled = true
