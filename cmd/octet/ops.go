package main

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"octet/hlo"
	"octet/interp"
)

func init() {
	register(&command{
		Name:      "ops",
		UsageLine: "ops [--json] [OPCODE...]",
		Short:     "list the HLO opcodes: operands, attributes, interpreter support, StableHLO name",
		Long: `Ops prints the table of HLO opcodes that the parser and the verifier check instructions against,
one opcode a line (or only the OPCODEs named):

	OPCODE      its name in HLO text
	OPERANDS    how many operands it takes: 2, 1..4, or 1+ for one or more (a * after it: the
	            parser reads any number, as XLA's does, and verify checks the count)
	RUN         yes when "octet run" evaluates it (some types or configurations may still be refused)
	STABLEHLO   the corresponding StableHLO operation, - when there is none
	PROPERTIES  elementwise, commutative, side-effect (kept when unused), may-alias (the result may
	            share memory with an operand)
	ATTRIBUTES  name:kind for each attribute, ? before an optional one; an enum lists its words
	            (word|word), a list of enum words in braces ({word|word})

The attributes every instruction accepts (metadata, sharding, backend_config, ...) are listed once, after
the table. An instruction with another number of operands, an attribute its opcode does not take, a value
of the wrong kind (or a word its enum does not have) or without a required attribute is rejected where it
is written; where XLA's parser reads any number of operands, only verify (and every command that verifies
its input) rejects a wrong count.

--json prints {"common_attributes": [ATTR...], "ops": [OP...]} where each OP has opcode, min_operands,
max_operands (null: no limit), parses_any_count, attributes, elementwise, commutative, side_effect,
may_alias, interpreter (bool) and stablehlo (omitted when none), and each ATTR has name, kind, required,
and values (with any_case when the words may be written in any case) or role when it has them.`,
		Order: 60,
		Run:   runOps,
	})
}

// opJSON is the JSON form of one opcode's entry.
type opJSON struct {
	Opcode      string     `json:"opcode"`
	MinOperands int        `json:"min_operands"`
	MaxOperands *int       `json:"max_operands"`
	AnyCount    bool       `json:"parses_any_count"`
	Attributes  []attrJSON `json:"attributes"`
	Elementwise bool       `json:"elementwise"`
	Commutative bool       `json:"commutative"`
	SideEffect  bool       `json:"side_effect"`
	MayAlias    bool       `json:"may_alias"`
	Interpreter bool       `json:"interpreter"`
	StableHLO   string     `json:"stablehlo,omitempty"`
}

type attrJSON struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Required bool     `json:"required"`
	Values   []string `json:"values,omitempty"`
	AnyCase  bool     `json:"any_case,omitempty"`
	Role     string   `json:"role,omitempty"`
}

func runOps(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the table as JSON")
	if err := inv.parse(fs, args); err != nil {
		return err
	}
	ops := hlo.Opcodes()
	if fs.NArg() > 0 {
		ops = ops[:0:0]
		for _, name := range fs.Args() {
			op, ok := hlo.LookupOpcode(name)
			if !ok {
				return usagef("unknown opcode %q", name)
			}
			ops = append(ops, op)
		}
	}
	var out bytes.Buffer
	if *asJSON {
		writeOpsJSON(&out, ops)
	} else {
		writeOpsTable(&out, ops)
	}
	_, err := inv.stdout.Write(out.Bytes())
	return err
}

func writeOpsTable(out *bytes.Buffer, ops []hlo.Opcode) {
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "OPCODE\tOPERANDS\tRUN\tSTABLEHLO\tPROPERTIES\tATTRIBUTES")
	for _, op := range ops {
		info := op.Info()
		run := "no"
		if interp.Supported(op) {
			run = "yes"
		}
		stablehlo := info.StableHLO
		if stablehlo == "" {
			stablehlo = "-"
		}
		attrs := make([]string, len(info.Attrs))
		for i := range info.Attrs {
			attrs[i] = info.Attrs[i].String()
		}
		if len(attrs) == 0 {
			attrs = []string{"-"}
		}
		operands := info.Operands.String()
		if info.ParsesAnyCount {
			operands += "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", op, operands, run, stablehlo, properties(info),
			strings.Join(attrs, " "))
	}
	tw.Flush()
	commonAttrs := hlo.CommonAttrs()
	common := make([]string, len(commonAttrs))
	for i := range commonAttrs {
		common[i] = commonAttrs[i].String()
	}
	fmt.Fprintf(out, "\nEvery instruction also accepts: %s\n", strings.Join(common, " "))
}

// properties lists the properties of an opcode, comma-separated; - when it has none.
func properties(info *hlo.OpInfo) string {
	var ps []string
	for _, p := range []struct {
		has  bool
		name string
	}{
		{info.Elementwise, "elementwise"}, {info.Commutative, "commutative"},
		{info.SideEffect, "side-effect"}, {info.MayAlias, "may-alias"},
	} {
		if p.has {
			ps = append(ps, p.name)
		}
	}
	if len(ps) == 0 {
		return "-"
	}
	return strings.Join(ps, ",")
}

func writeOpsJSON(out *bytes.Buffer, ops []hlo.Opcode) {
	doc := struct {
		Common []attrJSON `json:"common_attributes"`
		Ops    []opJSON   `json:"ops"`
	}{Common: attrsJSON(hlo.CommonAttrs()), Ops: []opJSON{}}
	for _, op := range ops {
		info := op.Info()
		o := opJSON{
			Opcode: op.String(), MinOperands: info.Operands.Min, AnyCount: info.ParsesAnyCount,
			Attributes:  attrsJSON(info.Attrs),
			Elementwise: info.Elementwise, Commutative: info.Commutative, SideEffect: info.SideEffect,
			MayAlias: info.MayAlias, Interpreter: interp.Supported(op), StableHLO: info.StableHLO,
		}
		if info.Operands.Max != hlo.Variadic {
			o.MaxOperands = &info.Operands.Max
		}
		doc.Ops = append(doc.Ops, o)
	}
	writeJSON(out, doc) // encoding these types cannot fail
}

func attrsJSON(specs []hlo.AttrSpec) []attrJSON {
	out := make([]attrJSON, len(specs))
	for i, s := range specs {
		out[i] = attrJSON{Name: s.Name, Kind: s.Kind.String(), Required: s.Required, Values: s.Values,
			AnyCase: s.FoldCase, Role: s.Role}
	}
	return out
}
