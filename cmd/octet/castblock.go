package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"octet/blockscale"
	"octet/dtype"
	"octet/tensor"
)

// castBlockHelp is the part of cast's help about the block-scaled formats.
const castBlockHelp = `

The block-scaled formats (mxfp8e4m3, mxfp8e5m2, mxfp6e2m3, mxfp6e3m2, mxfp4, nvfp4) quantize values in
blocks that share a scale (32 per f8e8m0fnu scale in the MX formats, 16 per f8e4m3fn scale in NVFP4, which
also has one float32 tensor scale g), as the OCP MX v1.0 specification and NVIDIA's NVFP4 description
define them (see "octet finfo mxfp8e4m3"). Given values, cast prints each block's scale and each
value's element:

	$ octet cast --to mxfp8e4m3 300 1 0.5 -2
	mxfp8e4m3: 4 values in 1 block of 32: f8e4m3fn elements, f8e8m0fnu scales
	block 0 (values 1-4): amax 300, scale 0x7f = 2^0 (floor(log2 amax) - 8)
	300 -> 0x79 (288) = 288
	1 -> 0x38 (1) = 1
	0.5 -> 0x30 (0.5) = 0.5
	-2 -> 0xc0 (-2) = -2

With --input FILE.npy (an array of any real type) it quantizes the array in blocks along --axis (the last
by default) and, with -o, writes the elements and the scales: OUT.npz holds the members NAME, NAME_scale
and (NVFP4) NAME_tensor_scale (NAME is --name, x by default); OUT.npy is the elements, beside
OUT.scale.npy and OUT.tensor_scale.npy. With --from FORMAT and --input such a file (.npz, or the .npy of
the elements beside its scales), it dequantizes, and -o writes the float32 values as .npy. NVFP4's tensor
scale is amax / (6 x 448) unless --tensor-scale gives it. --bits and --saturate do not apply: block
formats always saturate.`

// blockCast is one cast to or from a block-scaled format.
type blockCast struct {
	inv         *invocation
	to, from    blockscale.Format
	tensorScale float64
	axis        int
	input, out  string
	name        string
}

// blockFormat returns the block-scaled format a --to or --from names, if any.
func blockFormat(name string) (blockscale.Format, bool) {
	if name == "" {
		return blockscale.Format{}, false
	}
	return blockscale.Lookup(name)
}

func (c *blockCast) run(values []string) error {
	switch {
	case c.from.Valid() && c.to.Valid():
		return usagef("cast converts to or from a block-scaled format, not between two")
	case c.from.Valid() && c.input == "":
		return usagef("cast --from %s dequantizes a file: give it with --input", c.from.Name)
	case c.input != "" && len(values) > 0:
		return usagef("cast takes values or --input, not both")
	case c.out != "" && c.input == "":
		return usagef("-o writes what --input quantizes or dequantizes; values are printed")
	case (c.axis != -1 || c.name != "") && c.input == "":
		return usagef("--axis and --name apply to the array of --input; values form one vector")
	case c.tensorScale != 0 && !(c.to.Valid() && c.to.TensorScale):
		return usagef("--tensor-scale is NVFP4's")
	case c.tensorScale < 0 || math.IsInf(c.tensorScale, 0) || c.tensorScale != c.tensorScale:
		return usagef("--tensor-scale must be positive and finite")
	case c.tensorScale != 0 && (float32(c.tensorScale) == 0 || math.IsInf(float64(float32(c.tensorScale)), 0)):
		// NVFP4's tensor scale is a float32: one that rounds to zero or to infinity would read as "not
		// given" or make every value zero.
		return usagef("--tensor-scale %g is outside float32's range (NVFP4's tensor scale is a float32)", c.tensorScale)
	}
	if c.out != "" {
		// -o is checked before the input is read and quantized: its suffix, and that nothing in the way
		// (a folder, a device, a missing folder) would refuse the write.
		switch {
		case c.from.Valid() && !strings.HasSuffix(c.out, ".npy"):
			return usagef("-o %s: the float32 values are written as .npy", c.out)
		case !strings.HasSuffix(c.out, ".npz") && !strings.HasSuffix(c.out, ".npy"):
			return usagef("-o %s: write .npz or .npy", c.out)
		}
		if err := checkTargets(c.outFiles()); err != nil {
			return err
		}
	}
	if c.from.Valid() {
		return c.dequantizeFile()
	}
	if c.input != "" {
		return c.quantizeFile()
	}
	return c.quantizeValues(values)
}

