//go:build !race

package plinthtest_test

const raceEnabled = false
