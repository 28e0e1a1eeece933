package match

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// BlockDequantize is a block dequantize: a narrow-float array multiplied by scales, one for each block of
// consecutive elements, the scales repeated over their blocks by a broadcast that adds a dimension after
// each blocked one and a reshape that merges them back. It is the pattern XLA's block scaling matcher
// reads (xla/service/gpu/transforms/block_scaling_matcher.cc, BlockScaledDequantizeOps::Match):
//
//	multiply(convert(x), reshape(broadcast(convert(scale))))
//
// with x f8e4m3fn[16,128], scale f8e8m0fnu[16,4], the broadcast f32[16,4,32] (dimensions={0,1}) and the
// reshape f32[16,128]. The multiply's operands may come in either order; the converts may be missing
// where the value already has the multiply's type (XLA's matcher needs both: XLAForm says whether they are
// there); the reshape may be a bitcast, and dimensions of size 1 may come and go, as a compiled module
// writes them. Blocks may run along any dimensions (MX and NVFP4 block one, the contracting one; 128 x 128
// weight blocks two); a scale broadcast without the reshape (per channel, per row) is not a block scale.
type BlockDequantize struct {
	// Multiply is the multiply; Data the narrow value (before its convert), Scale the scales (before
	// theirs).
	Multiply, Data, Scale *hlo.Instruction
	// DataConvert and ScaleConvert are the converts to the multiply's type, nil when absent; Broadcast and
	// Reshape repeat the scales over their blocks (Reshape nil when every block size is 1 but one, and the
	// broadcast already has the data's shape).
	DataConvert, ScaleConvert, Broadcast, Reshape *hlo.Instruction
	// Type is the type the dequantized values have (the multiply's).
	Type dtype.Type
	// Block is the number of consecutive elements along each dimension of Data that share a scale;
	// ScaleShape the scales' shape aligned with Data's (Data's dimensions divided by Block), which Scale
	// has but for dimensions of size 1.
	Block, ScaleShape []int64
}

// XLAForm reports whether d has the exact form XLA's matcher accepts: both converts present and the
// scales repeated by a broadcast then a reshape.
func (d *BlockDequantize) XLAForm() bool {
	return d.DataConvert != nil && d.ScaleConvert != nil && d.Reshape != nil
}

// BlockedDims returns the dimensions of Data whose blocks hold more than one element.
func (d *BlockDequantize) BlockedDims() []int {
	var dims []int
	for i, b := range d.Block {
		if b > 1 {
			dims = append(dims, i)
		}
	}
	return dims
}

// BlockText returns the block sizes for a reader, one per dimension of Data joined by x ("1x32").
func (d *BlockDequantize) BlockText() string {
	parts := make([]string, len(d.Block))
	for i, b := range d.Block {
		parts[i] = strconv.FormatInt(b, 10)
	}
	return strings.Join(parts, "x")
}

// BlockOf returns the block size along dimension dim (1 when it is not blocked).
func (d *BlockDequantize) BlockOf(dim int64) int64 {
	if dim >= 0 && int(dim) < len(d.Block) {
		return d.Block[dim]
	}
	return 1
}

// Resolver steps over instructions that only carry a value across a boundary or reinterpret its layout:
// given an instruction, it returns the one that computes the value (itself when there is none). A
// compiled module's fusions and bitcasts are skipped this way; the identity reads the pattern as written.
type Resolver func(*hlo.Instruction) *hlo.Instruction

// narrowData reports whether t can hold block-scaled elements: a float narrower than 16 bits other than
// the exponent-only scale type.
func narrowData(t dtype.Type) bool { return t.IsNarrowFloat() && t != dtype.F8E8M0FNU }

// FindBlockDequantize reads x (resolved by r, which may be nil) as a block dequantize. It returns the match,
// or nil and the reason it is not one.
func FindBlockDequantize(x *hlo.Instruction, r Resolver) (*BlockDequantize, string) {
	if r == nil {
		r = func(in *hlo.Instruction) *hlo.Instruction { return in }
	}
	x = r(x)
	if x.Opcode != hlo.OpMultiply || x.NumOperands() != 2 || !x.Shape.IsArray() {
		return nil, fmt.Sprintf("%%%s is %s, not a multiply by block scales", x.Name, x.Opcode)
	}
	var why string
	for _, order := range [2][2]int{{0, 1}, {1, 0}} {
		d, reason := blockDequantize(x, r(x.Operand(order[0])), r(x.Operand(order[1])), r)
		if d != nil {
			return d, ""
		}
		if why == "" {
			why = reason
		}
	}
	return nil, why
}

