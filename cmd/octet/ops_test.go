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
		want := op.Info().Operands.String()
		if op.Info().ParsesAnyCount {
			want += "*"
		}
		if f[1] != want {
			t.Errorf("%s: operands %s, want %s", op, f[1], want)
		}
		if run := f[2] == "yes"; run != interp.Supported(op) {
			t.Errorf("%s: RUN column says %s, interp.Supported says %v", op, f[2], interp.Supported(op))
		}
	}
	// The kinds the parser reads the attributes as, with the words XLA's parser takes for each enum.
	for _, want := range []string{"dimensions:integer-list", "direction:EQ|NE|GE|GT|LE|LT",
		"?operand_precision:{default|high|highest|packed_nibble}", "?schedule:SCHEDULE_NONE|SCHEDULE_LATEST|SCHEDULE_EARLIEST",
		"?operand_layout_constraints:shape-list", "?literal:literal", "?outfeed_shape:shape",
		"?conv_kind:fprop|wgrad|dgrad|unset", "?parameter_replication:{true|false}"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %s:\n%s", want, out)
		}
	}
	for _, row := range []string{"rng ", "dot "} {
		if !regexp.MustCompile(`(?m)^` + row + ` *2\* `).MatchString(out) {
			t.Errorf("the table does not say that XLA's parser reads %sof any operand count", row)
		}
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
		{"operand count", "ROOT d = f32[2,2] transpose(a, a), dimensions={1,0}", "bad.hlo:4:21: transpose takes 1 operand, got 2"},
		{"unknown attribute", "ROOT d = f32[2,2] dot(a, a), foo=bar", "bad.hlo:4:32: unknown attribute foo on dot"},
		{"wrong kind", "ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims=1", "bad.hlo:4:32: attribute lhs_contracting_dims on dot takes an integer list, got 1"},
		{"enum words", "ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={bogus,42}",
			"bad.hlo:4:84: attribute operand_precision on dot lists words among default, high, highest, packed_nibble (in any case), got bogus, 42"},
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

// TestCountsLeftToVerify writes instructions whose operand count XLA's parser leaves to its verifier, as
// XLA's own tests do (an rng with three operands): print reads and prints them, and every command that
// verifies its input refuses them at the instruction, as XLA's verifier does.
func TestCountsLeftToVerify(t *testing.T) {
	for _, tc := range []struct{ name, body, printed, want string }{
		{"rng with three operands", "a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  s = s64[1] parameter(2)\n  ROOT r = f32[4] rng(a, b, s), distribution=rng_uniform",
			"rng(f32[] %a, f32[] %b, s64[1]{0} %s), distribution=rng_uniform", "bad.hlo:6:3: rng takes 2 operands, got 3"},
		{"dot with one operand", "a = f32[2,2] parameter(0)\n  ROOT d = f32[2,2] dot(a), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
			"dot(f32[2,2]{1,0} %a), lhs_contracting_dims={1}", "bad.hlo:4:3: dot takes 2 operands, got 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "HloModule m\nENTRY e {\n  " + tc.body + "\n}\n"
			bad := writeTemp(t, t.TempDir(), "bad.hlo", src)
			code, out, errs := runOctet(t, "", "print", "--format=xla", bad)
			if code != 0 || !strings.Contains(out, tc.printed) {
				t.Errorf("print: exit %d\n%s%s", code, out, errs)
			}
			for _, args := range [][]string{{"verify", bad}, {"check", bad}, {"run", "--random", "1", bad}} {
				code, _, errs := runOctet(t, "", args...)
				if code != 1 || !strings.Contains(errs, tc.want) {
					t.Errorf("%s: exit %d, want 1 and %q:\n%s", args[0], code, tc.want, errs)
				}
			}
		})
	}
}
