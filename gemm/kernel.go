package gemm

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"octet/dtype"
)

// A Kernel is one implementation of the innermost loop: it multiplies a packed MR x KC panel of A by a
// packed KC x NR panel of B in registers and updates one MR x NR tile of C. It comes with the cache block
// sizes that suit it. The kernels a machine can run are listed by Kernels; MatMul uses the one SetKernel
// chose, by default the first.
//
// A bf16 kernel (AVX-512 BF16) multiplies pairs of bf16 values with float32 accumulation: it serves
// products whose operands are all of types whose values are bf16 values (bf16, FP8, FP6, FP4, small
// integers; see KernelFor), and hands any other product to the float32 kernel beside it.
type Kernel struct {
	name string
	// mr x nr is the register tile; mc, kc and nc the cache blocks: A is packed mc x kc at a time
	// (kept in L2), B kc x nc (kept in L3), and one kc x nr micro-panel of B stays in L1.
	mr, nr     int
	mc, kc, nc int
	// tile sets the m x n block (n <= nr) at c (row stride ldc) to alpha*A*B + beta*C, running down the
	// column of ceil(m/mr) register tiles without returning between them: a holds as many strips of kc
	// groups of mr elements (a column of the A panel each), b kc groups of nr elements (a row of the B
	// panel each). C is not read when beta == 0. For a bf16 kernel, kc counts the pairs of k in a and b
	// (each float32 slot of the panels holds two bf16 values of consecutive k, the lower k in the low
	// half).
	tile func(kc int, a, b, c []float32, ldc, m, n int, alpha, beta float32)
	// bf16 is set for a kernel that multiplies pairs of bf16 values; wide is then the kernel used for
	// the operands that are not bf16 values.
	bf16 bool
	wide *Kernel
	// streams are the streaming kernels for products of few rows, by element type of B, fewest rows
	// first (nil for none).
	streams map[dtype.Type][]streamKernel
	// streamISA names them: "avx512", "avx2".
	streamISA string
	// tuned holds the block sizes set by SetBlocks or read from the tuning cache, nil for mc, kc, nc.
	tuned atomic.Pointer[Blocks]
}

// Name is the kernel's short name: "avx512bf16", "avx512", "avx2", "go".
func (k *Kernel) Name() string { return k.name }

// Tile returns the register tile, MR rows by NR columns of C.
func (k *Kernel) Tile() (mr, nr int) { return k.mr, k.nr }

// String describes the kernel: "avx512 14x32".
func (k *Kernel) String() string { return fmt.Sprintf("%s %dx%d", k.name, k.mr, k.nr) }

// goKernel is the portable kernel: plain Go, a 4x4 tile held in 16 local variables.
var goKernel = &Kernel{name: "go", mr: 4, nr: 4, mc: 128, kc: 256, nc: 1024, tile: tileGo}

// available lists the kernels this machine can run, fastest first; the architecture's init adds its own
// in front of goKernel.
var available = []*Kernel{goKernel}

// Kernels returns the kernels this machine can run, fastest first.
func Kernels() []*Kernel { return append([]*Kernel(nil), available...) }

var selected atomic.Pointer[Kernel]

// KernelEnv is the environment variable that names the default kernel, as Kernel.Name does, in place of
// the fastest: OCTET_GEMM_KERNEL=avx2 runs a program as it runs on a CPU without AVX-512 (packing then
// avoids AVX-512 too). A name this machine does not have is ignored.
const KernelEnv = "OCTET_GEMM_KERNEL"

// defaultKernel returns the kernel used when SetKernel has chosen none: the one KernelEnv names, else the
// fastest.
var defaultKernel = sync.OnceValue(func() *Kernel {
	name := os.Getenv(KernelEnv)
	for _, k := range available {
		if name != "" && k.name == name {
			if !strings.HasPrefix(name, "avx512") {
				vectorPacking = false
			}
			return k
		}
	}
	return available[0]
})

// current returns the kernel MatMul uses.
func current() *Kernel {
	if k := selected.Load(); k != nil {
		return k
	}
	return defaultKernel()
}

// forTypes returns the kernel that multiplies operands of types a and b in place of k: k itself, or for
// a bf16 kernel, its float32 kernel when a value of a or b is not a bf16 value.
func (k *Kernel) forTypes(a, b dtype.Type) *Kernel {
	if k.bf16 && !(bf16Exact[a] && bf16Exact[b]) {
		return k.wide
	}
	return k
}

// KernelFor returns the kernel MatMulTyped uses for operands of types a and b (MatMul's operands are f32).
func KernelFor(a, b dtype.Type) *Kernel { return current().forTypes(a, b) }

// cpuName and cpuFeatures describe this machine; the architecture's init sets them.
var (
	cpuName     string
	cpuFeatures []string
)

// CPU returns the processor's name as it reports it ("" where unknown) and the features the kernels use
// that it has (with the operating system's support): "avx2", "fma", "avx512f", "avx512bw", "avx512bf16".
func CPU() (name string, features []string) {
	return cpuName, append([]string(nil), cpuFeatures...)
}

// CurrentKernel returns the kernel SetKernel chose (a bf16 kernel multiplies only some types; see
// KernelFor).
func CurrentKernel() *Kernel { return current() }

// SetKernel makes MatMul use k, one of Kernels(), and returns the kernel used before. A nil k restores the
// default (the fastest, or the one KernelEnv names). It panics if k cannot run on this machine.
func SetKernel(k *Kernel) *Kernel {
	prev := current()
	if k != nil {
		found := false
		for _, a := range available {
			found = found || a == k
		}
		if !found {
			panic("gemm: SetKernel: kernel " + k.String() + " is not available on this machine")
		}
	}
	selected.Store(k)
	return prev
}

// tileGo is goKernel's tile function: tileGo4 on each strip of four rows.
func tileGo(kc int, a, b, c []float32, ldc, m, n int, alpha, beta float32) {
	for i := 0; i < m; i += 4 {
		tileGo4(kc, a[i*kc:], b, c[i*ldc:], ldc, min(4, m-i), n, alpha, beta)
	}
}

// tileGo4 computes one 4x4 register tile (its m x n corner).
func tileGo4(kc int, a, b, c []float32, ldc, m, n int, alpha, beta float32) {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	a = a[:4*kc]
	b = b[:4*kc]
	for p := 0; p+3 < len(a) && p+3 < len(b); p += 4 {
		a0, a1, a2, a3 := a[p], a[p+1], a[p+2], a[p+3]
		b0, b1, b2, b3 := b[p], b[p+1], b[p+2], b[p+3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	acc := [4][4]float32{
		{c00, c01, c02, c03},
		{c10, c11, c12, c13},
		{c20, c21, c22, c23},
		{c30, c31, c32, c33},
	}
	storeTile(acc[:m], c, ldc, n, alpha, beta)
}

// storeTile writes alpha*acc + beta*C to the len(acc) x n corner of the tile at c.
func storeTile(acc [][4]float32, c []float32, ldc, n int, alpha, beta float32) {
	for i := range acc {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			for j := range row {
				row[j] = alpha * acc[i][j]
			}
		} else {
			for j := range row {
				row[j] = alpha*acc[i][j] + beta*row[j]
			}
		}
	}
}
