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
	// register tile: products of many rows, or of a B the streaming kernels do not read.
	Blocked Method = iota
	// Streamed: B read once where it lies, row-major or transposed, in its own type, decoded in registers
	// and multiplied at once, A packed once (a transposed B goes through L1 a block at a time, laid out
	// as a packed panel): products of at most 16 rows by a narrow B, and of a few groups of 16 rows by a
	// row-major one (read again by each group: its lines stream through the caches at little cost).
	Streamed
	// Packed: B laid out in panels of its own type, which the streaming kernels read as one run of memory
	// each, every group of 16 rows in turn while a panel is in L2: products of a few groups of rows by a
	// transposed B (each panel of it is laid out once for them all, instead of once per group), and
	// MatMulWeights on PackWeights, where it is laid out once for every product.
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

// streamRowsMax is the most rows of a product MatMulTyped streams, in groups of 16 (of the largest kernel's
// rows), rather than blocks. Reading B once per group (or laying it out once) costs less than packing it
// into float32 cache blocks up to here: on Sapphire Rapids at N = K = 4096, 64 rows by an f8e4m3fn or s8 B
// ran in 0.5-0.8 times the blocked kernel's time (AVX-512 and AVX2 kernels, either layout), 128 rows in
// 0.7-0.95 times.
const streamRowsMax = 64

// planFor returns how MatMulTyped multiplies m rows by b with kern.
func planFor(kern *Kernel, m int, b *view) Method {
	switch {
	case m > streamRowsMax || !streams(kern, b):
		return Blocked
	case m > streamMaxRows && b.trans:
		return Packed
	}
	return Streamed
}

// Plan returns how MatMulTyped multiplies an A of m rows and type a by a B of type b (stored transposed,
// N x K, when transB) with the kernel SetKernel chose, and names the kernel that runs it: a blocked
// kernel and its tile ("avx512 14x32", "avx512bf16 14x32") or a set of streaming kernels and the tile of
// the one for m rows, or for 16 where there are more ("stream-avx512 1x64"). The choice goes by the shape
// alone: at most 16 rows by a narrow B stream; up to 64 stream a row-major B in groups of 16 and lay out
// a transposed one in panels; more rows, or a B of float32 or f16, run blocked.
func Plan(m int, a, b dtype.Type, transB bool) (Method, string) {
	return planOf(m, a, b, transB, false)
}

// PlanWeights returns how products of m rows by a B multiplied again and again (a weight) run best with
// the kernel SetKernel chose, and names the kernel, as Plan does: Packed where laying B out once
// (PackWeights, then MatMulWeights for every product) pays, for a transposed B of a type the streaming
// kernels read, up to 64 rows (streamed from panels it ran 1.3-3 times as fast as transposed anew by every
// product, on Sapphire Rapids at N = K = 4096, AVX-512 and AVX2 alike); else what Plan says for one
// product (a row-major B streams from where it lies about as fast as from panels: packing it would only
// take memory).
func PlanWeights(m int, a, b dtype.Type, transB bool) (Method, string) {
	return planOf(m, a, b, transB, true)
}

// planOf is Plan, or PlanWeights where weights is set: a transposed B that streams is laid out in panels.
func planOf(m int, a, b dtype.Type, transB, weights bool) (Method, string) {
	kern := current()
	bv := view{typ: b, trans: transB}
	if b == dtype.F32 {
		bv.f32 = []float32{}
	}
	method := planFor(kern, m, &bv)
	if method == Blocked {
		return Blocked, kern.forTypes(a, b).String()
	}
	if weights && transB {
		method = Packed
	}
	return method, streamName(kern, b, m)
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