// quantizeValues quantizes the values of the command line, or of standard input (one a line), as one
// vector, and prints every block and value.
func (c *blockCast) quantizeValues(values []string) error {
	var vals []float64
	var toks []string
	parse := func(tok string) (float64, error) {
		// As cast reads numbers for the other types: signed NaNs and long spellings included.
		x, ok := parseFloat([]byte(tok))
		if !ok {
			return 0, fmt.Errorf("%q is not a number", tok)
		}
		return x, nil
	}
	if len(values) == 0 || len(values) == 1 && values[0] == "-" {
		data, display, err := c.inv.readInput("-")
		if err != nil {
			return err
		}
		for line, raw := range bytes.Split(data, []byte("\n")) {
			f := strings.Fields(string(raw))
			switch {
			case len(f) == 0:
				continue
			case len(f) > 1:
				return fmt.Errorf("%s:%d:%d: unexpected %q after the value", display, line+1, strings.Index(string(raw), f[1])+1, f[1])
			}
			x, err := parse(f[0])
			if err != nil {
				return fmt.Errorf("%s:%d:%d: %v", display, line+1, strings.Index(string(raw), f[0])+1, err)
			}
			vals, toks = append(vals, x), append(toks, f[0])
		}
	} else {
		for i, v := range values {
			x, err := parse(v)
			if err != nil {
				return fmt.Errorf("octet cast: argument %d: %v", i+1, err)
			}
			vals, toks = append(vals, x), append(toks, v)
		}
	}
	f := c.to
	g := 1.0
	if f.TensorScale {
		// A float32, as the files store it and Quantize takes it.
		g = float64(float32(c.tensorScale))
		if g == 0 {
			amax := 0.0
			for _, v := range vals {
				if a := math.Abs(v); a <= math.MaxFloat64 {
					amax = max(amax, a)
				}
			}
			g = float64(blockscale.DefaultTensorScale(amax))
		}
	}
	w := bufio.NewWriter(c.inv.stdout)
	k := f.BlockSize
	nb := (len(vals) + k - 1) / k
	fmt.Fprintf(w, "%s: %s in %s of %d: %s elements, %s scales", f.Name, plural(len(vals), "value"), plural(nb, "block"), k, f.Elem, f.Scale)
	if f.TensorScale {
		how := "given"
		if c.tensorScale == 0 {
			how = "amax / (6 x 448)"
		}
		fmt.Fprintf(w, ", tensor scale g = %s (%s)", strconv.FormatFloat(g, 'g', -1, 32), how)
	}
	fmt.Fprintln(w)
	elems := make([]uint8, k)
	for b := 0; b < nb; b++ {
		lo, hi := b*k, min(b*k+k, len(vals))
		s := f.QuantizeBlock(elems, vals[lo:hi], g)
		amax := 0.0
		for _, v := range vals[lo:hi] {
			amax = max(amax, math.Abs(v))
		}
		fmt.Fprintf(w, "block %d (values %d-%d): amax %s, scale %#02x = %s\n", b, lo+1, hi, fmtValue(amax), s, scaleText(f, s, g))
		for i := lo; i < hi; i++ {
			e := elems[i-lo]
			fmt.Fprintf(w, "%s -> %#0*x (%s) = %s\n", toks[i], (f.Elem.BitWidth()+3)/4, e,
				fmtValue(f.Elem.DecodeFloat64(uint64(e))), fmtFloat32(float32(f.Value(e, s, g))))
		}
	}
	return w.Flush()
}

