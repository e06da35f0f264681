//go:build race

package mail_test

const raceEnabled = true
