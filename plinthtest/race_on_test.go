//go:build race

package plinthtest_test

const raceEnabled = true
