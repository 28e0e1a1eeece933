package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// exampleServer serves the examples folder, as a dump folder is served.
func exampleServer(t *testing.T) *httptest.Server {
	t.Helper()
	inv := &invocation{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv}
	s, err := newServer(inv, []string{example("")})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.handler())
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// rawGet sends a request line as written, without the client's URL handling, and returns the status and
// the body.
func rawGet(t *testing.T, addr, target string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestServeViews walks the examples folder's views: the index with every module and its FP8 summary,
// every module's report, text and every computation's graph, and the diff of two modules.
func TestServeViews(t *testing.T) {
	srv := exampleServer(t)
	code, index := get(t, srv.URL+"/")
	if code != 200 {
		t.Fatalf("index: %d", code)
	}
	rows := regexp.MustCompile(`<tr data-module="(\d+)"><td>\d+</td><td>([^<]*)</td><td><a href="/m/\d+"><code>([^<]*)</code></a></td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>`).FindAllStringSubmatch(index, -1)
	if n := exampleModules(t); len(rows) != n {
		t.Fatalf("index: %d module rows, want the %d examples:\n%s", len(rows), n, index)
	}
	var before, fused, lost string
	for _, r := range rows {
		switch {
		case strings.HasSuffix(r[2], "dense_fp8.before.hlo"):
			before = r[1]
		case strings.HasSuffix(r[2], "dense_fp8.xla-0.4.31.hlo"):
			fused = r[1]
			if r[4] != "1" || r[5] != "1" {
				t.Errorf("%s: %s GEMMs, %s fused; want 1, 1", r[2], r[4], r[5])
			}
		case strings.HasSuffix(r[2], "dense_fp8.xla-0.4.32.hlo"):
			lost = r[1]
		}
	}
	checkSelfContained := func(name, page string) {
		t.Helper()
		for _, m := range hrefRe.FindAllStringSubmatch(page, -1) {
			href := m[1]
			if strings.HasPrefix(href, "#") {
				if !strings.Contains(page, ` id="`+href[1:]+`"`) {
					t.Errorf("%s: link %s does not resolve", name, href)
				}
				continue
			}
			if !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") {
				t.Errorf("%s: link %s leaves the server", name, href)
				continue
			}
			path, _, _ := strings.Cut(href, "#")
			if code, _ := get(t, srv.URL+path); code != 200 {
				t.Errorf("%s: link %s: status %d", name, href, code)
			}
		}
	}
	checkSelfContained("index", index)
	for _, r := range rows {
		code, body := get(t, srv.URL+"/m/"+r[1])
		if code != 200 || !strings.Contains(body, `data-gemm="`) || !strings.Contains(body, "<svg") {
			t.Errorf("/m/%s: status %d, or no GEMM row or graph", r[1], code)
		}
		checkSelfContained("/m/"+r[1], body)
		if code, body := get(t, srv.URL+"/m/"+r[1]+"/text"); code != 200 || !strings.Contains(body, `<span id="L1">HloModule`) {
			t.Errorf("/m/%s/text: status %d", r[1], code)
		}
	}
	code, graph := get(t, srv.URL+"/m/"+lost+"/c/0")
	if code != 200 || !strings.Contains(graph, "<svg") {
		t.Fatalf("graph: status %d", code)
	}
	checkSelfContained("graph", graph)
	// The entry of the 0.4.32 module: its GEMM fusion is one box, red, leading to its body.
	var entry string
	for i := 0; i < 10; i++ {
		_, g := get(t, fmt.Sprintf("%s/m/%s/c/%d", srv.URL, lost, i))
		if strings.Contains(g, "<h1>%main.24") {
			entry = g
			break
		}
	}
	if !regexp.MustCompile(`<a href="/m/\d+/c/\d+"><g class="node gemm-not-fused" id="c-\d+" data-name="gemm_fusion_dot.7.0">`).MatchString(entry) {
		t.Errorf("the entry's graph does not draw the GEMM fusion as a red box leading to its body:\n%.3000s", entry)
	}
	code, diff := get(t, srv.URL+"/diff?a="+fused+"&b="+lost)
	if code != 200 || !strings.Contains(diff, `<section id="diff">`) || !strings.Contains(diff, "1 lost, 0 gained") {
		t.Errorf("diff: status %d:\n%.2000s", code, diff)
	}
	if code, _ := get(t, srv.URL+"/diff?a="+before+"&b=x"); code != 404 {
		t.Errorf("diff with a bad module: status %d", code)
	}
}

