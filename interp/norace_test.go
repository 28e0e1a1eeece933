//go:build !race

package interp

const raceEnabled = false

const raceStride = 1
