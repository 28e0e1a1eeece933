package hlo_test

import (
	"fmt"

	"octet/hlo"
)

func ExampleOpcode_Info() {
	info := hlo.OpReduce.Info()
	fmt.Println(info.Opcode, info.Operands, info.StableHLO)
	for _, a := range info.Attrs {
		if a.Role != "" {
			fmt.Printf("%s (the %s)\n", a.String(), a.Role)
		} else {
			fmt.Println(a.String())
		}
	}
	fmt.Println(hlo.OpCompare.Info().Attr("direction"))
	fmt.Println(hlo.OpAdd.Info().Attr("metadata"))
	fmt.Println(hlo.OpAdd.Info().Attr("dimensions") == nil)
	// Output:
	// reduce 2,4,... stablehlo.reduce
	// dimensions:integer-list
	// to_apply:computation (the reducer)
	// direction:EQ|NE|GE|GT|LE|LT
	// ?metadata:metadata
	// true
}
