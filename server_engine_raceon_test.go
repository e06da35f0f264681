//go:build race

package plinth

// engineTestRace: the race detector is on (the engine tests run fewer
// exchanges at once: it slows every one several times).
const engineTestRace = true
