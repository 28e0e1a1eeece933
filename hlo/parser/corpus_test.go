package parser_test

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"octet/hlo/parser"
	_ "octet/hlo/prototext" // the corpus holds HloModuleProto text files too
	"octet/internal/shared"
)

// corpusFiles lists every HLO text file of the shared corpus (gzipped ones too).
func corpusFiles(t testing.TB) []string {
	dir := shared.Path(t, "corpus", "hlo")
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if len(files) == 0 {
		t.Fatalf("no corpus files under %s", dir)
	}
	return files
}

// TestCorpusParses parses every file of the corpus: all of them must parse (files that are invalid by
// design may fail verification, never parsing).
func TestCorpusParses(t *testing.T) {
	modules := 0
	for _, path := range corpusFiles(t) {
		src, err := shared.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := parser.ParseFile(token.NewFileSet(), filepath.Base(path), src)
		if err != nil {
			msg := err.Error()
			if len(msg) > 600 {
				msg = msg[:600] + "..."
			}
			t.Errorf("%s", msg)
			continue
		}
		modules += len(mods)
	}
	t.Logf("%d modules parsed", modules)
}

// BenchmarkParseLargest parses the largest file of the corpus and reports MB/s.
func BenchmarkParseLargest(b *testing.B) {
	var src []byte
	for _, path := range corpusFiles(b) {
		data, err := shared.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(src) {
			src = data
		}
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parser.ParseFile(token.NewFileSet(), "largest.hlo", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse parses two large modules of the corpus: one of many short instructions, one of fewer
// longer ones.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{
		"xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_1x8.hlo.gz",
		"xla__backends__cpu__benchmarks__hlo__gemma2_2b_keras_jax.hlo.gz",
	} {
		src, err := shared.ReadFile(shared.Path(b, "corpus", "hlo", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name[strings.LastIndex(name, "__")+2:], func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parser.ParseFile(token.NewFileSet(), name, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