func blockDequantize(mul, data, scales *hlo.Instruction, r Resolver) (*BlockDequantize, string) {
	d := &BlockDequantize{Multiply: mul, Type: mul.Shape.Elem}
	// The data side: convert(x) of a narrow float, or x itself already of the multiply's type.
	switch {
	case data.Opcode == hlo.OpConvert && narrowData(r(data.Operand(0)).Shape.Elem):
		d.DataConvert, d.Data = data, r(data.Operand(0))
	case narrowData(data.Shape.Elem):
		d.Data = data
	default:
		return nil, fmt.Sprintf("neither operand of the multiply %%%s is a narrow float (FP8, FP6, FP4) or a convert of one", mul.Name)
	}
	// The scale side: [reshape](broadcast([convert](scale))).
	s := scales
	if s.Opcode == hlo.OpReshape || s.Opcode == hlo.OpBitcast && s.NumOperands() == 1 {
		// A compiled module writes the reshape as a bitcast.
		d.Reshape, s = s, r(s.Operand(0))
	}
	if s.Opcode != hlo.OpBroadcast {
		return nil, fmt.Sprintf("the scales of the multiply %%%s are not repeated over blocks by a broadcast", mul.Name)
	}
	d.Broadcast = s
	s = r(s.Operand(0))
	if s.Opcode == hlo.OpConvert {
		d.ScaleConvert, s = s, r(s.Operand(0))
	}
	d.Scale = s
	return d.blocks()
}

// blocks works out the block of each data dimension from the broadcast and the reshape: the reshape
// merges runs of the broadcast's dimensions into the data's, and each run must be one dimension of the
// scales followed by dimensions the broadcast adds (the block), or only added dimensions (the whole data
// dimension one block). Dimensions of size 1 may be added anywhere, as a compiled module's bitcasts
// leave them.
func (d *BlockDequantize) blocks() (*BlockDequantize, string) {
	data := d.Data.Shape
	if d.Reshape == nil {
		return nil, fmt.Sprintf("the scales of %%%s are broadcast, not repeated over blocks (a reshape merges each scale's copies into a block)", d.Multiply.Name)
	}
	if !slices.Equal(d.Reshape.Shape.Dims, data.Dims) || !slices.Equal(d.Multiply.Shape.Dims, data.Dims) {
		return nil, fmt.Sprintf("the repeated scales %%%s do not have the data's shape %s", d.Reshape.Name, data.String())
	}
	out := d.Broadcast.Shape.Dims
	mapped := make([]int, len(out))
	for i := range mapped {
		mapped[i] = -1
	}
	for k, pos := range d.Broadcast.Ints("dimensions") {
		if pos < 0 || int(pos) >= len(out) {
			return nil, fmt.Sprintf("the broadcast %%%s has a bad dimension", d.Broadcast.Name)
		}
		mapped[pos] = k
	}
	d.Block = make([]int64, data.Rank())
	d.ScaleShape = make([]int64, data.Rank())
	pos, blocked := 0, false
	for i, n := range data.Dims {
		start, size := pos, int64(1)
		for pos < len(out) && (size < n || pos == start) {
			if size*out[pos] > n && n != 0 {
				break
			}
			size *= out[pos]
			pos++
		}
		if size != n || pos == start {
			return nil, fmt.Sprintf("the reshape %%%s does not merge the broadcast's dimensions into the data's", d.Reshape.Name)
		}
		// The run start..pos, dimensions of size 1 aside: one scale dimension first, then added ones; or
		// added ones only.
		count, first, scaled := int64(1), true, false
		for q := start; q < pos; q++ {
			if out[q] == 1 {
				continue
			}
			switch {
			case mapped[q] >= 0 && first:
				count, scaled = out[q], true
			case mapped[q] >= 0:
				return nil, fmt.Sprintf("the broadcast %%%s repeats the scales inside a block, not over whole blocks", d.Broadcast.Name)
			}
			first = false
		}
		d.ScaleShape[i] = count
		d.Block[i] = n / max(count, 1)
		if scaled && d.Block[i] > 1 {
			blocked = true
		}
	}
	for ; pos < len(out); pos++ {
		if out[pos] != 1 {
			return nil, fmt.Sprintf("the reshape %%%s does not merge the broadcast's dimensions into the data's", d.Reshape.Name)
		}
	}
	if !blocked {
		return nil, fmt.Sprintf("no dimension of %%%s is cut into blocks of several elements that share a scale", d.Data.Name)
	}
	if d.Scale.Shape.NumElements() != product(d.ScaleShape) {
		return nil, fmt.Sprintf("the scales %%%s (%s) are not one per block", d.Scale.Name, d.Scale.Shape.String())
	}
	return d, ""
}

func product(dims []int64) int64 {
	n := int64(1)
	for _, x := range dims {
		n *= x
	}
	return n
}
