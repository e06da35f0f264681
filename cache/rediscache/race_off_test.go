//go:build !race

package rediscache_test

const raceEnabled = false
