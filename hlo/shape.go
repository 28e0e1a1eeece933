package hlo

import (
	"slices"
	"strconv"
	"strings"

	"octet/dtype"
)

// ShapeKind says what a Shape describes.
type ShapeKind uint8

const (
	ArrayShape  ShapeKind = iota // an array of Elem with Dims (rank 0 is a scalar)
	TupleShape                   // a tuple of Tuple's shapes
	TokenShape                   // token[]
	OpaqueShape                  // opaque[]
	BufferShape                  // b(f32[2,4]): a buffer holding an array, whose shape is Tuple[0]
)

// UnboundedDim is the size of a dimension of unknown, unbounded size ("?" in text).
const UnboundedDim int64 = -1 << 63

// Shape is the type of a value: an array, a tuple, a token or an opaque value.
type Shape struct {
	Kind ShapeKind
	Elem dtype.Type // element type of an array
	Dims []int64    // sizes of an array's dimensions, major to minor as written; UnboundedDim for "?"
	// Dynamic marks bounded dynamic dimensions ("<=N": the size in Dims is the bound). Nil when none is.
	Dynamic []bool
	Tuple   []Shape // elements of a tuple; the one array shape of a buffer
	// Layout is an array's layout; nil when it has none. Shapes may share a Layout (the parser gives every
	// row-major shape of a rank the same one): to change a shape's layout, replace the pointer.
	Layout *Layout
}

// String returns s as a person reads it in messages, without layouts: f32[16,32], (f32[2], s32[]),
// token[], f32[<=4,?], b(f32[2]). (Package hlo/printer writes shapes as HLO text, layouts included.)
func (s Shape) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s Shape) write(b *strings.Builder) {
	switch s.Kind {
	case TupleShape:
		b.WriteByte('(')
		for i, e := range s.Tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(')')
	case TokenShape:
		b.WriteString("token[]")
	case OpaqueShape:
		b.WriteString("opaque[]")
	case BufferShape:
		b.WriteString("b(")
		for _, e := range s.Tuple {
			e.write(b)
		}
		b.WriteByte(')')
	default:
		b.WriteString(s.Elem.String())
		b.WriteByte('[')
		for i, d := range s.Dims {
			if i > 0 {
				b.WriteByte(',')
			}
			switch {
			case d == UnboundedDim:
				b.WriteByte('?')
			case s.Dynamic != nil && i < len(s.Dynamic) && s.Dynamic[i]:
				b.WriteString("<=")
				b.WriteString(strconv.FormatInt(d, 10))
			default:
				b.WriteString(strconv.FormatInt(d, 10))
			}
		}
		b.WriteByte(']')
	}
}

// Array returns the array shape elem[dims...] with no layout.
func Array(elem dtype.Type, dims ...int64) Shape {
	return Shape{Kind: ArrayShape, Elem: elem, Dims: append([]int64(nil), dims...)}
}

// Scalar returns the rank-0 array shape elem[].
func Scalar(elem dtype.Type) Shape { return Shape{Kind: ArrayShape, Elem: elem} }

// Tuple returns the tuple of the given shapes.
func Tuple(elems ...Shape) Shape { return Shape{Kind: TupleShape, Tuple: elems} }

// IsArray reports whether s is an array.
func (s Shape) IsArray() bool { return s.Kind == ArrayShape }

// IsTuple reports whether s is a tuple.
func (s Shape) IsTuple() bool { return s.Kind == TupleShape }

// Rank is the number of dimensions of an array.
func (s Shape) Rank() int { return len(s.Dims) }

// IsScalar reports whether s is a rank-0 array.
func (s Shape) IsScalar() bool { return s.Kind == ArrayShape && len(s.Dims) == 0 }

// IsDynamic reports whether dimension i is dynamic (bounded or unbounded).
func (s Shape) IsDynamic(i int) bool {
	return s.Dims[i] == UnboundedDim || (s.Dynamic != nil && s.Dynamic[i])
}

// NumElements is the number of elements of an array (its dimensions' product; bounds count for bounded
// dynamic dimensions, and an unbounded one gives -1).
func (s Shape) NumElements() int64 {
	n := int64(1)
	for _, d := range s.Dims {
		if d == UnboundedDim {
			return -1
		}
		n *= d
	}
	return n
}

