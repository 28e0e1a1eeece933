package gemm

import "fmt"

// Integer row kernels: the vector loops beneath an interpreter's elementwise instructions on 32-bit
// integers (s32 and u32 arrays, the second read as the first's bits). Each element is what Go's own
// operator gives, whatever the kernel set: the AVX2 assembly beside every kernel that uses assembly helpers
// (the AVX-512 kernels too: there is no AVX-512 integer assembly, and every CPU with AVX-512 runs AVX2),
// Go beside the go kernel and in the purego build.

// An IntOp is an elementwise binary operation on 32-bit integers. Addition, subtraction, multiplication
// and the bitwise operations give the same bits on int32 and uint32 values; the extrema and the right
// shifts name the reading they take.
type IntOp uint8

const (
	IntAdd  IntOp = iota // x + y, wrapping
	IntSub               // x - y, wrapping
	IntMul               // x * y, its low 32 bits
	IntAnd               // x & y
	IntOr                // x | y
	IntXor               // x ^ y
	IntMaxS              // max(x, y) of the values read as int32
	IntMinS              // min(x, y) of the values read as int32
	IntMaxU              // max(x, y) of the values read as uint32
	IntMinU              // min(x, y) of the values read as uint32
	IntShl               // x << y, y read as uint32: 0 from 32 on
	IntShrU              // x >> y, logical (x read as uint32): 0 from 32 on
	IntShrS              // x >> y, arithmetic (x read as int32): the sign in every bit from 32 on
	numIntOps
)

func (op IntOp) String() string {
	if op < numIntOps {
		return [...]string{"add", "sub", "mul", "and", "or", "xor", "maxs", "mins", "maxu", "minu", "shl",
			"shru", "shrs"}[op]
	}
	return fmt.Sprintf("IntOp(%d)", uint8(op))
}

// intRowSet is the integer row assembly of one kernel set: each function does the elements of its run
// below a multiple of lanes, which the caller passes as n; the caller finishes the rest in Go.
type intRowSet struct {
	lanes  int
	binary [numIntOps]func(dst, x, y *uint32, n int)
}

// RowU32 sets dst[i] = x[i] op y[i] for every i < len(dst); x and y must be at least as long. dst may be
// x or y (the same elements), but must not overlap them otherwise. For s32 data, pass the int32 slices'
// elements as uint32 (the same bits) and pick the signed extrema.
func RowU32(op IntOp, dst, x, y []uint32) {
	if op >= numIntOps {
		panic("gemm.RowU32: " + op.String())
	}
	n := len(dst)
	if len(x) < n || len(y) < n {
		panic(fmt.Sprintf("gemm.RowU32: %d elements from %d and %d", n, len(x), len(y)))
	}
	i := 0
	if s := current().intRowSet(); s != nil && n >= s.lanes {
		i = n &^ (s.lanes - 1)
		s.binary[op](&dst[0], &x[0], &y[0], i)
	}
	rowU32Go(op, dst[i:], x[i:n], y[i:n])
}

// rowU32Go is RowU32 in Go.
func rowU32Go(op IntOp, dst, x, y []uint32) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch op {
	case IntAdd:
		for i := range dst {
			dst[i] = x[i] + y[i]
		}
	case IntSub:
		for i := range dst {
			dst[i] = x[i] - y[i]
		}
	case IntMul:
		for i := range dst {
			dst[i] = x[i] * y[i]
		}
	case IntAnd:
		for i := range dst {
			dst[i] = x[i] & y[i]
		}
	case IntOr:
		for i := range dst {
			dst[i] = x[i] | y[i]
		}
	case IntXor:
		for i := range dst {
			dst[i] = x[i] ^ y[i]
		}
	case IntMaxS:
		for i := range dst {
			dst[i] = uint32(max(int32(x[i]), int32(y[i])))
		}
	case IntMinS:
		for i := range dst {
			dst[i] = uint32(min(int32(x[i]), int32(y[i])))
		}
	case IntMaxU:
		for i := range dst {
			dst[i] = max(x[i], y[i])
		}
	case IntMinU:
		for i := range dst {
			dst[i] = min(x[i], y[i])
		}
	case IntShl:
		for i := range dst {
			dst[i] = x[i] << y[i]
		}
	case IntShrU:
		for i := range dst {
			dst[i] = x[i] >> y[i]
		}
	case IntShrS:
		for i := range dst {
			dst[i] = uint32(int32(x[i]) >> y[i])
		}
	}
}
