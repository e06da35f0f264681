//go:build race

package rediscache_test

const raceEnabled = true
