package layout

import "testing"

// FuzzLayered lays out graphs read from arbitrary bytes (a node count, then pairs of node indexes as
// edges, cycles and self-loops included) and checks the layout's invariants.
func FuzzLayered(f *testing.F) {
	f.Add([]byte{4, 0, 1, 1, 2, 2, 3, 3, 0})
	f.Add([]byte{6, 0, 5, 1, 4, 2, 3, 0, 3, 5, 5})
	f.Add([]byte{30, 0, 29, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0])%64 + 1
		g := &Graph{}
		for i := range n {
			g.Nodes = append(g.Nodes, Size{W: float64(10 + i%7*5), H: float64(10 + i%3*4)})
		}
		for i := 1; i+1 < len(data) && len(g.Edges) < 256; i += 2 {
			g.Edges = append(g.Edges, Edge{From: int(data[i]) % n, To: int(data[i+1]) % n})
		}
		opt := Options{MaxSpan: int(data[0]%5) + 1}
		l, err := Layered(g, opt)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "fuzz", g, l, opt)
	})
}
