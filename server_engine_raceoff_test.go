//go:build !race

package plinth

const engineTestRace = false
