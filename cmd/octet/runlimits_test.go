package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// claimingNpy is a .npy file of f32 data whose header claims shape.
func claimingNpy(shape string, data []byte) []byte {
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape)
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

const bigParamModule = "HloModule big\nENTRY e {\n  x = f32[2147483648] parameter(0)\n  ROOT r = f32[] reduce(x, f32[] constant(0)), dimensions={0}, to_apply={\n    a = f32[] parameter(0)\n    b = f32[] parameter(1)\n    ROOT s = f32[] add(a, b)\n  }\n}\n"

// TestRunHugeHeaders gives run inputs whose headers claim 2^31 elements in a few bytes: they are refused
// before anything of their claimed size is allocated, whatever the budget.
func TestRunHugeHeaders(t *testing.T) {
	var npz bytes.Buffer
	zw := zip.NewWriter(&npz)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "arg0.npy", Method: zip.Deflate})
	w.Write(claimingNpy("(2147483648,)", make([]byte, 1<<20)))
	zw.Close()
	files := writeRunFiles(t, map[string][]byte{
		"big.hlo": []byte(bigParamModule),
		"x.npy":   claimingNpy("(2147483648,)", make([]byte, 64)),
		"x.npz":   npz.Bytes(),
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", files["x.npy"], "--max-memory", "0"}, files["x.npy"] + ": npy: f32[2147483648] needs 8589934592 bytes of data"},
		{[]string{"--inputs", files["x.npz"], "--max-memory", "0"}, files["x.npz"] + `: npz: member "arg0.npy": npy: f32[2147483648] needs 8589934592 bytes of data`},
		{[]string{"--inputs", files["x.npz"], "--max-memory", "100GiB"}, `npz: member "arg0.npy": npy: f32[2147483648] needs 8589934592 bytes of data`},
	} {
		var code int
		var errs string
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, _, errs = runOctet(t, "", append(append([]string{"run"}, tc.args...), files["big.hlo"])...)
		runtime.ReadMemStats(&after)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("run %s: exit %d: %s", strings.Join(tc.args, " "), code, errs)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
			t.Errorf("run %s allocated %d MiB", strings.Join(tc.args, " "), n>>20)
		}
	}
	// The budget refuses the program itself before its inputs are read.
	code, _, errs := runOctet(t, "", "run", "--input", files["x.npy"], "--max-memory", "1GiB", files["big.hlo"])
	if code != 1 || !strings.Contains(errs, "more than the memory budget of 1.0 GiB") {
		t.Errorf("run --max-memory 1GiB: exit %d: %s", code, errs)
	}
}

// TestRunNoMemoryLimit checks that --max-memory 0 lifts the budget: a program over a tiny budget runs.
func TestRunNoMemoryLimit(t *testing.T) {
	files := writeRunFiles(t, map[string][]byte{"m.hlo": []byte(runModule)})
	if code, _, errs := runOctet(t, "", "run", "--random", "1", "--max-memory", "16", files["m.hlo"]); code != 1 || !strings.Contains(errs, "more than the memory budget of 16 B") {
		t.Errorf("--max-memory 16: exit %d: %s", code, errs)
	}
	if code, out, errs := runOctet(t, "", "run", "--random", "1", "--max-memory", "0", files["m.hlo"]); code != 0 || !strings.Contains(out, "out0: f32[2,2]") {
		t.Errorf("--max-memory 0: exit %d: %s%s", code, out, errs)
	}
}
