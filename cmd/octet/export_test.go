package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"octet/internal/shared"
)

type meCollection struct {
	Label  string `json:"label"`
	Graphs []struct {
		ID    string `json:"id"`
		Nodes []struct {
			ID        string `json:"id"`
			Label     string `json:"label"`
			Namespace string `json:"namespace"`
			Attrs     []struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			} `json:"attrs"`
			IncomingEdges []struct {
				SourceNodeID       string `json:"sourceNodeId"`
				SourceNodeOutputID string `json:"sourceNodeOutputId"`
				TargetNodeInputID  string `json:"targetNodeInputId"`
			} `json:"incomingEdges"`
			OutputsMetadata []struct {
				ID    string `json:"id"`
				Attrs []struct {
					Key   string `json:"key"`
					Value string `json:"value"`
				} `json:"attrs"`
			} `json:"outputsMetadata"`
		} `json:"nodes"`
	} `json:"graphs"`
}

// TestExportModelExplorer exports the Llama 3.1 70B step: one node per instruction (as octet ops counts
// them), unique ids, every edge from a node of the graph, every FP8 GEMM octet check finds with its status,
// a shape on every output, and fusion bodies nested under their fusion.
func TestExportModelExplorer(t *testing.T) {
	llama := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	gemms := checkGEMMNames(t, llama)
	code, out, errs := runOctet(t, "", "export", "--format=model-explorer", llama)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var gc meCollection
	if err := json.Unmarshal([]byte(out), &gc); err != nil {
		t.Fatal(err)
	}
	mods, err := (&invocation{}).loadModules(llama)
	if err != nil {
		t.Fatal(err)
	}
	instructions := 0
	for _, c := range mods[0].Computations {
		instructions += len(c.Instructions)
	}
	if len(gc.Graphs) != 1 || len(gc.Graphs[0].Nodes) != instructions {
		t.Fatalf("%d graphs; want one with %d nodes", len(gc.Graphs), instructions)
	}
	ids := map[string]bool{}
	for _, n := range gc.Graphs[0].Nodes {
		if ids[n.ID] || n.ID == "" {
			t.Fatalf("node id %q empty or given twice", n.ID)
		}
		ids[n.ID] = true
	}
	status := map[string]string{}
	edges := 0
	for _, n := range gc.Graphs[0].Nodes {
		if n.Label == "" || n.Namespace == "" || len(n.OutputsMetadata) != 1 || len(n.OutputsMetadata[0].Attrs) == 0 ||
			n.OutputsMetadata[0].Attrs[0].Key != "shape" {
			t.Fatalf("node %q lacks a label, a namespace or its output's shape", n.ID)
		}
		for k, e := range n.IncomingEdges {
			if !ids[e.SourceNodeID] || e.SourceNodeOutputID != "0" || e.TargetNodeInputID != strconv.Itoa(k) {
				t.Fatalf("node %q: edge %d %+v", n.ID, k, e)
			}
			edges++
		}
		for _, a := range n.Attrs {
			if a.Key == "octet.fp8" {
				status[n.ID] = a.Value
			}
		}
	}
	if len(status) != len(gemms) {
		t.Errorf("%d nodes with octet.fp8, want %d", len(status), len(gemms))
	}
	for _, g := range gemms {
		if !strings.HasPrefix(status[g], "not fused (dot): a plain dot") {
			t.Errorf("%s: octet.fp8 %q", g, status[g])
		}
	}
	t.Logf("%d nodes, %d edges", len(ids), edges)

	_, out, _ = runOctet(t, "", "export", "--format=model-explorer", example("dense_fp8.xla-0.4.32.hlo"))
	for _, w := range []string{`"namespace":"main.24/gemm_fusion_dot.7.0"`, `"key":"octet.fp8","value":"not fused (gemm-fusion)`} {
		if !strings.Contains(out, w) {
			t.Errorf("dense_fp8.xla-0.4.32: the export lacks %s", w)
		}
	}
}

