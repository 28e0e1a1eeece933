// Command resnet50 writes a ResNet-50 inference step (Keras's v1 architecture: NHWC, f32, batch 1) as HLO
// text on standard output, every weight a parameter (about 25.6 million values), each layer as plain HLO
// before any XLA optimisation: convolutions with a bias, batch normalisation as elementwise arithmetic,
// ReLU as a maximum, max pooling as a reduce-window, global average pooling as a reduce, a dense layer
// and a softmax. About 7.7 GFLOP per step, 99% of it in the 53 convolutions.
//
//	go run ./examples/resnet50 > resnet50.hlo
//	octet run --random 1 --profile resnet50.hlo
package main

import (
	"fmt"
	"strings"
)

type gen struct {
	b      strings.Builder
	params []string
	n      int
}

func (g *gen) name(p string) string { g.n++; return fmt.Sprintf("%s.%d", p, g.n) }

func shape(dims ...int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return "f32[" + strings.Join(s, ",") + "]"
}

func (g *gen) param(p string, dims ...int) string {
	n := g.name(p)
	fmt.Fprintf(&g.b, "  %%%s = %s parameter(%d)\n", n, shape(dims...), len(g.params))
	g.params = append(g.params, n)
	return n
}

func (g *gen) inst(p, sh, text string) string {
	n := g.name(p)
	fmt.Fprintf(&g.b, "  %%%s = %s %s\n", n, sh, text)
	return n
}

type act struct {
	v       string
	h, w, c int
}

func (g *gen) bcast(v string, a act) string {
	return g.inst("broadcast", shape(1, a.h, a.w, a.c), fmt.Sprintf("broadcast(%%%s), dimensions={3}", v))
}

func (g *gen) conv(x act, k, stride, cout int, pad [2]int) act {
	kern := g.param("kernel", k, k, x.c, cout)
	bias := g.param("bias", cout)
	ho := (x.h+pad[0]+pad[1]-k)/stride + 1
	wo := (x.w+pad[0]+pad[1]-k)/stride + 1
	win := fmt.Sprintf("size=%dx%d stride=%dx%d pad=%d_%dx%d_%d", k, k, stride, stride, pad[0], pad[1], pad[0], pad[1])
	if stride == 1 {
		win = fmt.Sprintf("size=%dx%d pad=%d_%dx%d_%d", k, k, pad[0], pad[1], pad[0], pad[1])
	}
	c := g.inst("convolution", shape(1, ho, wo, cout), fmt.Sprintf("convolution(%%%s, %%%s), window={%s}, dim_labels=b01f_01io->b01f", x.v, kern, win))
	y := act{c, ho, wo, cout}
	return act{g.inst("add", shape(1, ho, wo, cout), fmt.Sprintf("add(%%%s, %%%s)", c, g.bcast(bias, y))), ho, wo, cout}
}

func (g *gen) bn(x act) act {
	c := x.c
	gamma, beta, mean, variance := g.param("gamma", c), g.param("beta", c), g.param("moving_mean", c), g.param("moving_variance", c)
	eps := g.inst("constant", "f32[]", "constant(1.001e-05)")
	epsb := g.inst("broadcast", shape(c), fmt.Sprintf("broadcast(%%%s), dimensions={}", eps))
	ve := g.inst("add", shape(c), fmt.Sprintf("add(%%%s, %%%s)", variance, epsb))
	rs := g.inst("rsqrt", shape(c), fmt.Sprintf("rsqrt(%%%s)", ve))
	sc := g.inst("multiply", shape(c), fmt.Sprintf("multiply(%%%s, %%%s)", rs, gamma))
	sh := shape(1, x.h, x.w, c)
	sub := g.inst("subtract", sh, fmt.Sprintf("subtract(%%%s, %%%s)", x.v, g.bcast(mean, x)))
	mul := g.inst("multiply", sh, fmt.Sprintf("multiply(%%%s, %%%s)", sub, g.bcast(sc, x)))
	return act{g.inst("add", sh, fmt.Sprintf("add(%%%s, %%%s)", mul, g.bcast(beta, x))), x.h, x.w, c}
}

func (g *gen) relu(x act) act {
	z := g.inst("constant", "f32[]", "constant(0)")
	sh := shape(1, x.h, x.w, x.c)
	zb := g.inst("broadcast", sh, fmt.Sprintf("broadcast(%%%s), dimensions={}", z))
	return act{g.inst("maximum", sh, fmt.Sprintf("maximum(%%%s, %%%s)", x.v, zb)), x.h, x.w, x.c}
}

