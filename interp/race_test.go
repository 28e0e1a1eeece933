//go:build race

package interp

// raceEnabled is set when the race detector is on: sync.Pool then drops items at random, on purpose, so
// allocation counts mean nothing.
const raceEnabled = true
