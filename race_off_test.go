//go:build !race

package plinth_test

const raceEnabled = false
