package gemm

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"octet/dtype"
)

// A Kernel is one implementation of the innermost loop: it multiplies a packed MR x KC panel of A by a
// packed KC x NR panel of B in registers and updates one MR x NR tile of C. It comes with the cache block
// sizes that suit it and with everything else a product runs on it: the assembly its packing, decoding
// and epilogue use, and the streaming kernels for products of few rows. The kernels a machine can run are
// listed by Kernels; MatMul uses the one SetKernel chose, by default the first.
//
// An ordered kernel keeps the numerics contract of the package documentation: its results are those of
// every other ordered kernel, bit for bit. A bf16 kernel (AVX-512 BF16) is not ordered: it multiplies
// pairs of bf16 values with float32 accumulation, for products whose operands are all of types whose
// values are bf16 values (bf16, FP8, FP6, FP4, small integers; see KernelFor), and hands any other product
// to the ordered kernel beside it. It runs only where SetKernel or KernelEnv chooses it.
type Kernel struct {
	name string
	// mr x nr is the register tile; mc, kc and nc the cache blocks: A is packed mc x kc at a time
	// (kept in L2), B kc x nc (kept in L3), and one kc x nr micro-panel of B stays in L1.
	mr, nr     int
	mc, kc, nc int
	tile       tileFunc
	// ordered is set for a kernel that keeps the numerics contract; bf16 for one that multiplies pairs of
	// bf16 values, whose wide kernel takes the operands that are not bf16 values.
	ordered bool
	bf16    bool
	wide    *Kernel
	// isa says which assembly helpers the kernel's packing, decoding and epilogue use.
	isa isa
	// streams are the streaming kernels for products of few rows, nil for none.
	streams *streamSet
	// tuned holds the block sizes set by SetBlocks (or read from the tuning cache through it), nil for
	// mc, kc, nc.
	tuned atomic.Pointer[Blocks]
}

// A tileFunc is a kernel's tile function. It sets the m x n block (n <= nr) at c (row stride ldc) to
// alpha*S + beta*C (beta*C added with one rounding, C not read when beta == 0), where S is, for each
// element, the float32 sum of the kc steps of k of a and b, continued from the element of the block at acc
// (row stride ldacc) where acc is not nil, else from zero: so that a product whose K is packed in blocks
// sums as if it were one. It runs down the column of ceil(m/mr) register tiles without returning between
// them: a holds as many strips of kc groups of mr elements (a column of the A panel each), b kc groups of
// nr elements (a row of the B panel each). acc may be c itself (ldacc == ldc). For a bf16 kernel, kc
// counts the pairs of k in a and b (each float32 slot of the panels holds two bf16 values of consecutive
// k, the lower k in the low half).
type tileFunc func(kc int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32)

// An isa is the assembly that a kernel's packing, decoding and epilogue use beside its tile: each part
// where the machine has what its routines need and the kernel allows it (the avx2 kernel packs without
// AVX-512, as on a CPU without it, and the go kernel uses no assembly at all). None of them changes a
// result: packing and decoding are exact, and the epilogue's steps round as the Go loops do.
type isa struct {
	pack512  bool // the AVX-512 transposer and byte decoders
	words    bool // the AVX-512 BW packers of bf16 pairs
	pack2    bool // the AVX2 strip packers and decoders, and prefetching
	epilogue bool // the epilogue's steps in AVX2
}

// Name is the kernel's short name: "avx512bf16", "avx512", "avx2", "go".
func (k *Kernel) Name() string { return k.name }

// Tile returns the register tile, MR rows by NR columns of C.
func (k *Kernel) Tile() (mr, nr int) { return k.mr, k.nr }

// Ordered reports whether k keeps the numerics contract of the package documentation: every element the
// float32 fused multiply-add chain over k in order, the same bits as every other ordered kernel. Of the
// kernels there are, only avx512bf16 is not ordered.
func (k *Kernel) Ordered() bool { return k.ordered }

// String describes the kernel: "avx512 14x32".
func (k *Kernel) String() string { return fmt.Sprintf("%s %dx%d", k.name, k.mr, k.nr) }

// goKernel is the portable kernel: plain Go, a 4x4 tile held in 16 local variables, summing with fma32,
// and streaming kernels in Go.
var goKernel = &Kernel{name: "go", mr: 4, nr: 4, mc: 128, kc: 256, nc: 1024, tile: tileGo, ordered: true,
	streams: streamsGo}

// available lists the kernels this machine can run: the ordered ones fastest first, then the others; the
// architecture's init puts its own in front of goKernel.
var available = []*Kernel{goKernel}

