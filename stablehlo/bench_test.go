package stablehlo

import (
	"go/token"
	"testing"
)

// BenchmarkParse reads the largest program of the StableHLO test corpus (a 1.7 MB FFT test, mostly hex
// constants); the reported MB/s is the reading speed.
func BenchmarkParse(b *testing.B) {
	var src []byte
	var name string
	for _, f := range readArchive(b, "testdata.tar.gz") {
		if len(f.src) > len(src) {
			src, name = f.src, f.name
		}
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(token.NewFileSet(), name, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConvert reads and converts the same program.
func BenchmarkParseConvert(b *testing.B) {
	var src []byte
	var name string
	for _, f := range readArchive(b, "testdata.tar.gz") {
		if len(f.src) > len(src) {
			src, name = f.src, f.name
		}
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseFile(token.NewFileSet(), name, src); err != nil {
			b.Fatal(err)
		}
	}
}