// renderDOT lays out a DOT graph with Graphviz's dot, when it is installed, and fails the test unless dot
// accepts it silently and writes SVG; it reports whether dot ran.
func renderDOT(t *testing.T, name, src string) bool {
	t.Helper()
	dot, err := exec.LookPath("dot")
	if err != nil {
		return false
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(src)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("%s: dot -Tsvg: %v: %s", name, err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "<svg") {
		t.Errorf("%s: dot wrote no SVG", name)
	}
	t.Logf("%s: dot -Tsvg in %v", name, time.Since(start))
	return true
}

// TestExportDOT renders the DOT of the examples and of a corpus module with Graphviz, when it is
// installed: the FP8 GEMMs' neighbourhoods by default, the whole modules with --all.
func TestExportDOT(t *testing.T) {
	files := []string{example("dense_fp8.before.hlo"), example("dense_fp8.xla-0.4.31.hlo"), example("dense_fp8.xla-0.4.32.hlo"), example("relu_amax.before.hlo"),
		shared.Path(t, "corpus", "hlo", "xla__backends__cpu__benchmarks__hlo__mha_block_1x12x128x64_bf16.hlo")}
	rendered := false
	for _, f := range files {
		for _, all := range []bool{false, true} {
			args := []string{"export", "--format=dot", f}
			if all {
				args = append(args, "--all")
			}
			code, out, errs := runOctet(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if !strings.HasPrefix(out, "digraph octet {") {
				t.Fatalf("%v: not a digraph:\n%.200s", args, out)
			}
			if strings.Contains(f, "xla-0.4.31") && !strings.Contains(out, `fillcolor="#86efac"`) {
				t.Errorf("%v: the fused call is not green", args)
			}
			if strings.Contains(f, "before") && !strings.Contains(out, `fillcolor="#fca5a5"`) {
				t.Errorf("%v: the unfused dot is not red", args)
			}
			rendered = renderDOT(t, strings.Join(args[2:], " "), out)
		}
	}
	if !rendered {
		shared.Missing(t, "Graphviz's dot is not installed (apt-get install graphviz): the DOT was not rendered")
	}
}

// TestExportDOTLarge exports the largest FP8 module of the corpus, the Llama 3.1 70B training step (4,052
// instructions, whose whole drawing Graphviz does not lay out in minutes): by default only the FP8 GEMMs'
// neighbourhoods, a cluster of at most 40 boxes each, which dot renders; with --all every instruction.
func TestExportDOTLarge(t *testing.T) {
	llama := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	gemms := checkGEMMNames(t, llama)
	code, out, errs := runOctet(t, "", "export", "--format=dot", llama)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	nodes := regexp.MustCompile(`(?m)^\s+\S+ \[label=`)
	clusters := strings.Count(out, "subgraph cluster_")
	n := len(nodes.FindAllString(out, -1))
	t.Logf("%d FP8 GEMMs: %d clusters, %d boxes, %d bytes", len(gemms), clusters, n, len(out))
	if clusters != len(gemms) || n > 40*len(gemms) || n < 3*len(gemms) {
		t.Errorf("%d clusters and %d boxes for %d FP8 GEMMs", clusters, n, len(gemms))
	}
	_, all, _ := runOctet(t, "", "export", "--format=dot", "--all", llama)
	if whole := len(nodes.FindAllString(all, -1)); whole != 4052 {
		t.Errorf("--all: %d boxes, want one per instruction (4,052)", whole)
	}
	_, some, _ := runOctet(t, "", "export", "--format=dot", "--gemms=5", llama)
	if c := strings.Count(some, "subgraph cluster_"); c != 5 || !strings.Contains(some, `label="the neighbourhoods of the first 5 of 27 FP8 GEMMs"`) {
		t.Errorf("--gemms=5: %d clusters", c)
	}
	if !renderDOT(t, "llama", out) {
		shared.Missing(t, "Graphviz's dot is not installed (apt-get install graphviz): the DOT was not rendered")
	}
}

func TestExportUsage(t *testing.T) {
	for _, args := range [][]string{{"export", example("relu_amax.before.hlo")}, {"export", "--format=svg", example("relu_amax.before.hlo")}, {"export", "--format=dot"},
		{"export", "--format=model-explorer", "--all", example("relu_amax.before.hlo")}, {"export", "--format=dot", "--gemms=-1", example("relu_amax.before.hlo")}} {
		if code, _, _ := runOctet(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
