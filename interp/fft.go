package interp

import (
	"math"
	"math/cmplx"

	"octet/hlo"
	"octet/tensor"
)

func init() {
	registerArray((*evaluator).fft, hlo.OpFft)
}

// fft evaluates the four transforms over the last len(fft_length) dimensions: FFT and IFFT (complex to
// complex, the inverse scaled by 1/n), RFFT (real to the n/2+1 non-redundant complex outputs of the last
// dimension) and IRFFT (its inverse, to real). It computes a direct DFT in complex128 per dimension and
// rounds to the result type.
func (e *evaluator) fft(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	x := ts[0]
	kind := in.Str("fft_type")
	lengths := in.Ints("fft_length")
	out := in.Shape
	rank, l := len(x.Shape), len(lengths)
	if l == 0 || l > rank || len(out.Dims) != rank {
		return nil, unsupportedf(in, "fft over %d of %d dimensions", l, rank)
	}
	first := rank - l
	for i, n := range lengths {
		d := first + i
		inN, outN := n, n
		if i == l-1 && kind == "IRFFT" {
			inN = n/2 + 1
		}
		if i == l-1 && kind == "RFFT" {
			outN = n/2 + 1
		}
		if x.Shape[d] != inN || out.Dims[d] != outN {
			return nil, errorf(in, "fft_length %v does not fit %s giving %s", lengths, x, out.String())
		}
	}
	work := int64(1)
	for _, n := range lengths {
		work *= n
	}
	if err := e.charge(out.NumElements() * work); err != nil {
		return nil, err
	}
	switch kind {
	case "FFT", "IFFT":
		v := asComplex(x)
		for d := first; d < rank; d++ {
			v = dft(v, x.Shape, d, kind == "IFFT")
		}
		return fromComplex(out.Elem, out.Dims, v), nil
	case "RFFT":
		v := asComplex(x)
		for d := first; d < rank; d++ {
			v = dft(v, x.Shape, d, false)
		}
		return fromComplex(out.Elem, out.Dims, truncateLast(v, x.Shape, out.Dims[rank-1])), nil
	case "IRFFT":
		v := asComplex(x)
		dims := append([]int64(nil), x.Shape...)
		for d := first; d < rank-1; d++ {
			v = dft(v, dims, d, true)
		}
		// The last dimension holds the non-redundant half of a Hermitian spectrum: rebuild it whole.
		n := lengths[l-1]
		half := dims[rank-1]
		full := make([]complex128, len(v)/int(half)*int(n))
		for row := 0; row < len(v)/int(half); row++ {
			src, dst := v[row*int(half):], full[row*int(n):]
			for k := int64(0); k < n; k++ {
				if k < half {
					dst[k] = src[k]
				} else {
					dst[k] = cmplx.Conj(src[n-k])
				}
			}
		}
		dims[rank-1] = n
		full = dft(full, dims, rank-1, true)
		return fromComplex(out.Elem, out.Dims, full), nil
	}
	return nil, unsupportedf(in, "fft_type %s", kind)
}

// dft transforms v (row-major, of dims) along dimension d, forward or inverse (scaled by 1/n).
func dft(v []complex128, dims []int64, d int, inverse bool) []complex128 {
	n := dims[d]
	stride := int64(1)
	for _, s := range dims[d+1:] {
		stride *= s
	}
	outer := int64(len(v)) / max(n*stride, 1)
	sign := -1.0
	if inverse {
		sign = 1
	}
	twiddle := make([]complex128, n)
	for k := range twiddle {
		twiddle[k] = cmplx.Rect(1, sign*2*math.Pi*float64(k)/float64(n))
	}
	out := make([]complex128, len(v))
	for o := int64(0); o < outer; o++ {
		for s := int64(0); s < stride; s++ {
			base := o*n*stride + s
			for k := int64(0); k < n; k++ {
				var sum complex128
				for j := int64(0); j < n; j++ {
					sum += v[base+j*stride] * twiddle[(j*k)%n]
				}
				if inverse {
					sum /= complex(float64(n), 0)
				}
				out[base+k*stride] = sum
			}
		}
	}
	return out
}

// truncateLast keeps the first keep entries of the last dimension.
func truncateLast(v []complex128, dims []int64, keep int64) []complex128 {
	last := dims[len(dims)-1]
	rows := int64(len(v)) / max(last, 1)
	out := make([]complex128, rows*keep)
	for r := int64(0); r < rows; r++ {
		copy(out[r*keep:(r+1)*keep], v[r*last:r*last+keep])
	}
	return out
}
