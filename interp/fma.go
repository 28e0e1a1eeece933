package interp

import "math"

// fma64 returns a*b + c rounded once to float64.
func fma64(a, b, c float64) float64 { return math.FMA(a, b, c) }
