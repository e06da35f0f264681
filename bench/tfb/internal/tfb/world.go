package tfb

import "math/rand/v2"

// WorldRows is the number of rows of the World table: ids 1..WorldRows.
const WorldRows = 10000

// World is a row of the World table, with TFB's JSON names.
type World struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

// RandomID returns a World id, uniformly in 1..WorldRows.
func RandomID() int32 { return int32(rand.IntN(WorldRows)) + 1 }

// RandomNumber returns a new randomNumber, uniformly in 1..10000.
func RandomNumber() int32 { return int32(rand.IntN(10000)) + 1 }
