package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"octet/hlo"
	"octet/interp"
)

// TestOpsListsEveryOpcode checks that the table has one line per opcode and that its RUN column is the
// interpreter's own answer.
func TestOpsListsEveryOpcode(t *testing.T) {
	code, out, errs := runOctet(t, "", "ops")
	if code != 0 {
		t.Fatalf("octet ops: exit %d: %s", code, errs)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 6 {
			rows[f[0]] = f
		}
	}
	for _, op := range hlo.Opcodes() {
		f, ok := rows[op.String()]
		if !ok {
			t.Errorf("octet ops does not list %s", op)
			continue
		}
		if want := op.Info().Operands.String(); f[1] != want {
			t.Errorf("%s: operands %s, want %s", op, f[1], want)
		}
		if run := f[2] == "yes"; run != interp.Supported(op) {
			t.Errorf("%s: RUN column says %s, interp.Supported says %v", op, f[2], interp.Supported(op))
		}
	}
	if !strings.Contains(out, "dimensions:integer-list") || !strings.Contains(out, "direction:EQ|NE|GE|GT|LE|LT") {
		t.Errorf("attributes missing from the table:\n%s", out)
	}
	if !strings.Contains(out, "Every instruction also accepts: ?sharding:sharding") {
		t.Errorf("the common attributes are not listed")
	}
}

func TestOpsJSON(t *testing.T) {
	code, out, errs := runOctet(t, "", "ops", "--json", "dot", "tuple")
	if code != 0 {
		t.Fatalf("octet ops --json: exit %d: %s", code, errs)
	}
	var doc struct {
		Common []struct{ Name string } `json:"common_attributes"`
		Ops    []struct {
			Opcode      string `json:"opcode"`
			MinOperands int    `json:"min_operands"`
			MaxOperands *int   `json:"max_operands"`
			Attributes  []struct {
				Name     string `json:"name"`
				Kind     string `json:"kind"`
				Required bool   `json:"required"`
			} `json:"attributes"`
			Interpreter bool   `json:"interpreter"`
			StableHLO   string `json:"stablehlo"`
		} `json:"ops"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Ops) != 2 || len(doc.Common) != len(hlo.CommonAttrs()) {
		t.Fatalf("want dot and tuple and the common attributes, got %s", out)
	}
	dot, tuple := doc.Ops[0], doc.Ops[1]
	if dot.Opcode != "dot" || dot.MinOperands != 2 || dot.MaxOperands == nil || *dot.MaxOperands != 2 ||
		!dot.Interpreter || dot.StableHLO != "stablehlo.dot_general" || len(dot.Attributes) == 0 ||
		dot.Attributes[0].Kind != "integer list" {
		t.Errorf("dot: %+v", dot)
	}
	if tuple.Opcode != "tuple" || tuple.MinOperands != 0 || tuple.MaxOperands != nil {
		t.Errorf("tuple: %+v", tuple)
	}
	if code, _, _ := runOctet(t, "", "ops", "frobnicate"); code != 2 {
		t.Errorf("octet ops frobnicate: exit %d, want 2", code)
	}
}

// TestOpsRunColumnAgreesWithRun runs one instance of a few opcodes through "octet run": those the table
// marks as run evaluate, the others are refused as unsupported.
func TestOpsRunColumnAgreesWithRun(t *testing.T) {
	for _, tc := range []struct {
		op   hlo.Opcode
		body string
	}{
		{hlo.OpAdd, "x = f32[4] parameter(0)\n  ROOT r = f32[4] add(x, x)"},
		{hlo.OpReverse, "x = f32[4] parameter(0)\n  ROOT r = f32[4] reverse(x), dimensions={0}"},
		{hlo.OpCholesky, "x = f32[2,2] parameter(0)\n  ROOT r = f32[2,2] cholesky(x), lower=true"},
		{hlo.OpTriangularSolve, "a = f32[2,2] parameter(0)\n  b = f32[2,2] parameter(1)\n  ROOT r = f32[2,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE"},
	} {
		t.Run(tc.op.String(), func(t *testing.T) {
			file := writeTemp(t, t.TempDir(), "op.hlo", "HloModule m\nENTRY e {\n  "+tc.body+"\n}\n")
			code, _, errs := runOctet(t, "", "run", "--random", "1", file)
			if interp.Supported(tc.op) {
				if code != 0 {
					t.Errorf("supported, but octet run: exit %d: %s", code, errs)
				}
			} else if code != 1 || !strings.Contains(errs, "unsupported") {
				t.Errorf("not supported, but octet run: exit %d: %s", code, errs)
			}
		})
	}
}

// TestCommandsRejectMalformedOperations feeds each reading command an instruction that does not fit its
// opcode: each exits 1 with the positioned error and nothing else.
func TestCommandsRejectMalformedOperations(t *testing.T) {
	const good = "HloModule m\nENTRY e {\n  a = f32[2,2] parameter(0)\n  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"
	for _, tc := range []struct {
		name, bad, want string
	}{
		{"operand count", "ROOT d = f32[2,2] dot(a)", "bad.hlo:4:21: dot takes 2 operands, got 1"},
		{"unknown attribute", "ROOT d = f32[2,2] dot(a, a), foo=bar", "bad.hlo:4:32: unknown attribute foo on dot"},
		{"wrong kind", "ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims=1", "bad.hlo:4:32: attribute lhs_contracting_dims on dot takes an integer list, got 1"},
	} {
		dir := t.TempDir()
		src := strings.Replace(good, "ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}", tc.bad, 1)
		bad := writeTemp(t, dir, "bad.hlo", src)
		ok := writeTemp(t, dir, "good.hlo", good)
		for _, args := range [][]string{{"check", bad}, {"fuse", bad}, {"diff", ok, bad}, {"run", "--random", "1", bad}, {"print", bad}, {"verify", bad}} {
			t.Run(tc.name+"/"+args[0], func(t *testing.T) {
				code, _, errs := runOctet(t, "", args...)
				if code != 1 {
					t.Errorf("exit %d, want 1; stderr:\n%s", code, errs)
				}
				if !strings.Contains(errs, tc.want) {
					t.Errorf("stderr does not hold %q:\n%s", tc.want, errs)
				}
				if regexp.MustCompile(`panic|goroutine \d`).MatchString(errs) {
					t.Errorf("stderr shows a crash:\n%s", errs)
				}
			})
		}
	}
}