// ByteSize is the number of bytes a dense array of s takes, one byte per element for sub-byte types;
// tuples add their elements; tokens and opaque values take none.
func (s Shape) ByteSize() int64 {
	switch s.Kind {
	case ArrayShape:
		n := s.NumElements()
		if n < 0 {
			return 0
		}
		return n * int64(s.Elem.ByteSize())
	case TupleShape:
		var t int64
		for _, e := range s.Tuple {
			t += e.ByteSize()
		}
		return t
	}
	return 0
}

// Clone returns a deep copy of s.
func (s Shape) Clone() Shape {
	c := s
	c.Dims = append([]int64(nil), s.Dims...)
	if s.Dynamic != nil {
		c.Dynamic = append([]bool(nil), s.Dynamic...)
	}
	if s.Tuple != nil {
		c.Tuple = make([]Shape, len(s.Tuple))
		for i, e := range s.Tuple {
			c.Tuple[i] = e.Clone()
		}
	}
	if s.Layout != nil {
		l := s.Layout.Clone()
		c.Layout = &l
	}
	return c
}

// WithElem returns a copy of s with element type t.
func (s Shape) WithElem(t dtype.Type) Shape {
	c := s.Clone()
	c.Elem = t
	return c
}

// Equal reports whether s and t are the same shape, layouts included.
func (s Shape) Equal(t Shape) bool { return s.equal(t, true) }

// Compatible reports whether s and t are the same shape, ignoring layouts.
func (s Shape) Compatible(t Shape) bool { return s.equal(t, false) }

// SameDims reports whether s and t are arrays with the same dimensions, whatever their element types.
func (s Shape) SameDims(t Shape) bool {
	if s.Kind != ArrayShape || t.Kind != ArrayShape || len(s.Dims) != len(t.Dims) {
		return false
	}
	for i := range s.Dims {
		if s.Dims[i] != t.Dims[i] || s.IsDynamic(i) != t.IsDynamic(i) {
			return false
		}
	}
	return true
}

func (s Shape) equal(t Shape, layouts bool) bool {
	if s.Kind != t.Kind {
		return false
	}
	switch s.Kind {
	case ArrayShape:
		if s.Elem != t.Elem || !s.SameDims(t) {
			return false
		}
		if layouts {
			if (s.Layout == nil) != (t.Layout == nil) {
				return false
			}
			if s.Layout != nil && !s.Layout.Equal(*t.Layout) {
				return false
			}
		}
	case TupleShape, BufferShape:
		if len(s.Tuple) != len(t.Tuple) {
			return false
		}
		for i := range s.Tuple {
			if !s.Tuple[i].equal(t.Tuple[i], layouts) {
				return false
			}
		}
	}
	return true
}

// SetDefaultLayouts gives every array in s without a layout the default (row-major) one.
func (s *Shape) SetDefaultLayouts() {
	switch s.Kind {
	case ArrayShape:
		if s.Layout == nil {
			l := DefaultLayout(len(s.Dims))
			s.Layout = &l
		}
	case TupleShape, BufferShape:
		for i := range s.Tuple {
			s.Tuple[i].SetDefaultLayouts()
		}
	}
}

// Subshape returns the shape at a tuple index path, or false when the path leaves s.
func (s Shape) Subshape(index []int64) (Shape, bool) {
	for _, i := range index {
		if s.Kind != TupleShape || i < 0 || i >= int64(len(s.Tuple)) {
			return Shape{}, false
		}
		s = s.Tuple[i]
	}
	return s, true
}

// Layout is how an array is laid out in memory: XLA's minor-to-major order plus tiling, element size,
// memory space and the other fields of XLA's Layout, in the order the text prints them.
type Layout struct {
	MinorToMajor []int64
	// DimLevelTypes are the sparse-layout dimension level types as written inside D(...) ("D", "C+", ...).
	DimLevelTypes []string
	Tiles         []Tile
	// TailPaddingAlignment is L(n); 1 (or 0) means none.
	TailPaddingAlignment int64
	IndexType            dtype.Type // #(type); Invalid when unset
	PointerType          dtype.Type // *(type); Invalid when unset
	ElementSizeBits      int64      // E(n); 0 when unset
	MemorySpace          int64      // S(n); 0 is the default space
	SplitConfigs         []SplitConfig
	PhysicalShape        *Shape // P(shape)
	// DynamicShapeMetadataPrefixBytes is M(n).
	DynamicShapeMetadataPrefixBytes int64
}

