package interp

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"octet/hlo/parser"
	"octet/tensor"
)

// FuzzSolverCalls builds a linear algebra call from the fuzz bytes (target, batch, sizes, layouts,
// attribute codes, result shapes sometimes wrong, values NaN, infinite or huge among them) and runs it:
// each call must give a result or an error, never a panic or a hang.
func FuzzSolverCalls(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 3, 3, 0, 76, 0}, {1, 0, 4, 2, 1, 86, 1}, {5, 2, 2, 2, 0, 65, 2}, {8, 1, 0, 3, 0, 78, 3},
		{10, 1, 3, 3, 1, 86, 4, 0x7f, 0xc0, 0, 0}, {11, 0, 2, 5, 0, 65, 5}, {13, 3, 1, 1, 0, 85, 6},
	} {
		f.Add(seed)
	}
	targets := []string{
		"lapack_sgetrf_ffi", "cusolver_getrf_ffi", "lapack_spotrf_ffi", "cusolver_potrf_ffi", "lapack_sgeqrf_ffi",
		"lapack_sorgqr_ffi", "lapack_strsm_ffi", "lapack_ssyevd_ffi", "cusolver_syevd_ffi", "lapack_sgesdd_ffi",
		"cusolver_gesvd_ffi", "cusolver_gesvdj_ffi", "lapack_sgeev_ffi", "lapack_sgees_ffi", "lapack_cgetrf_ffi",
		"lapack_cpotrf_ffi", "cu_lu_pivots_to_permutation", "lapack_cheevd_ffi", "lapack_cgesdd_ffi", "lapack_cgeev_ffi",
		"lapack_cgees_ffi", "cusolver_geev_ffi",
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 7 {
			return
		}
		target := targets[int(data[0])%len(targets)]
		batch, m, n := int64(data[1]%3), int64(data[2]%6), int64(data[3]%6)
		col := data[4]%2 == 0
		code := data[5]
		wrong := data[6] % 8 // 0: a result dimension off by one
		values := data[7:]
		ty, cty, rty := "f32", "c64", "f32"
		complexType := strings.HasPrefix(target, "lapack_c")
		if complexType {
			ty = "c64"
		}
		k := min(m, n)
		dims := func(d ...int64) string {
			var parts []string
			if batch > 0 {
				parts = append(parts, fmt.Sprint(batch))
			}
			for _, x := range d {
				parts = append(parts, fmt.Sprint(x))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		layout := func(rank int) string {
			if rank < 2 {
				return ""
			}
			m2m := []string{fmt.Sprint(rank - 1), fmt.Sprint(rank - 2)}
			if col {
				m2m[0], m2m[1] = m2m[1], m2m[0]
			}
			for i := rank - 3; i >= 0; i-- {
				m2m = append(m2m, fmt.Sprint(i))
			}
			return "{" + strings.Join(m2m, ",") + "}"
		}
		r := 2
		if batch > 0 {
			r = 3
		}
		mat := func(t string, a, b int64) string { return t + dims(a, b) + layout(r) }
		vec := func(t string, a int64) string { return t + dims(a) }
		scalar := "s32" + dims()
		operands := []string{mat(ty, m, n)}
		var results []string
		config := fmt.Sprintf("{mode = %d : ui8, uplo = %d : ui8}", code, code)
		switch {
		case strings.Contains(target, "getrf"):
			results = []string{mat(ty, m, n), vec("s32", k), scalar}
		case strings.Contains(target, "potrf"):
			results = []string{mat(ty, m, n), scalar}
			if strings.HasPrefix(target, "cusolver") {
				config = fmt.Sprintf("{lower = %v}", code%2 == 0)
			}
		case strings.Contains(target, "geqrf"):
			results = []string{mat(ty, m, n), vec(ty, k)}
		case strings.Contains(target, "orgqr"):
			operands = append(operands, vec(ty, k))
			results = []string{mat(ty, m, n)}
		case strings.Contains(target, "trsm"):
			operands = []string{mat(ty, m, m), mat(ty, m, n)}
			results = []string{mat(ty, m, n)}
			config = fmt.Sprintf("{diag = %d : ui8, side = %d : ui8, trans_x = %d : ui8, uplo = %d : ui8}", code, code^1, code^2, code^3)
		case strings.Contains(target, "syevd"), strings.Contains(target, "heevd"):
			results = []string{mat(ty, m, n), vec(rty, n), scalar}
			if strings.HasPrefix(target, "cusolver") {
				config = fmt.Sprintf("{algorithm = %d : ui8, lower = %v}", code%4, code%2 == 0)
			}
		case strings.Contains(target, "gesdd"), strings.Contains(target, "gesvd"):
			full := code%2 == 0
			um, un, vm, vn := m, m, n, n
			if !full {
				un, vm = k, k
			}
			if strings.Contains(target, "gesvdj") {
				vm, vn = vn, vm
			}
			results = []string{mat(ty, m, n), vec(rty, k), mat(ty, um, un), mat(ty, vm, vn), scalar}
			if strings.HasPrefix(target, "cusolver") {
				config = fmt.Sprintf("{compute_uv = %v, full_matrices = %v, transposed = false}", code%3 != 0, full)
				if strings.Contains(target, "gesvdj") {
					config = fmt.Sprintf("{compute_uv = %v, full_matrices = %v}", code%3 != 0, full)
				}
			} else {
				config = fmt.Sprintf("{mode = %d : ui8}", map[bool]int{true: 65, false: 83}[full])
			}
		case target == "cusolver_geev_ffi":
			results = []string{mat(ty, n, n), vec(cty, n), mat(ty, n, n), mat(ty, n, n), scalar}
			config = fmt.Sprintf("{left = %v, right = %v}", code%2 == 0, code%3 == 0)
		case strings.Contains(target, "geev"):
			results = []string{vec(ty, n), vec(ty, n), mat(cty, n, n), mat(cty, n, n), scalar}
			if complexType {
				results = results[1:]
			}
			config = fmt.Sprintf("{compute_left = %d : ui8, compute_right = %d : ui8}", code, code^16)
		case strings.Contains(target, "gees"):
			results = []string{mat(ty, n, n), mat(ty, n, n), vec(ty, n), vec(ty, n), scalar, scalar}
			if complexType {
				results = append(results[:3], results[4:]...)
			}
			config = fmt.Sprintf("{mode = %d : ui8, sort = 78 : ui8}", code)
		default: // pivots
			operands = []string{vec("s32", k)}
			results = []string{vec("s32", m)}
			config = "{}"
		}
		if wrong == 0 {
			results[len(results)-1] = strings.Replace(results[len(results)-1], "[", "[1,", 1)
		}
		var b strings.Builder
		b.WriteString("HloModule fuzz\nENTRY e {\n")
		var names []string
		for i, o := range operands {
			fmt.Fprintf(&b, "  p%d = %s parameter(%d)\n", i, o, i)
			names = append(names, fmt.Sprintf("p%d", i))
		}
		res := results[0]
		if len(results) > 1 {
			res = "(" + strings.Join(results, ", ") + ")"
		}
		fmt.Fprintf(&b, "  ROOT c = %s custom-call(%s), custom_call_target=%q, api_version=API_VERSION_TYPED_FFI, backend_config=%s\n}\n",
			res, strings.Join(names, ", "), target, config)
		mod, err := parser.ParseString("fuzz.hlo", b.String())
		if err != nil {
			return // a shape the parser refuses (a dimension of 0 in a layout, say) is not this test's concern
		}
		args, err := RandomInputs(mod, 1)
		if err != nil {
			return
		}
		pos := 0
		for _, a := range args {
			if a.Kind != KindArray || a.Array.Type.IsInteger() {
				continue
			}
			fillFuzzValues(a.Array, values, &pos)
		}
		_, _ = Run(mod, args, Options{MaxMemory: 1 << 24})
	})
}

// fillFuzzValues overwrites floats of t with values decoded from the bytes (four at a time as float32 bits, NaN,
// infinities and huge values included), cycling.
func fillFuzzValues(t *tensor.Tensor, data []byte, pos *int) {
	if len(data) < 4 {
		return
	}
	n := t.NumElements()
	if t.Type.IsComplex() {
		n *= 2
	}
	for i := int64(0); i < n && i < 64; i++ {
		p := *pos % (len(data) - 3)
		bits := uint32(data[p]) | uint32(data[p+1])<<8 | uint32(data[p+2])<<16 | uint32(data[p+3])<<24
		*pos += 4
		v := float64(math.Float32frombits(bits))
		if t.Type.IsComplex() {
			c := t.Complex128s()
			if i%2 == 0 {
				c[i/2] = complex(v, imag(c[i/2]))
			} else {
				c[i/2] = complex(real(c[i/2]), v)
			}
			t2 := fromC128(t.Type, t.Shape, c)
			copy(t.Data, t2.Data)
			continue
		}
		t.SetBitsAt(i, t.Type.EncodeFloat64(v))
	}
}