func (g *gen) block(x act, filters [3]int, stride int, shortcut bool) act {
	s := x
	if shortcut {
		s = g.bn(g.conv(x, 1, stride, filters[2], [2]int{0, 0}))
	}
	y := g.relu(g.bn(g.conv(x, 1, stride, filters[0], [2]int{0, 0})))
	y = g.relu(g.bn(g.conv(y, 3, 1, filters[1], [2]int{1, 1})))
	y = g.bn(g.conv(y, 1, 1, filters[2], [2]int{0, 0}))
	sh := shape(1, y.h, y.w, y.c)
	return g.relu(act{g.inst("add", sh, fmt.Sprintf("add(%%%s, %%%s)", y.v, s.v)), y.h, y.w, y.c})
}

func main() {
	g := &gen{}
	x := act{g.param("input", 1, 224, 224, 3), 224, 224, 3}
	x = g.relu(g.bn(g.conv(x, 7, 2, 64, [2]int{3, 3})))
	// max pooling 3x3 stride 2 after zero padding 1
	ninf := g.inst("constant", "f32[]", "constant(-inf)")
	mp := g.inst("reduce-window", shape(1, 56, 56, 64), fmt.Sprintf("reduce-window(%%%s, %%%s), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=%%max_f32", x.v, ninf))
	x = act{mp, 56, 56, 64}
	stages := []struct {
		f      [3]int
		blocks int
		stride int
	}{{[3]int{64, 64, 256}, 3, 1}, {[3]int{128, 128, 512}, 4, 2}, {[3]int{256, 256, 1024}, 6, 2}, {[3]int{512, 512, 2048}, 3, 2}}
	for _, st := range stages {
		for i := 0; i < st.blocks; i++ {
			s := 1
			if i == 0 {
				s = st.stride
			}
			x = g.block(x, st.f, s, i == 0)
		}
	}
	zero := g.inst("constant", "f32[]", "constant(0)")
	sum := g.inst("reduce", shape(1, 2048), fmt.Sprintf("reduce(%%%s, %%%s), dimensions={1,2}, to_apply=%%add_f32", x.v, zero))
	cnt := g.inst("constant", "f32[]", "constant(49)")
	cntb := g.inst("broadcast", shape(1, 2048), fmt.Sprintf("broadcast(%%%s), dimensions={}", cnt))
	avg := g.inst("divide", shape(1, 2048), fmt.Sprintf("divide(%%%s, %%%s)", sum, cntb))
	w := g.param("dense_kernel", 2048, 1000)
	bias := g.param("dense_bias", 1000)
	d := g.inst("dot", shape(1, 1000), fmt.Sprintf("dot(%%%s, %%%s), lhs_contracting_dims={1}, rhs_contracting_dims={0}", avg, w))
	bb := g.inst("broadcast", shape(1, 1000), fmt.Sprintf("broadcast(%%%s), dimensions={1}", bias))
	logits := g.inst("add", shape(1, 1000), fmt.Sprintf("add(%%%s, %%%s)", d, bb))
	mx := g.inst("reduce", shape(1), fmt.Sprintf("reduce(%%%s, %%%s), dimensions={1}, to_apply=%%max_f32", logits, ninf))
	mxb := g.inst("broadcast", shape(1, 1000), fmt.Sprintf("broadcast(%%%s), dimensions={0}", mx))
	sh := g.inst("subtract", shape(1, 1000), fmt.Sprintf("subtract(%%%s, %%%s)", logits, mxb))
	ex := g.inst("exponential", shape(1, 1000), fmt.Sprintf("exponential(%%%s)", sh))
	se := g.inst("reduce", shape(1), fmt.Sprintf("reduce(%%%s, %%%s), dimensions={1}, to_apply=%%add_f32", ex, zero))
	seb := g.inst("broadcast", shape(1, 1000), fmt.Sprintf("broadcast(%%%s), dimensions={0}", se))
	g.n++
	fmt.Fprintf(&g.b, "  ROOT %%softmax = f32[1,1000] divide(%%%s, %%%s)\n", ex, seb)
	fmt.Print("HloModule resnet50_f32_batch1\n\n")
	for _, r := range []struct{ name, op string }{{"add_f32", "add"}, {"max_f32", "maximum"}} {
		fmt.Printf("%%%s (a: f32[], b: f32[]) -> f32[] {\n  %%a = f32[] parameter(0)\n  %%b = f32[] parameter(1)\n  ROOT %%r = f32[] %s(%%a, %%b)\n}\n\n", r.name, r.op)
	}
	fmt.Print("ENTRY %main {\n" + g.b.String() + "}\n")
}
