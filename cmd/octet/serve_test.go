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
	"sync"
	"testing"
	"time"

	"octet/viz/page"
)

// exampleServer serves the examples folder, as a dump folder is served.
func exampleServer(t *testing.T) *httptest.Server {
	t.Helper()
	inv := &invocation{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv}
	s, err := newServer(inv, []string{example("")})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(s.handler())
	s.allowHosts(srv.Listener.Addr(), "")
	srv.Start()
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
	resp, body := rawRequest(t, addr, "GET "+target+" HTTP/1.1\r\nHost: "+addr+"\r\n")
	return resp.StatusCode, body
}

// rawRequest sends a request (its line and headers, as written) to addr, and returns the response and its
// body.
func rawRequest(t *testing.T, addr, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(conn, request+"Connection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
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
	url, errs, stop := startServe(t, example("relu_amax.before.hlo"))
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(url) {
		stop()
		t.Fatalf("first line %q is not a loopback URL", url)
	}
	if code, body := get(t, url); code != 200 || !strings.Contains(body, "jit_relu_amax_fp8") {
		t.Errorf("index: status %d", code)
	}
	if code := stop(); code != 0 || errs.Len() > 0 {
		t.Errorf("exit %d: %s", code, errs.String())
	}
	if exposure(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}) != "" || exposure(&net.TCPAddr{IP: net.IPv6loopback}) != "" ||
		!strings.Contains(exposure(&net.TCPAddr{IP: net.IPv4zero, Port: 80}), "WARNING: listening on 0.0.0.0:80, not loopback") {
		t.Error("exposure: wrong warnings")
	}
	// A folder's file that is not HLO is left out and said so; a FILE that is not is listed with its error.
	dir := t.TempDir()
	for name, text := range map[string]string{"a.hlo": "HloModule a\n\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n", "buffer-assignment.txt": "allocation 0: size 8\n"} {
		writeTemp(t, dir, name, text)
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
	// A link to an HLO file is served as the file; a name with a newline is quoted whole in the note,
	// which goes on to the reason.
	links := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "a.hlo"), filepath.Join(links, "link.hlo")); err != nil {
		t.Fatal(err)
	}
	writeTemp(t, links, "two\nlines.hlo", "junk\n")
	stderr.Reset()
	if s, err = newServer(inv, []string{links}); err != nil || len(s.items) != 1 || s.items[0].Module == nil {
		t.Errorf("a folder with a link to a module: %v, %+v", err, s)
	}
	if want := "skipping " + filepath.Join(links, "two") + `\nlines.hlo:1:6: expected`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if code, _, _ := runOctet(t, "", "serve"); code != 2 {
		t.Errorf("no FILE: exit %d, want 2", code)
	}
}

// TestServeHost sends requests with other Host headers than the server's own addresses, as a page whose
// name was made to lead to this machine (DNS rebinding) sends them: each is refused as misdirected, with
// nothing of a module. The server's pages may not be framed.
func TestServeHost(t *testing.T) {
	srv := exampleServer(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]int{
		addr: 200, "localhost:" + port: 200, "LocalHost:" + port: 200, "[::1]:" + port: 200,
		"evil.example": 421, "evil.example:" + port: 421, "localhost": 421, "localhost:1": 421,
		"127.0.0.1.nip.io:" + port: 421, "127.0.0.2:" + port: 421, "[::1]": 421,
	} {
		for _, target := range []string{"/", "/m/0", "/m/0/text"} {
			resp, body := rawRequest(t, addr, "GET "+target+" HTTP/1.1\r\nHost: "+host+"\r\n")
			if resp.StatusCode != want {
				t.Errorf("Host %s, %s: status %d, want %d", host, target, resp.StatusCode, want)
			}
			if want != 200 && (strings.Contains(body, "jit_") || strings.Contains(body, "HloModule")) {
				t.Errorf("Host %s, %s: the body holds a module:\n%.300s", host, target, body)
			}
		}
	}
	resp, _ := rawRequest(t, addr, "GET /m/0 HTTP/1.1\r\nHost: "+addr+"\r\n")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, page.CSP+";") || !strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: Content-Security-Policy %q, X-Frame-Options %q", csp, resp.Header.Get("X-Frame-Options"))
	}
}

// startServe runs octet serve in-process with args and returns its URL, its standard error and the
// function that stops it and returns its exit status.
func startServe(t *testing.T, args ...string) (url string, stderr *strings.Builder, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr = &strings.Builder{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("no URL: %v (%s)", err, stderr.String())
	}
	return strings.TrimSpace(line), stderr, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(time.Minute):
			t.Fatal("serve did not stop when cancelled")
		}
		return -1
	}
}

