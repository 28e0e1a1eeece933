//go:build race

package interp

// raceEnabled is set when the race detector is on: sync.Pool then drops items at random, on purpose, so
// allocation counts mean nothing.
const raceEnabled = true

// raceStride is how many of their cases the long numerics sweeps step over for each one they run (1: all
// of them): under the race detector, which watches the goroutines of the products and evaluations, a
// case runs ten times slower and its numbers were checked by the plain run; a quarter of them still
// drives every goroutine structure of the package.
const raceStride = 4
