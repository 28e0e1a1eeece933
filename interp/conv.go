package interp

import (
	"math"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// convolution evaluates a convolution as the StableHLO specification defines it: the input padded with
// zeros (and zeros put between its elements where lhs_dilate asks), then for each output element the dot
// product of its window, over the window's positions and the input features of its feature group (and
// the batch of its batch group), with the kernel. Operands are first converted to the result type, as a
// dot's are (exact for a wider result, so FP8 or bf16 operands of an f32 convolution are multiplied as
// they are).
//
// The sum's order is fixed by the shapes (see docs/numerics.md): k runs over the window's positions in
// row-major order of the spatial dimensions (as dim_labels lists them), and within each position over
// the input features of the group; a position on padding contributes a product with zero. Floats of 32
// bits or fewer accumulate in float32, f64 in float64, each as a chain of fused multiply-adds from zero,
// one per k, and the float32 sum is rounded once to the result type; integers accumulate exactly in int64
// and are clamped to the result's range, as XLA does.
//
// Float convolutions of 32 bits or fewer run on the GEMM kernels: the windows of a panel of output
// positions are laid out as the rows of a matrix (im2col) whose product with the kernel, read as a
// (window x input feature) by output feature matrix, gives the panel's outputs. Package gemm computes
// each element of a product as the same chain of fused multiply-adds in order of k, so the result is
// convolveLoop's, bit for bit.
func (e *evaluator) convolution(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	return e.convolve(in, in.Shape, ts)
}

// convolve evaluates the convolution in describes (its window, dim_labels and group counts) with the
// result shape shape: the instruction's own, or the array a custom call that is a convolution returns.
func (e *evaluator) convolve(in *hlo.Instruction, shape hlo.Shape, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	g, lhs, rhs, err := prepareConvolutionShaped(in, shape, ts)
	if err != nil {
		return nil, err
	}
	return e.runConv(g, lhs, rhs, shape.Elem)
}

// runConv computes the convolution g of operands already of the result type out (or converting exactly
// to a float32 one).
func (e *evaluator) runConv(g *convGeom, lhs, rhs *tensor.Tensor, out dtype.Type) (*tensor.Tensor, error) {
	dom := domainOf(out)
	if err := e.charge(g.macs()); err != nil {
		return nil, err
	}
	dims := g.out
	if product(dims) == 0 {
		// No output position, however large the input's dimensions.
		return tensor.New(out, dims), nil
	}
	switch dom {
	case domFloat32:
		return e.convolveGEMM(g, lhs, rhs, out)
	case domFloat64:
		return fromF64(out, dims, convolveLoop(g, f64s(lhs), f64s(rhs), fma64, e.threads)), nil
	}
	ii := intInfoOf(out)
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if ii.width < 64 {
		if ii.signed {
			lo, hi = -(int64(1) << (ii.width - 1)), int64(1)<<(ii.width-1)-1
		} else {
			lo, hi = 0, int64(ii.mask)
		}
	}
	acc := convolveLoop(g, i64s(lhs), i64s(rhs), func(a, b, c int64) int64 { return c + a*b }, e.threads)
	if !ii.pred && !(ii.unsigned && ii.width == 64) {
		for i, v := range acc {
			acc[i] = max(lo, min(hi, v))
		}
	}
	return fromI64(out, dims, acc), nil
}

// prepareConvolution checks a convolution and returns its geometry and its operands converted to the
// result type (but for those that convert exactly to an f32 result, left as they are).
func prepareConvolution(in *hlo.Instruction, ts []*tensor.Tensor) (*convGeom, *tensor.Tensor, *tensor.Tensor, error) {
	return prepareConvolutionShaped(in, in.Shape, ts)
}

func prepareConvolutionShaped(in *hlo.Instruction, shape hlo.Shape, ts []*tensor.Tensor) (*convGeom, *tensor.Tensor, *tensor.Tensor, error) {
	if len(ts) != 2 {
		return nil, nil, nil, errorf(in, "convolution takes two operands")
	}
	dn, _ := in.Attr("dim_labels").(*hlo.ConvDims)
	if dn == nil {
		return nil, nil, nil, errorf(in, "convolution without dim_labels")
	}
	win, _ := in.Attr("window").(hlo.Window)
	ns := len(dn.InputSpatial)
	if len(win) != ns || len(dn.KernelSpatial) != ns || len(dn.OutputSpatial) != ns {
		if !(len(win) == 0 && ns == 0) {
			return nil, nil, nil, errorf(in, "window has %d dimensions for %d spatial dimensions", len(win), ns)
		}
	}
	fgc, ok := in.Int("feature_group_count")
	if !ok {
		fgc = 1
	}
	bgc, ok := in.Int("batch_group_count")
	if !ok {
		bgc = 1
	}
	out := shape.Elem
	dom := domainOf(out)
	if dom == domComplex {
		return nil, nil, nil, unsupportedf(in, "convolution of complex numbers")
	}
	lhs, rhs := ts[0], ts[1]
	// An operand that converts exactly to a float32 result is multiplied as it is (package gemm decodes
	// it to the same float32 values).
	exact := func(t dtype.Type) bool { return out == dtype.F32 && domainOf(t) == domFloat32 }
	var err error
	if lhs.Type != out && !exact(lhs.Type) {
		if lhs, err = convertTensor(lhs, out, lhs.Shape); err != nil {
			return nil, nil, nil, unsupportedf(in, "convolution: %v", err)
		}
	}
	if rhs.Type != out && !exact(rhs.Type) {
		if rhs, err = convertTensor(rhs, out, rhs.Shape); err != nil {
			return nil, nil, nil, unsupportedf(in, "convolution: %v", err)
		}
	}
	if len(lhs.Shape) != ns+2 || len(rhs.Shape) != ns+2 || len(shape.Dims) != ns+2 {
		return nil, nil, nil, errorf(in, "convolution operands %s and %s do not have rank %d", lhs, rhs, ns+2)
	}
	g := convGeom{dn: dn, win: win, fgc: fgc, bgc: bgc, lhs: lhs.Shape, rhs: rhs.Shape, out: shape.Dims}
	if err := g.check(); err != nil {
		return nil, nil, nil, errorf(in, "%v", err)
	}
	return &g, lhs, rhs, nil
}

type convGeom struct {
	dn            *hlo.ConvDims
	win           hlo.Window
	fgc, bgc      int64
	lhs, rhs, out []int64
}

func (g *convGeom) check() error {
	dn := g.dn
	inF := g.lhs[dn.InputFeature]
	outF := g.rhs[dn.KernelOutput]
	if g.fgc < 1 || g.bgc < 1 || inF%g.fgc != 0 || outF%g.fgc != 0 || outF%g.bgc != 0 || g.lhs[dn.InputBatch]%g.bgc != 0 {
		return errConv("feature_group_count or batch_group_count does not divide the dimensions")
	}
	if g.rhs[dn.KernelInputFeature]*g.fgc != inF {
		return errConv("kernel input features times feature_group_count differ from the input features")
	}
	if g.out[dn.OutputFeature] != outF || g.out[dn.OutputBatch] != g.lhs[dn.InputBatch]/g.bgc {
		return errConv("result batch or feature size does not match the operands")
	}
	for i := range g.win {
		if g.win[i].Size != g.rhs[dn.KernelSpatial[i]] {
			return errConv("window size differs from the kernel's spatial size")
		}
	}
	return nil
}

// macs is the number of multiply-adds of the convolution: one per output element and term of its sum.
func (g *convGeom) macs() int64 {
	return product(g.out) * product(g.rhs) / max(g.rhs[g.dn.KernelOutput], 1)
}

type errConv string

func (e errConv) Error() string { return string(e) }

// inputCoord returns the coordinate in the input of spatial dimension i that window position w of output
// position o reads, or -1 where it reads padding or a hole of the base dilation.
func (g *convGeom) inputCoord(i int, o, w int64) int64 {
	return windowCoord(g.win[i], o, w, g.lhs[g.dn.InputSpatial[i]])
}

// convolveLoop is the convolution as a loop over the output elements, in the order the package comment
// states: madd(a, b, acc) folds each term into the accumulator, which starts at zero; a window position
// on padding contributes madd(0, kernel element, acc). It splits the output elements across threads
// goroutines; each element is summed by one of them, so the result does not depend on their number.
// The float32 GEMM path equals it with madd = gemm.FMA32.
func convolveLoop[T float32 | float64 | int64](g *convGeom, lhs, rhs []T, madd func(a, b, acc T) T, threads int) []T {
	outN := product(g.out)
	res := make([]T, outN)
	if outN == 0 {
		return res
	}
	elem := convElement(g, lhs, rhs, madd)
	k := g.macs() / outN
	parallelFor(threads, int(outN), int(max(1, 4096/max(k, 1))), func(lo, hi int) {
		oidx := make([]int64, len(g.out))
		widx := make([]int64, len(g.win))
		rem := int64(lo)
		for d := len(g.out) - 1; d >= 0; d-- {
			oidx[d] = rem % g.out[d]
			rem /= g.out[d]
		}
		for o := lo; o < hi; o++ {
			res[o] = elem(oidx, widx)
			nextIndex(oidx, g.out)
		}
	})
	return res
}

// convElement returns the function that computes the output element at multi-index oidx as convolveLoop
// does (widx is its scratch space, one entry per spatial dimension).
func convElement[T float32 | float64 | int64](g *convGeom, lhs, rhs []T, madd func(a, b, acc T) T) func(oidx, widx []int64) T {
	dn := g.dn
	ls, rs := rowMajorStrides(g.lhs), rowMajorStrides(g.rhs)
	ns := len(dn.InputSpatial)
	winDims := make([]int64, ns)
	for i := range winDims {
		winDims[i] = g.rhs[dn.KernelSpatial[i]]
	}
	inF := g.lhs[dn.InputFeature]
	outF := g.rhs[dn.KernelOutput]
	inGroup := inF / g.fgc
	outGroup := outF / g.fgc
	batchGroup := g.lhs[dn.InputBatch] / g.bgc
	depthwise := outF / g.bgc
	winN := product(winDims)
	lsf, rsf := ls[dn.InputFeature], rs[dn.KernelInputFeature]
	return func(oidx, widx []int64) T {
		oz := oidx[dn.OutputFeature]
		fg := oz / outGroup
		bg := oz / depthwise
		var acc T
		for i := range widx {
			widx[i] = 0
		}
		lb := (oidx[dn.OutputBatch]+bg*batchGroup)*ls[dn.InputBatch] + fg*inGroup*ls[dn.InputFeature]
		rb := oz * rs[dn.KernelOutput]
		for w := int64(0); w < winN; w++ {
			lin, rin := int64(0), int64(0)
			ok := true
			for k := 0; k < ns; k++ {
				u := g.inputCoord(k, oidx[dn.OutputSpatial[k]], widx[k])
				if u < 0 {
					ok = false
				}
				lin += u * ls[dn.InputSpatial[k]]
				kw := widx[k]
				if g.win[k].Reversal {
					kw = g.win[k].Size - 1 - kw
				}
				rin += kw * rs[dn.KernelSpatial[k]]
			}
			for iz := int64(0); iz < inGroup; iz++ {
				var x T
				if ok {
					x = lhs[lb+lin+iz*lsf]
				}
				acc = madd(x, rhs[rb+rin+iz*rsf], acc)
			}
			nextIndex(widx, winDims)
		}
		return acc
	}
}
