package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/interp"
)

// profileRow is one line of a profile: an instruction, or all the instructions of one opcode.
type profileRow struct {
	Name    string  `json:"name,omitempty"` // the instruction, without %
	Opcode  string  `json:"opcode"`
	Shape   string  `json:"shape,omitempty"`
	Window  string  `json:"window,omitempty"` // a convolution's window, "3x3/2"
	Count   int     `json:"count,omitempty"`  // instructions of the opcode
	Calls   int64   `json:"calls"`
	Seconds float64 `json:"seconds"`
	Share   float64 `json:"share"` // of the run's wall time
	FLOPs   int64   `json:"flops"`
	Bytes   int64   `json:"bytes"`
	GFLOPS  float64 `json:"gflop_per_s"`
	GBPS    float64 `json:"gb_per_s"`
}

// profileReport is what --profile prints, and its JSON form.
type profileReport struct {
	Module       string       `json:"module"`
	Seconds      float64      `json:"seconds"` // wall time of the evaluation
	Threads      int          `json:"threads"`
	Kernels      []string     `json:"gemm_kernels,omitempty"` // the kernels of the dots and convolutions
	FLOPs        int64        `json:"flops"`
	Instructions []profileRow `json:"instructions"` // every instruction timed, the longest first
	Opcodes      []profileRow `json:"opcodes"`      // totals per opcode, the longest first
}

func newProfileReport(m *hlo.Module, p *interp.Profile, threads int) *profileReport {
	total := p.Total()
	r := &profileReport{Module: m.Name, Seconds: total.Seconds(), Threads: threads, Kernels: contractionKernels(m)}
	byOp := map[string]*profileRow{}
	for _, s := range p.Stats() {
		row := statsRow(s.Calls, s.Time, s.FLOPs, s.Bytes, total)
		row.Name, row.Opcode, row.Shape = s.Inst.Name, s.Inst.Opcode.String(), s.Inst.Shape.String()
		if s.Inst.Opcode == hlo.OpConvolution {
			row.Window = windowSummary(s.Inst)
		}
		r.Instructions = append(r.Instructions, row)
		r.FLOPs += s.FLOPs
		op := byOp[row.Opcode]
		if op == nil {
			op = &profileRow{Opcode: row.Opcode}
			byOp[row.Opcode] = op
		}
		op.Count++
		op.Calls += s.Calls
		op.Seconds += row.Seconds
		op.FLOPs += s.FLOPs
		op.Bytes += s.Bytes
	}
	for _, op := range byOp {
		x := statsRow(op.Calls, time.Duration(op.Seconds*1e9), op.FLOPs, op.Bytes, total)
		x.Opcode, x.Count = op.Opcode, op.Count
		r.Opcodes = append(r.Opcodes, x)
	}
	slices.SortFunc(r.Opcodes, func(a, b profileRow) int {
		if a.Seconds != b.Seconds {
			if a.Seconds > b.Seconds {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Opcode, b.Opcode)
	})
	return r
}

func statsRow(calls int64, d time.Duration, flops, bytes int64, total time.Duration) profileRow {
	row := profileRow{Calls: calls, Seconds: d.Seconds(), FLOPs: flops, Bytes: bytes}
	if total > 0 {
		row.Share = d.Seconds() / total.Seconds()
	}
	if d > 0 {
		row.GFLOPS = float64(flops) / d.Seconds() / 1e9
		row.GBPS = float64(bytes) / d.Seconds() / 1e9
	}
	return row
}

// windowSummary describes a convolution's window: sizes, and strides where not all 1 ("3x3/2").
func windowSummary(in *hlo.Instruction) string {
	w, _ := in.Attr("window").(hlo.Window)
	if len(w) == 0 {
		return ""
	}
	sizes, strides := make([]string, len(w)), make([]string, len(w))
	strided := false
	for i, d := range w {
		sizes[i] = fmt.Sprint(d.Size)
		strides[i] = fmt.Sprint(max(d.Stride, 1))
		strided = strided || d.Stride > 1
	}
	s := strings.Join(sizes, "x")
	if strided {
		s += "/" + strings.Join(strides, "x")
	}
	return s
}

// profileTop is how many instructions the table lists before it sums up the rest.
const profileTop = 25

func (r *profileReport) writeJSON(w io.Writer) error {
	return writeJSON(w, r)
}

func (r *profileReport) writeTable(w io.Writer) {
	fmt.Fprintf(w, "profile of %s: %s on %d threads, %s", r.Module, fmtSeconds(r.Seconds), r.Threads, fmtRate(r.FLOPs, r.Seconds))
	if len(r.Kernels) > 0 {
		fmt.Fprintf(w, "; dots and convolutions on %s", strings.Join(r.Kernels, ", "))
	}
	fmt.Fprintln(w)
	header := fmt.Sprintf("%9s %6s %6s %9s %9s %9s %8s  %s", "time", "share", "calls", "GFLOP", "GFLOP/s", "MB", "GB/s", "instruction")
	fmt.Fprintln(w, header)
	line := func(x profileRow, what string) {
		fmt.Fprintf(w, "%9s %5.1f%% %6d %9.3f %9s %9.1f %8s  %s\n", fmtSeconds(x.Seconds), 100*x.Share, x.Calls,
			float64(x.FLOPs)/1e9, fmtGiga(x.FLOPs, x.Seconds), float64(x.Bytes)/1e6, fmtGiga(x.Bytes, x.Seconds), what)
	}
	var rest profileRow
	n := 0
	for i, x := range r.Instructions {
		if i >= profileTop {
			rest.Seconds += x.Seconds
			rest.Share += x.Share
			rest.Calls += x.Calls
			rest.FLOPs += x.FLOPs
			rest.Bytes += x.Bytes
			n++
			continue
		}
		what := "%" + x.Name + " = " + x.Shape + " " + x.Opcode
		if x.Window != "" {
			what += " " + x.Window
		}
		line(x, what)
	}
	if n > 0 {
		line(rest, fmt.Sprintf("(%d more instructions)", n))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.Replace(header, "calls", "count", 1)[:len(header)-len("instruction")]+"opcode")
	for _, x := range r.Opcodes {
		x.Calls = int64(x.Count)
		line(x, x.Opcode)
	}
}

func fmtSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	}
	return fmt.Sprintf("%.1f us", s*1e6)
}