// Kernels returns the kernels this machine can run: the ordered ones fastest first (the first is the
// default), then those that are not ordered (avx512bf16), which run only where SetKernel or KernelEnv
// chooses them.
func Kernels() []*Kernel { return append([]*Kernel(nil), available...) }

var selected atomic.Pointer[Kernel]

// KernelEnv is the environment variable that names the default kernel, as Kernel.Name does, in place of
// the fastest ordered one: OCTET_GEMM_KERNEL=avx2 runs a program as it runs on a CPU without AVX-512
// (packing, decoding and streaming too), OCTET_GEMM_KERNEL=avx512bf16 opts into the bf16 kernel. A name
// this machine does not have is ignored.
const KernelEnv = "OCTET_GEMM_KERNEL"

// defaultKernel returns the kernel used when SetKernel has chosen none: the one KernelEnv names, else the
// fastest ordered one.
var defaultKernel = sync.OnceValue(func() *Kernel {
	if name := os.Getenv(KernelEnv); name != "" {
		for _, k := range available {
			if k.name == name {
				return k
			}
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
	cpuFeatures feature
)

// CPU returns the processor's name as it reports it ("" where unknown) and the features of it that the
// kernels look for and the operating system lets programs use, as Linux names them: "avx", "avx2", "fma",
// "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512bf16" and the like.
func CPU() (name string, features []string) {
	return cpuName, cpuFeatures.usable().names()
}

// CurrentKernel returns the kernel SetKernel chose (a bf16 kernel multiplies only some types; see
// KernelFor).
func CurrentKernel() *Kernel { return current() }

// SetKernel makes MatMul use k, one of Kernels(), with everything that comes with it (packing, decoding,
// streaming kernels, the epilogue's steps), and returns the kernel used before. A nil k restores the
// default (the fastest ordered one, or the one KernelEnv names). It panics if k cannot run on this
// machine.
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
func tileGo(kc int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32) {
	for i := 0; i < m; i += 4 {
		var ai []float32
		if acc != nil {
			ai = acc[i*ldacc:]
		}
		tileGo4(kc, a[i*kc:], b, c[i*ldc:], ldc, ai, ldacc, min(4, m-i), n, alpha, beta)
	}
}

// tileGo4 computes one 4x4 register tile (its m x n corner), each sum a chain of fused multiply-adds
// rounded as fma32 rounds them, its quick path written out here so that it is not a call.
func tileGo4(kc int, a, b, c []float32, ldc int, acc []float32, ldacc, m, n int, alpha, beta float32) {
	var s [4][4]float32
	if acc != nil {
		for i := 0; i < m; i++ {
			copy(s[i][:n], acc[i*ldacc:i*ldacc+n])
		}
	}
	a = a[:4*kc]
	b = b[:4*kc]
	for p := 0; p+3 < len(a) && p+3 < len(b); p += 4 {
		ap, bp := (*[4]float32)(a[p:]), (*[4]float32)(b[p:])
		b0, b1, b2, b3 := float64(bp[0]), float64(bp[1]), float64(bp[2]), float64(bp[3])
		for i := range 4 {
			ai, si := float64(ap[i]), &s[i]
			x0, x1, x2, x3 := ai*b0+float64(si[0]), ai*b1+float64(si[1]), ai*b2+float64(si[2]), ai*b3+float64(si[3])
			if !fma32Quick(x0) || !fma32Quick(x1) || !fma32Quick(x2) || !fma32Quick(x3) {
				si[0], si[1], si[2], si[3] = fma32(ap[i], bp[0], si[0]), fma32(ap[i], bp[1], si[1]), fma32(ap[i], bp[2], si[2]), fma32(ap[i], bp[3], si[3])
				continue
			}
			si[0], si[1], si[2], si[3] = float32(x0), float32(x1), float32(x2), float32(x3)
		}
	}
	storeTile(s[:m], c, ldc, n, alpha, beta)
}

// storeTile writes alpha*sums + beta*C to the len(sums) x n corner of the tile at c, as every kernel
// does: alpha*sums rounded, then beta*C added with one rounding (C not read when beta == 0).
func storeTile(sums [][4]float32, c []float32, ldc, n int, alpha, beta float32) {
	for i := range sums {
		row := c[i*ldc : i*ldc+n]
		for j := range row {
			row[j] = combine(alpha, sums[i][j], beta, row[j])
		}
	}
}

// combine returns alpha*s + beta*c as the numerics contract rounds it: alpha*s rounded, then beta*c added
// with one rounding; c is not used when beta == 0.
func combine(alpha, s, beta, c float32) float32 {
	v := float32(alpha * s)
	if beta != 0 {
		v = fma32(beta, c, v)
	}
	return v
}