// CombineDim is the tile dimension "*": it combines the dimensions it covers.
const CombineDim int64 = -9223372036854775808

// Tile is one level of tiling: the tile's dimension sizes, CombineDim for "*".
type Tile []int64

// SplitConfig is one SC(dimension:indices...) entry.
type SplitConfig struct {
	Dimension    int64
	SplitIndices []int64
}

// DefaultLayout is the row-major layout of a rank-n array: minor_to_major {n-1, ..., 0}.
func DefaultLayout(n int) Layout {
	m2m := make([]int64, n)
	for i := range m2m {
		m2m[i] = int64(n - 1 - i)
	}
	return Layout{MinorToMajor: m2m}
}

// IsDefault reports whether l is the plain row-major layout with no other field set.
func (l Layout) IsDefault() bool {
	for i, d := range l.MinorToMajor {
		if d != int64(len(l.MinorToMajor)-1-i) {
			return false
		}
	}
	return l.OnlyMinorToMajor()
}

// OnlyMinorToMajor reports whether no field but the minor-to-major order is set.
func (l Layout) OnlyMinorToMajor() bool {
	return len(l.DimLevelTypes) == 0 && len(l.Tiles) == 0 && l.TailPaddingAlignment <= 1 &&
		l.IndexType == dtype.Invalid && l.PointerType == dtype.Invalid && l.ElementSizeBits == 0 &&
		l.MemorySpace == 0 && len(l.SplitConfigs) == 0 && l.PhysicalShape == nil &&
		l.DynamicShapeMetadataPrefixBytes == 0
}

// Clone returns a deep copy of l.
func (l Layout) Clone() Layout {
	c := l
	c.MinorToMajor = append([]int64(nil), l.MinorToMajor...)
	c.DimLevelTypes = append([]string(nil), l.DimLevelTypes...)
	if l.Tiles != nil {
		c.Tiles = make([]Tile, len(l.Tiles))
		for i, t := range l.Tiles {
			c.Tiles[i] = append(Tile(nil), t...)
		}
	}
	if l.SplitConfigs != nil {
		c.SplitConfigs = make([]SplitConfig, len(l.SplitConfigs))
		for i, s := range l.SplitConfigs {
			c.SplitConfigs[i] = SplitConfig{s.Dimension, append([]int64(nil), s.SplitIndices...)}
		}
	}
	if l.PhysicalShape != nil {
		p := l.PhysicalShape.Clone()
		c.PhysicalShape = &p
	}
	return c
}

// Equal reports whether l and m are the same layout.
func (l Layout) Equal(m Layout) bool {
	if !slices.Equal(l.MinorToMajor, m.MinorToMajor) || len(l.DimLevelTypes) != len(m.DimLevelTypes) ||
		len(l.Tiles) != len(m.Tiles) || len(l.SplitConfigs) != len(m.SplitConfigs) {
		return false
	}
	for i := range l.DimLevelTypes {
		if l.DimLevelTypes[i] != m.DimLevelTypes[i] {
			return false
		}
	}
	for i := range l.Tiles {
		if !slices.Equal(l.Tiles[i], m.Tiles[i]) {
			return false
		}
	}
	for i := range l.SplitConfigs {
		if l.SplitConfigs[i].Dimension != m.SplitConfigs[i].Dimension ||
			!slices.Equal(l.SplitConfigs[i].SplitIndices, m.SplitConfigs[i].SplitIndices) {
			return false
		}
	}
	if (l.PhysicalShape == nil) != (m.PhysicalShape == nil) ||
		(l.PhysicalShape != nil && !l.PhysicalShape.Equal(*m.PhysicalShape)) {
		return false
	}
	return max(l.TailPaddingAlignment, 1) == max(m.TailPaddingAlignment, 1) && l.IndexType == m.IndexType &&
		l.PointerType == m.PointerType && l.ElementSizeBits == m.ElementSizeBits &&
		l.MemorySpace == m.MemorySpace && l.DynamicShapeMetadataPrefixBytes == m.DynamicShapeMetadataPrefixBytes
}

// ProgramShape is the signature of a computation: its parameters' shapes and its result's.
type ProgramShape struct {
	Params []Shape
	Result Shape
}
