package gemm

import (
	"cmp"
	"fmt"
	"unsafe"
)

// Compare and select row kernels: the vector loops beneath an interpreter's compares of 32-bit elements
// (s32, u32, f32) into pred bytes, and its selects of 32-bit elements and of pred bytes by a pred. Each
// element is what Go's own operators give, whatever the kernel set: the AVX2 assembly beside every kernel
// that runs the integer row assembly (see intRowSet), Go beside the go kernel and in the purego build.

// A CmpOp is the direction of an elementwise comparison.
type CmpOp uint8

const (
	CmpEQ CmpOp = iota // x == y
	CmpNE              // x != y (true where either is a NaN)
	CmpLT              // x < y
	CmpLE              // x <= y
	CmpGT              // x > y
	CmpGE              // x >= y
	numCmpOps
)

func (op CmpOp) String() string {
	if op < numCmpOps {
		return [...]string{"eq", "ne", "lt", "le", "gt", "ge"}[op]
	}
	return fmt.Sprintf("CmpOp(%d)", uint8(op))
}

// cmpType is the reading of a compare's 32-bit elements.
type cmpType uint8

const (
	cmpS32 cmpType = iota
	cmpU32
	cmpF32
	numCmpTypes
)

// The kernels of one type: EQ, NE, GT and GE; LT and LE are GT and GE of the operands swapped (which
// holds for floats too: both sides are false where either is a NaN).
const numCmpKernels = 4

// cmpRowSet is the compare and select row assembly of one kernel set: each function does the elements
// of its run below a multiple of its granularity (lanes for the compares and the 32-bit select, bytes
// for the byte select), which the caller passes as n; the caller finishes the rest in Go.
type cmpRowSet struct {
	lanes, bytes int
	cmp          [numCmpTypes][numCmpKernels]func(dst *byte, x, y *uint32, n int)
	sel32        func(dst *uint32, p *byte, x, y *uint32, n int)
	sel8         func(dst, p, x, y *byte, n int)
}

// CompareS32 sets dst[i] to 1 where x[i] op y[i], else to 0, for every i < len(dst); x and y must be
// at least as long, and dst must not overlap them.
func CompareS32(op CmpOp, dst []byte, x, y []int32) {
	compareRow("CompareS32", cmpS32, op, dst, asU32(x), asU32(y))
}

// CompareU32 is CompareS32 on uint32 values.
func CompareU32(op CmpOp, dst []byte, x, y []uint32) {
	compareRow("CompareU32", cmpU32, op, dst, x, y)
}

// CompareF32 is CompareS32 on float32 values, as Go compares them: a NaN compares false but for CmpNE,
// and the two zeros are equal.
func CompareF32(op CmpOp, dst []byte, x, y []float32) {
	compareRow("CompareF32", cmpF32, op, dst, asU32(x), asU32(y))
}

// asU32 is s's elements as uint32 values: the same bits.
func asU32[T int32 | float32](s []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// compareRow is the compares on x and y's bits read as t.
func compareRow(name string, t cmpType, op CmpOp, dst []byte, x, y []uint32) {
	if op >= numCmpOps {
		panic("gemm." + name + ": " + op.String())
	}
	n := len(dst)
	if len(x) < n || len(y) < n {
		panic(fmt.Sprintf("gemm.%s: %d elements from %d and %d", name, n, len(x), len(y)))
	}
	switch op {
	case CmpLT:
		op, x, y = CmpGT, y, x
	case CmpLE:
		op, x, y = CmpGE, y, x
	}
	i := 0
	if s := current().cmpRowSet(); s != nil && n >= s.lanes {
		i = n &^ (s.lanes - 1)
		k := op
		if op >= CmpGT {
			k -= CmpGT - CmpLT // EQ, NE, GT, GE: 0 to 3
		}
		s.cmp[t][k](&dst[0], &x[0], &y[0], i)
	}
	compareGo(t, op, dst[i:], x[i:n], y[i:n])
}

// compareGo is compareRow in Go, for any op.
func compareGo(t cmpType, op CmpOp, dst []byte, x, y []uint32) {
	switch t {
	case cmpS32:
		CompareLoop(op, dst, unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(x))), len(x)),
			unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(y))), len(y)))
	case cmpU32:
		CompareLoop(op, dst, x, y)
	case cmpF32:
		CompareLoop(op, dst, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x)),
			unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(y))), len(y)))
	}
}

