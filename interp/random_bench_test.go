package interp

import (
	"testing"

	"octet/dtype"
	"octet/hlo"
)

// BenchmarkRandomInputs times the standard normal inputs of float arrays of 1M elements on one thread,
// per element.
func BenchmarkRandomInputs(b *testing.B) {
	for _, t := range []dtype.Type{dtype.F32, dtype.BF16, dtype.F8E4M3FN, dtype.F64} {
		b.Run(t.String(), func(b *testing.B) {
			const n = 1 << 20
			s := hlo.Array(t, n)
			for b.Loop() {
				if _, err := randomValueThreads(s, 7, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		})
	}
}
