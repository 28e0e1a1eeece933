package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
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

// TestExportDOT renders the DOT of the examples and of a corpus module with Graphviz, when it is
// installed.
func TestExportDOT(t *testing.T) {
	files := []string{example("dense_fp8.before.hlo"), example("dense_fp8.xla-0.4.31.hlo"), example("dense_fp8.xla-0.4.32.hlo"), example("relu_amax.before.hlo"),
		shared.Path(t, "corpus", "hlo", "xla__backends__cpu__benchmarks__hlo__mha_block_1x12x128x64_bf16.hlo")}
	dot, err := exec.LookPath("dot")
	for _, f := range files {
		code, out, errs := runOctet(t, "", "export", "--format=dot", f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		if !strings.HasPrefix(out, "digraph octet {") {
			t.Fatalf("%s: not a digraph:\n%.200s", f, out)
		}
		if strings.Contains(f, "xla-0.4.31") && !strings.Contains(out, `fillcolor="#86efac"`) {
			t.Errorf("%s: the fused call is not green", f)
		}
		if strings.Contains(f, "before") && !strings.Contains(out, `fillcolor="#fca5a5"`) {
			t.Errorf("%s: the unfused dot is not red", f)
		}
		if err != nil {
			continue
		}
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s: dot -Tsvg: %v: %s", f, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "<svg") {
			t.Errorf("%s: dot wrote no SVG", f)
		}
		t.Logf("%s: dot -Tsvg in %v", f, time.Since(start))
	}
	if err != nil {
		shared.Missing(t, "Graphviz's dot is not installed (apt-get install graphviz): the DOT was not rendered")
	}
}

func TestExportUsage(t *testing.T) {
	for _, args := range [][]string{{"export", example("relu_amax.before.hlo")}, {"export", "--format=svg", example("relu_amax.before.hlo")}, {"export", "--format=dot"}} {
		if code, _, _ := runOctet(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