// TestServeTraversal sends path traversal attempts, raw: each gets a 4xx status and nothing of a file.
func TestServeTraversal(t *testing.T) {
	srv := exampleServer(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	readme, err := os.ReadFile(example("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		"/../README.md", "/m/../../go.mod", "/m/0/../../../examples/README.md", "/%2e%2e/README.md", "/%2E%2E/%2e%2e/go.mod",
		"/m/%2e%2e%2fREADME.md", "/m/..%2f..%2fgo.mod", "/..%5c..%5cgo.mod", "/m/0/text/..", "//etc/passwd", "/etc/passwd",
		"/README.md", "/dense_fp8.before.hlo", "/examples/dense_fp8.before.hlo", "/m/99", "/m/-1", "/m/0/c/99", "/m/0/c/-1",
		"/m/x", "/diff?a=../README.md&b=0", "/m/" + example("dense_fp8.before.hlo"), "/m/0/text%00", "/./m/0",
	} {
		code, body := rawGet(t, addr, target)
		if code < 400 || code > 499 {
			t.Errorf("%s: status %d, want 4xx", target, code)
		}
		if strings.Contains(body, "module octet") || strings.Contains(body, string(readme[:40])) || strings.Contains(body, "HloModule") {
			t.Errorf("%s: the body holds a file:\n%.300s", target, body)
		}
	}
	// An absolute URL as the request target reaches the same routes, and nothing else.
	if code, _ := rawGet(t, addr, "http://"+addr+"/../go.mod"); code < 400 || code > 499 {
		t.Errorf("absolute URL: status %d", code)
	}
	if code, _ := rawGet(t, addr, "/"); code != 200 {
		t.Errorf("/: status %d", code)
	}
}

// TestServeCommand runs octet serve: the first line of its output is its loopback URL, it serves, and
// it stops with status 0 when its context is cancelled.
func TestServeCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errs strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", example("relu_amax.before.hlo")}, strings.NewReader(""), pw, &errs)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v (%s)", err, errs.String())
	}
	url := strings.TrimSpace(line)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(url) {
		t.Fatalf("first line %q is not a loopback URL", line)
	}
	if code, body := get(t, url); code != 200 || !strings.Contains(body, "jit_relu_amax_fp8") {
		t.Errorf("index: status %d", code)
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		if code != 0 || errs.Len() > 0 {
			t.Errorf("exit %d: %s", code, errs.String())
		}
	case <-time.After(3 * time.Second):
		t.Fatal("serve did not stop when cancelled")
	}
	if exposure(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}) != "" || exposure(&net.TCPAddr{IP: net.IPv6loopback}) != "" ||
		!strings.Contains(exposure(&net.TCPAddr{IP: net.IPv4zero, Port: 80}), "warning: listening on 0.0.0.0:80, not loopback") {
		t.Error("exposure: wrong warnings")
	}
	// A folder's file that is not HLO is left out and said so; a FILE that is not is listed with its error.
	dir := t.TempDir()
	for name, text := range map[string]string{"a.hlo": "HloModule a\n\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n", "buffer-assignment.txt": "allocation 0: size 8\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr strings.Builder
	inv := &invocation{ctx: context.Background(), stdout: io.Discard, stderr: &stderr, getenv: os.Getenv}
	s, err := newServer(inv, []string{dir, filepath.Join(dir, "buffer-assignment.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.items) != 2 || s.items[0].Module == nil || s.items[1].Err == "" || !strings.Contains(stderr.String(), "skipping "+filepath.Join(dir, "buffer-assignment.txt")) {
		t.Errorf("items %+v %+v; stderr %q", s.items[0], s.items[len(s.items)-1], stderr.String())
	}
	if code, _, _ := runOctet(t, "", "serve"); code != 2 {
		t.Errorf("no FILE: exit %d, want 2", code)
	}
}
