package gemm

import (
	"fmt"

	"octet/dtype"
)

// A Method is one of the ways a product runs (Plan). They differ in speed alone: every one keeps the
// numerics contract.
type Method int

const (
	// Blocked: A and B packed into cache blocks of float32, decoded on the way, and multiplied by the
	// register tile (products of many rows, or of a B the streaming kernels do not read).
	Blocked Method = iota
	// Streamed: B read once where it lies, row-major or transposed, in its own type, decoded in registers
	// and multiplied at once, A packed once (products of at most 16 rows by a narrow B).
	Streamed
	// Packed: B laid out once as Weights (PackWeights), panels of its own type that the streaming kernels
	// read as one run of memory each; what a caller that multiplies by the same B again and again keeps.
	Packed
)

func (m Method) String() string {
	switch m {
	case Blocked:
		return "blocked"
	case Streamed:
		return "streamed"
	case Packed:
		return "packed"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// planFor returns how MatMulTyped multiplies m rows by b with kern: streamed where there are few rows and
// kern has streaming kernels for b, else blocked.
func planFor(kern *Kernel, m int, b *view) Method {
	if m <= streamMaxRows && streams(kern, b) {
		return Streamed
	}
	return Blocked
}

// Plan returns how MatMulTyped multiplies an A of m rows and type a by a B of type b (stored transposed,
// N x K, when transB) with the kernel SetKernel chose, and names the kernel that runs it: a blocked
// kernel and its tile ("avx512 14x32", "avx512bf16 14x32") or a set of streaming kernels and the tile of
// the one for m rows ("stream-avx512 1x64").
func Plan(m int, a, b dtype.Type, transB bool) (Method, string) {
	kern := current()
	bv := view{typ: b, trans: transB}
	if b == dtype.F32 {
		bv.f32 = []float32{}
	}
	if method := planFor(kern, m, &bv); method == Streamed {
		return method, streamName(kern, b, m)
	}
	return Blocked, kern.forTypes(a, b).String()
}

// streamName names kern's streaming kernel for m rows of B of type t: "stream-avx512 16x16".
func streamName(kern *Kernel, t dtype.Type, m int) string {
	sk, _ := kern.streamFor(t, m)
	rows, cols := sk.tile()
	name := "blocked"
	if kern.streams != nil {
		name = kern.streams.name
	}
	return fmt.Sprintf("%s %dx%d", name, rows, cols)
}

// KernelName names the kernel MatMulTyped runs for a product of m rows with operands of types a and b (B
// stored transposed when transB), as Plan does; MatMulWeights runs the streaming kernels that Plan names
// for its B's type.
func KernelName(m int, a, b dtype.Type, transB bool) string {
	_, name := Plan(m, a, b, transB)
	return name
}