// fmtGiga is a rate in units of 10^9 per second, or "-" where there is none.
func fmtGiga(n int64, seconds float64) string {
	if n == 0 || seconds <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(n)/seconds/1e9)
}

func fmtRate(flops int64, seconds float64) string {
	return fmt.Sprintf("%.3f GFLOP, %s GFLOP/s", float64(flops)/1e9, fmtGiga(flops, seconds))
}

// contractionKernels names the GEMM kernels of a module's float dots, ragged-dots and convolutions of 32
// bits or fewer, by the operand types they multiply (as the interpreter passes them), sorted.
func contractionKernels(m *hlo.Module) []string {
	seen := map[string]bool{}
	var names []string
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			a, b, ok := contractionTypes(in)
			if !ok {
				continue
			}
			name := gemm.KernelFor(a, b).String()
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// contractionTypes returns the operand types the interpreter passes package gemm for a dot, ragged-dot or
// convolution with a float result of 32 bits or fewer; ok is false for any other instruction.
func contractionTypes(in *hlo.Instruction) (a, b dtype.Type, ok bool) {
	operands := 2
	if in.Opcode == hlo.OpRaggedDot {
		operands = 3 // and group sizes
	}
	if !contractionOp(in.Opcode) || !in.Shape.IsArray() ||
		!in.Shape.Elem.IsFloat() || in.Shape.Elem == dtype.F64 || in.NumOperands() != operands {
		return 0, 0, false
	}
	types := [2]dtype.Type{}
	for i := range types {
		t := in.Operand(i).Shape.Elem
		if in.Shape.Elem != dtype.F32 || !t.IsFloat() || !gemm.SupportedType(t) {
			t = in.Shape.Elem // converted to the result type first
		}
		if !gemm.SupportedType(t) {
			t = dtype.F32
		}
		types[i] = t
	}
	return types[0], types[1], true
}
