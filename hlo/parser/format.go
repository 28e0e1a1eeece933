package parser

import (
	"errors"
	"go/token"
	"sync"

	"octet/hlo"
)

// A format is another syntax of HLO modules that ParseFile reads: how to recognise a file of it, and its
// reader. Readers register themselves from their package's init, as image decoders do with
// image.RegisterFormat; a program that imports octet/hlo/prototext reads HloModuleProto text files too.
type format struct {
	name  string
	match func(src []byte) bool
	read  ReadFunc
}

// ReadFunc reads every module of src, whose positions file maps, as ParseFile does.
type ReadFunc func(fset *token.FileSet, file *token.File, src []byte) ([]*hlo.Module, error)

var (
	formatsMu sync.Mutex
	formats   []format
)

// RegisterFormat makes ParseFile hand files that match recognises to read instead of reading them as HLO
// text. name is for messages.
func RegisterFormat(name string, match func(src []byte) bool, read ReadFunc) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	formats = append(formats, format{name, match, read})
}

// FormatName returns the name of the registered format (RegisterFormat) whose reader ParseFile hands src
// to, or "" when ParseFile reads src as HLO text. A program that reads other languages too (StableHLO)
// asks it first: an HloModuleProto text file may start with '#' comment lines, as MLIR text may start
// with '#' aliases.
func FormatName(src []byte) string {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, f := range formats {
		if f.match(src) {
			return f.name
		}
	}
	return ""
}

// readerFor returns the registered reader of src's format, or nil for HLO text.
func readerFor(src []byte) ReadFunc {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, f := range formats {
		if f.match(src) {
			return f.read
		}
	}
	return nil
}

// Span is the part text[Start:End] of a file.
type Span struct{ Start, End int }

// SplitModules returns the parts of a file that hold a module each: the text between "// -----" lines,
// leaving out parts with nothing but white space and comments.
func SplitModules(text string) []Span {
	chunks := splitModules(text)
	spans := make([]Span, len(chunks))
	for i, c := range chunks {
		spans[i] = Span{c.start, c.end}
	}
	return spans
}

// UniquifyNames renames instructions and computations whose names another already has, as the parser
// does for every module it reads.
func UniquifyNames(m *hlo.Module) { uniquifyNames(m) }

// DecodeSharding reads a sharding as HLO writes it ({replicated}, {devices=[2,1]0,1}, ...), decoding the
// parts Octet reasons about.
func DecodeSharding(text string) *hlo.Sharding { return decodeSharding(text) }

// ParseConvDims reads a convolution's dim_labels (b01f_01io->b01f).
func ParseConvDims(text string) (*hlo.ConvDims, error) {
	cd, msg := parseConvDims(text)
	if msg != "" {
		return nil, errors.New(msg)
	}
	return cd, nil
}
