//go:build !race

package gemm

const raceEnabled = false

const raceStride = 1