// TestServeRemote checks that serve refuses an address that is not loopback without --allow-remote, and
// warns with it.
func TestServeRemote(t *testing.T) {
	file := example("relu_amax.before.hlo")
	code, _, errs := runGuarded(t, nil, "serve", "--addr=0.0.0.0:0", file)
	if code != 2 || !strings.Contains(errs, "--addr 0.0.0.0:0 is not loopback: anyone who can reach this machine") || !strings.Contains(errs, "--allow-remote") {
		t.Errorf("serve --addr=0.0.0.0:0: exit %d: %s", code, errs)
	}
	url, stderr, stop := startServe(t, "--addr=0.0.0.0:0", "--allow-remote", file)
	if code, body := get(t, url); code != 200 || !strings.Contains(body, "jit_relu_amax_fp8") {
		t.Errorf("%s: status %d", url, code)
	}
	if code := stop(); code != 0 || !regexp.MustCompile(`WARNING: listening on \S+:\d+, not loopback`).MatchString(stderr.String()) {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// TestServeTimeouts checks that serve closes a connection left idle after a response, and one whose
// request header does not come, once their timeouts (shortened here) pass.
func TestServeTimeouts(t *testing.T) {
	old := serveTimeouts
	defer func() { serveTimeouts = old }()
	serveTimeouts.header, serveTimeouts.idle = 200*time.Millisecond, 200*time.Millisecond
	url, _, stop := startServe(t, example("relu_amax.before.hlo"))
	defer stop()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	for name, request := range map[string]string{
		"idle after a response": "GET / HTTP/1.1\r\nHost: " + addr + "\r\n\r\n",
		"header never ended":    "GET / HTTP/1.1\r\nHost: ",
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// A guard, should the server never close the connection.
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(conn, request)
		all, err := io.ReadAll(conn)
		conn.Close()
		if err != nil {
			t.Errorf("%s: the server did not close the connection: %v", name, err)
		}
		if strings.HasPrefix(name, "idle") && !strings.HasPrefix(string(all), "HTTP/1.1 200 OK") {
			t.Errorf("%s: no response:\n%.200s", name, all)
		}
	}
}

// TestServeBuildsPageOnce requests a module's report page four times at once: the page is built once, so
// that the four requests take about the memory of one, not four times as much.
func TestServeBuildsPageOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule many\nENTRY e {\n  x = f8e4m3fn[16,128] parameter(0)\n  w = f8e4m3fn[64,128] parameter(1)\n")
	b.WriteString("  xb = bf16[16,128] convert(x)\n  wb = bf16[64,128] convert(w)\n")
	const gemms = 40
	for i := range gemms {
		fmt.Fprintf(&b, "  y%d = bf16[16,64] dot(xb, wb), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n", i)
	}
	b.WriteString("  ROOT t = (")
	for i := range gemms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("bf16[16,64]")
	}
	b.WriteString(") tuple(")
	for i := range gemms {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "y%d", i)
	}
	b.WriteString(")\n}\n")
	path := writeTemp(t, t.TempDir(), "many.hlo", b.String())
	// allocated serves the module and returns the bytes allocated while n requests for its page are
	// answered at once.
	allocated := func(n int) uint64 {
		inv := &invocation{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv}
		s, err := newServer(inv, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(s.handler())
		s.allowHosts(srv.Listener.Addr(), "")
		srv.Start()
		defer srv.Close()
		before := readMetric("/gc/heap/allocs:bytes")
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i := range n {
			wg.Go(func() {
				if resp, err := http.Get(srv.URL + "/m/0"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					codes[i] = resp.StatusCode
				}
			})
		}
		wg.Wait()
		after := readMetric("/gc/heap/allocs:bytes")
		for _, c := range codes {
			if c != 200 {
				t.Fatalf("status %d", c)
			}
		}
		return after - before
	}
	one, four := allocated(1), allocated(4)
	t.Logf("one request: %d bytes allocated; four at once: %d", one, four)
	if four > 2*one {
		t.Errorf("four requests at once allocated %d bytes, one %d: the page was built more than once", four, one)
	}
}

// TestPageCache checks the cache of built pages: one build for the requests of one page, at most the
// builds allowed at once, and the pages kept within the budget, the least recently used dropped first.
func TestPageCache(t *testing.T) {
	ctx := context.Background()
	c := newPageCache(10, 2)
	release := make(chan struct{})
	var mu sync.Mutex
	running, most := 0, 0
	build := func(body string) func() ([]byte, error) {
		return func() ([]byte, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			<-release
			mu.Lock()
			running--
			mu.Unlock()
			return []byte(body), nil
		}
	}
	var wg sync.WaitGroup
	for _, key := range []string{"a", "a", "a", "a", "b", "c", "d", "e"} {
		wg.Go(func() {
			if body, err := c.get(ctx, key, build(key+"123")); err != nil || string(body) != key+"123" {
				t.Errorf("%s: %q, %v", key, body, err)
			}
		})
	}
	// Wait until two builds run (a cache that let fewer run at once never gets there: the minute is only a
	// guard against hanging, on a machine however busy).
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		r := running
		mu.Unlock()
		if r == 2 {
			break
		}
	}
	close(release)
	wg.Wait()
	if n := c.builds.Load(); n != 5 || most != 2 {
		t.Errorf("%d builds, at most %d at once; want 5, 2", n, most)
	}
	// Of the five pages of 4 bytes, the budget of 10 keeps the last two built; a page over the budget is
	// not kept.
	kept := 0
	for _, key := range []string{"a", "b", "c", "d", "e"} {
		if _, ok := c.entries[key]; ok {
			kept++
		}
	}
	if kept != 2 || c.size != 8 {
		t.Errorf("%d pages kept, %d bytes; want 2, 8", kept, c.size)
	}
	c.get(ctx, "big", func() ([]byte, error) { return make([]byte, 11), nil })
	if _, ok := c.entries["big"]; ok || c.size != 8 {
		t.Errorf("a page over the budget was kept")
	}
	// A request that goes away does not stop the build: the next one finds the page.
	before := c.builds.Load()
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.get(gone, "f", func() ([]byte, error) { return []byte("f"), nil }); err != context.Canceled {
		t.Errorf("cancelled request: %v", err)
	}
	if body, _ := c.get(ctx, "f", func() ([]byte, error) { return []byte("again"), nil }); string(body) != "f" || c.builds.Load() != before+1 {
		t.Errorf("the page built for a request that went away was built again: %q", body)
	}
}