// CompareLoop sets dst[i] to 1 where x[i] op y[i], else 0, for every i < len(dst), in Go for any ordered
// type: what the compare rows compute (x and y at least as long as dst). Each case sets a byte without a
// call or a branch the data decides (the compiler makes "if c { v = 1 }" a flag set): either would cost
// ten times the comparison.
func CompareLoop[T cmp.Ordered](op CmpOp, dst []byte, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch op {
	case CmpEQ:
		for i := range dst {
			var v byte
			if x[i] == y[i] {
				v = 1
			}
			dst[i] = v
		}
	case CmpNE:
		for i := range dst {
			var v byte
			if x[i] != y[i] {
				v = 1
			}
			dst[i] = v
		}
	case CmpLT:
		for i := range dst {
			var v byte
			if x[i] < y[i] {
				v = 1
			}
			dst[i] = v
		}
	case CmpLE:
		for i := range dst {
			var v byte
			if x[i] <= y[i] {
				v = 1
			}
			dst[i] = v
		}
	case CmpGT:
		for i := range dst {
			var v byte
			if x[i] > y[i] {
				v = 1
			}
			dst[i] = v
		}
	case CmpGE:
		for i := range dst {
			var v byte
			if x[i] >= y[i] {
				v = 1
			}
			dst[i] = v
		}
	}
}

// SelectU32 sets dst[i] to x[i] where p[i] is not zero, else to y[i], for every i < len(dst); p, x and y
// must be at least as long. dst may be x or y (the same elements), but must not overlap them otherwise.
// For s32 or f32 data, pass the elements as uint32 (the same bits).
func SelectU32(dst []uint32, p []byte, x, y []uint32) {
	n := len(dst)
	if len(p) < n || len(x) < n || len(y) < n {
		panic(fmt.Sprintf("gemm.SelectU32: %d elements from %d, %d and %d", n, len(p), len(x), len(y)))
	}
	i := 0
	if s := current().cmpRowSet(); s != nil && n >= s.lanes {
		i = n &^ (s.lanes - 1)
		s.sel32(&dst[0], &p[0], &x[0], &y[0], i)
	}
	selectGo(dst[i:], p[i:n], x[i:n], y[i:n])
}

// SelectU8 is SelectU32 on bytes (pred values among them: any byte but zero is true).
func SelectU8(dst, p, x, y []byte) {
	n := len(dst)
	if len(p) < n || len(x) < n || len(y) < n {
		panic(fmt.Sprintf("gemm.SelectU8: %d elements from %d, %d and %d", n, len(p), len(x), len(y)))
	}
	i := 0
	if s := current().cmpRowSet(); s != nil && n >= s.bytes {
		i = n &^ (s.bytes - 1)
		s.sel8(&dst[0], &p[0], &x[0], &y[0], i)
	}
	selectGo(dst[i:], p[i:n], x[i:n], y[i:n])
}

// selectGo is SelectU32 and SelectU8 in Go.
func selectGo[T byte | uint32](dst []T, p []byte, x, y []T) {
	p, x, y = p[:len(dst)], x[:len(dst)], y[:len(dst)]
	for i, c := range p {
		// Without a branch (a random predicate would mispredict half the time): c|-c has its top bit
		// set unless c is zero.
		m := -T((c | -c) >> 7)
		dst[i] = y[i] ^ (x[i]^y[i])&m
	}
}