// scaleText describes a scale code: 2^e for MX (with the rule that chose it), the E4M3 value for NVFP4.
func scaleText(f blockscale.Format, s uint8, g float64) string {
	v := f.ScaleValue(s)
	if v != v {
		return "NaN (the block holds a NaN or an infinity: every value is NaN)"
	}
	if f.IsMX() {
		e := int(s) - 127
		if e == -127 {
			return "2^-127 (the smallest scale)"
		}
		return fmt.Sprintf("2^%d (floor(log2 amax) - %d)", e, f.EmaxElem())
	}
	return fmtValue(v) + " (amax / (6 g), to " + f.Scale.String() + ")"
}

func fmtValue(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// fmtFloat32 writes a float32 value in the shortest form that reads back as it.
func fmtFloat32(x float32) string {
	if x != x || math.IsInf(float64(x), 0) {
		return fmtValue(float64(x))
	}
	return strconv.FormatFloat(float64(x), 'g', -1, 32)
}

// quantizeFile quantizes the array of --input and writes it with -o.
func (c *blockCast) quantizeFile() error {
	x, display, err := c.readArray(c.input, dtype.Invalid)
	if err != nil {
		return err
	}
	if len(x.Shape) == 0 {
		return fmt.Errorf("%s: a scalar has no blocks; give an array", display)
	}
	if c.axis < -len(x.Shape) || c.axis >= len(x.Shape) {
		return usagef("--axis %d is out of range for %s", c.axis, x)
	}
	q, err := blockscale.Quantize(c.to, x, c.axis, blockscale.Options{TensorScale: float32(c.tensorScale)})
	if err != nil {
		return fmt.Errorf("%s: %v", display, err)
	}
	st := q.Stats()
	fmt.Fprintf(c.inv.stdout, "%s: %s -> %s along axis %d: %s of %d (%d NaN, %d zero), %s at the largest magnitude",
		esc(display), x, c.to.Name, q.Axis, plural(int(st.Blocks), "block"), c.to.BlockSize, st.NaNBlocks, st.ZeroBlocks, plural(int(st.AtMax), "element"))
	if c.to.TensorScale {
		fmt.Fprintf(c.inv.stdout, ", tensor scale %v", q.TensorScale)
	}
	fmt.Fprintln(c.inv.stdout)
	if c.out == "" {
		return nil
	}
	names, arrays := q.NpzMembers(c.name)
	return c.write(names, arrays)
}

// write writes arrays to -o: one .npz, or a .npy per array (the first to OUT.npy, the scales beside).
func (c *blockCast) write(names []string, arrays []*tensor.Tensor) error {
	switch {
	case strings.HasSuffix(c.out, ".npz"):
		if err := writeFileAtomic(c.inv.ctx, c.out, func(w io.Writer) error { return tensor.WriteNpz(w, names, arrays) }); err != nil {
			return err
		}
		fmt.Fprintf(c.inv.stdout, "wrote %s (%s)\n", esc(c.out), strings.Join(names, ", "))
	case strings.HasSuffix(c.out, ".npy"):
		// The elements and their scales replace the files there together, or none does.
		files := c.outFiles()[:len(arrays)]
		writes := make([]func(io.Writer) error, len(arrays))
		for i, a := range arrays {
			writes[i] = func(w io.Writer) error { return tensor.WriteNpy(w, a) }
		}
		if err := writeFilesAtomic(c.inv.ctx, files, writes); err != nil {
			return err
		}
		fmt.Fprintf(c.inv.stdout, "wrote %s\n", esc(strings.Join(files, ", ")))
	default:
		return usagef("-o %s: write .npz or .npy", c.out)
	}
	return nil
}

// outFiles are the files -o writes: OUT.npz; or OUT.npy and, quantizing, OUT.scale.npy and (NVFP4)
// OUT.tensor_scale.npy beside it.
func (c *blockCast) outFiles() []string {
	if c.from.Valid() || strings.HasSuffix(c.out, ".npz") {
		return []string{c.out}
	}
	files := []string{c.out, blockscale.ScaleFileName(c.out)}
	if c.to.TensorScale {
		files = append(files, blockscale.TensorScaleFileName(c.out))
	}
	return files
}

// readArray reads one .npy array (want: its ml_dtypes type when the file holds raw bytes).
func (c *blockCast) readArray(name string, want dtype.Type) (*tensor.Tensor, string, error) {
	r, size, display, err := c.inv.openInput(name)
	if err != nil {
		return nil, display, err
	}
	defer r.Close()
	t, err := tensor.ReadNpyWithin(bufio.NewReaderSize(r, 1<<16), want, max(size, 1))
	if err != nil {
		return nil, display, fmt.Errorf("%s: %v", display, err)
	}
	return t, display, nil
}

// dequantizeFile reads a block-scaled array (.npz members, or .npy files side by side) and writes its
// float32 values with -o.
func (c *blockCast) dequantizeFile() error {
	f := c.from
	var data, scales, ts *tensor.Tensor
	display := c.input
	switch {
	case strings.HasSuffix(c.input, ".npz"):
		r, size, disp, err := c.inv.openInput(c.input)
		if err != nil {
			return err
		}
		defer r.Close()
		display = disp
		zr, err := zip.NewReader(r, size)
		if err != nil {
			return fmt.Errorf("%s: npz: %v", display, err)
		}
		name := c.name
		if name == "" {
			var cands []string
			for _, m := range zr.File {
				n := strings.TrimSuffix(m.Name, ".npy")
				if !strings.HasSuffix(n, blockscale.ScaleSuffix) && !strings.HasSuffix(n, blockscale.TensorScaleSuffix) {
					cands = append(cands, n)
				}
			}
			if len(cands) != 1 {
				sort.Strings(cands)
				return fmt.Errorf("%s: name the array with --name (it holds %s)", display, esc(strings.Join(cands, ", ")))
			}
			name = cands[0]
		}
		// Narrow types are stored as raw bytes: the format gives the types of its arrays.
		types := map[string]dtype.Type{}
		for _, m := range zr.File {
			switch n := strings.TrimSuffix(m.Name, ".npy"); {
			case strings.HasSuffix(n, blockscale.TensorScaleSuffix):
			case strings.HasSuffix(n, blockscale.ScaleSuffix):
				types[n] = f.Scale
			default:
				types[n] = f.Elem
			}
		}
		_, arrays, err := tensor.ReadNpzWithin(r, size, types, c.inv.maxInputBytes())
		if err != nil {
			return fmt.Errorf("%s: %v", display, err)
		}
		var ok bool
		if data, ok = arrays[name]; !ok {
			return fmt.Errorf("%s: no member %s", display, name)
		}
		if scales, ok = arrays[name+blockscale.ScaleSuffix]; !ok {
			return fmt.Errorf("%s: no member %s", display, name+blockscale.ScaleSuffix)
		}
		ts = arrays[name+blockscale.TensorScaleSuffix]
	case strings.HasSuffix(c.input, ".npy"):
		var err error
		if data, display, err = c.readArray(c.input, f.Elem); err != nil {
			return err
		}
		if scales, _, err = c.readArray(blockscale.ScaleFileName(c.input), f.Scale); err != nil {
			return err
		}
		if f.TensorScale {
			if ts, _, err = c.readArray(blockscale.TensorScaleFileName(c.input), dtype.Invalid); err != nil {
				return err
			}
		}
	default:
		return usagef("--input %s: read .npz or .npy", c.input)
	}
	q, err := blockscale.FromArrays(f, data, scales, ts)
	if err != nil {
		return fmt.Errorf("%s: %v", esc(display), err)
	}
	x := q.Dequantize()
	vals := tensor.View[float32](x)
	nan, amax := 0, 0.0
	for _, v := range vals {
		if v != v {
			nan++
		} else {
			amax = max(amax, math.Abs(float64(v)))
		}
	}
	fmt.Fprintf(c.inv.stdout, "%s: %s, blocked along axis %d -> %s: amax %s, %d NaN\n", esc(display), f.Name, q.Axis, x, fmtValue(amax), nan)
	if c.out == "" {
		return nil
	}
	if !strings.HasSuffix(c.out, ".npy") {
		return usagef("-o %s: the float32 values are written as .npy", c.out)
	}
	if err := writeFileAtomic(c.inv.ctx, c.out, func(w io.Writer) error { return tensor.WriteNpy(w, x) }); err != nil {
		return err
	}
	fmt.Fprintf(c.inv.stdout, "wrote %s\n", esc(filepath.Clean(c.out)))
	return nil
}