// TestServeEscapesFileNames serves a folder whose file names hold terminal escapes and a newline: what serve
// prints of them, and the index, shows them escaped.
func TestServeEscapesFileNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a\x1b]0;owned\x07.hlo", "b\nforged line.hlo"} {
		writeTemp(t, dir, name, "not a module\n")
	}
	good := filepath.Join(dir, "c\x1b[2J.hlo")
	os.WriteFile(good, []byte("HloModule c\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"), 0o644)
	var stderr strings.Builder
	inv := &invocation{ctx: context.Background(), stdout: io.Discard, stderr: &stderr, getenv: os.Getenv}
	s, err := newServer(inv, []string{dir, filepath.Join(dir, "a\x1b]0;owned\x07.hlo")})
	if err != nil {
		t.Fatal(err)
	}
	errs := stderr.String()
	if strings.ContainsAny(errs, "\x1b\x07") || strings.Count(errs, "\n") != 2 ||
		!strings.Contains(errs, `a\x1b]0;owned\a.hlo`) || !strings.Contains(errs, `b\nforged line.hlo`) {
		t.Errorf("stderr:\n%s", errs)
	}
	srv := httptest.NewUnstartedServer(s.handler())
	s.allowHosts(srv.Listener.Addr(), "")
	srv.Start()
	defer srv.Close()
	_, index := get(t, srv.URL+"/")
	if strings.ContainsAny(index, "\x1b\x07") || !strings.Contains(index, `c\x1b[2J.hlo`) {
		t.Errorf("index:\n%s", index)
	}
	if got := quoteControls("plain/\u00e9t\u00e9.hlo"); got != "plain/\u00e9t\u00e9.hlo" {
		t.Errorf("quoteControls changed a plain name: %q", got)
	}
	if got := quoteControls("x\u202eolh.exe\xff\u0085"); got != `x\u202eolh.exe\xff\u0085` {
		t.Errorf("quoteControls: %q", got)
	}
}

// TestServeFolderInputLimit serves a folder holding a gzip bomb beside a module: the bomb is refused under
// the input limit, as every command refuses it, and left out.
func TestServeFolderInputLimit(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "bomb.hlo.gz"))
	if err != nil {
		t.Fatal(err)
	}
	gzipZeros(f, 64<<20, true)
	f.Close()
	os.WriteFile(filepath.Join(dir, "m.hlo"), []byte("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"), 0o644)
	var stderr strings.Builder
	inv := &invocation{ctx: context.Background(), stdout: io.Discard, stderr: &stderr, getenv: os.Getenv, maxText: 1 << 20}
	var s *server
	peak := peakHeap(func() { s, err = newServer(inv, []string{dir}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(s.items) != 1 || !strings.Contains(stderr.String(), "skipping "+filepath.Join(dir, "bomb.hlo.gz")+": more than 1.0 MiB, the input limit") {
		t.Errorf("%d modules served; stderr: %s", len(s.items), stderr.String())
	}
	if peak > 8<<20 {
		t.Errorf("reading the folder took %d bytes", peak)
	}
}
