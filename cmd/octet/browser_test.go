package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"octet/internal/shared"
)

// browser finds headless Chromium, or skips the test (fails it under CI=true).
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	shared.Missing(t, "headless Chromium is not installed (apt-get install chromium): the pages were not loaded in a browser")
	return ""
}

// browserService matches the hosts Chromium itself calls (clock, updates, accounts), whatever the page.
var browserService = regexp.MustCompile(`^(CONNECT |[A-Z]+ https?://)[a-z0-9.-]*\.(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)[:/ ]`)

// proxyTrap listens on loopback as the browser's proxy: any request the page makes to another host
// reaches it and is recorded, by its request line, and refused; the browser's own calls are left out. A
// connection that ends without a request line (Chromium opens some ahead, and closes them as it exits)
// carried no request. requests, called once the browser has exited, waits for every connection's line.
func proxyTrap(t *testing.T) (addr string, requests func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var seen []string
	var conns sync.WaitGroup
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Close()
				if line = strings.TrimSpace(line); line != "" && !browserService.MatchString(line) {
					mu.Lock()
					seen = append(seen, line)
					mu.Unlock()
				}
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		ln.Close()
		<-accepting
		conns.Wait()
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// loadPage loads url in headless Chromium and returns the DOM once its scripts ran, failing the test on
// any console message (a script error, a request the page's policy refused) and on any request to
// another host than the loopback server.
func loadPage(t *testing.T, chromium, url string) string {
	t.Helper()
	dom, errs, requests := dumpDOM(t, chromium, url)
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("%s: console: %s", url, l)
		}
	}
	if len(requests) > 0 {
		t.Errorf("%s: requests left the page: %q", url, requests)
	}
	if !strings.Contains(dom, `<body data-ready="1">`) {
		t.Errorf("%s: the page's script did not run to its end", url)
	}
	return dom
}

// dumpDOM loads url in headless Chromium, its proxy a proxyTrap, and returns the DOM, Chromium's log and
// the requests the trap saw.
func dumpDOM(t *testing.T, chromium, url string) (dom, log string, requests []string) {
	t.Helper()
	proxy, seen := proxyTrap(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--user-data-dir="+t.TempDir(), "--proxy-server=http://"+proxy, "--enable-logging=stderr", "--v=0",
		"--dump-dom", url)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, errs.String())
	}
	return out.String(), errs.String(), seen()
}

// TestProxyTrap checks that the browser tests would see a request leave a page: a page that loads an
// image from another host makes the trap record it.
func TestProxyTrap(t *testing.T) {
	chromium := browser(t)
	page := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><img src="http://octet-test.example/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, requests := dumpDOM(t, chromium, "file://"+page)
	if !slices.ContainsFunc(requests, func(r string) bool { return strings.Contains(r, "octet-test.example") }) {
		t.Errorf("the image's request was not seen: %q", requests)
	}
}

var (
	domRowRe     = regexp.MustCompile(`<tr class="(?:fused|not-fused)" data-gemm="([^"]*)">`)
	domSectionRe = regexp.MustCompile(`(?s)<section class="gemm" id="[^"]*" data-gemm="([^"]*)">.*?</section>`)
)

// TestBrowserReport loads the report on the Llama 3.1 70B step from disk in headless Chromium: the DOM
// has one row and one section with its graph per FP8 GEMM, every graph box's link names a line of the
// page, and no script error or request happens.
func TestBrowserReport(t *testing.T) {
	chromium := browser(t)
	llama := shared.Path(t, "corpus", "hlo", "xla__tools__benchmarks__hlo__hlo_llama31_70b_fp8_16x8.hlo.gz")
	want := checkGEMMNames(t, llama)
	out := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := runOctet(t, "", "report", "-o", out, llama); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	abs, _ := filepath.Abs(out)
	dom := loadPage(t, chromium, "file://"+abs)
	if rows := submatches(domRowRe, dom); strings.Join(rows, " ") != strings.Join(want, " ") {
		t.Errorf("rows in the DOM %v, want %v", rows, want)
	}
	sections := domSectionRe.FindAllStringSubmatch(dom, -1)
	if len(sections) != len(want) {
		t.Fatalf("%d GEMM sections in the DOM, want %d", len(sections), len(want))
	}
	ids := map[string]bool{}
	for _, m := range idRe.FindAllStringSubmatch(dom, -1) {
		ids[m[1]] = true
	}
	for i, s := range sections {
		if s[1] != want[i] || !strings.Contains(s[0], "<svg") || !strings.Contains(s[0], `class="node gemm-not-fused"`) {
			t.Errorf("section %d (%s): no graph of %s with its GEMM", i, s[1], want[i])
		}
		links := hrefRe.FindAllStringSubmatch(s[0], -1)
		if len(links) == 0 {
			t.Errorf("section %s: no box links to the text", s[1])
		}
		for _, l := range links {
			if !strings.HasPrefix(l[1], "#") || !ids[l[1][1:]] {
				t.Errorf("section %s: link %s does not resolve in the DOM", s[1], l[1])
			}
		}
	}
}

// TestBrowserServe loads the served index, a module's page, a computation graph and a diff in headless
// Chromium, from a loopback server.
func TestBrowserServe(t *testing.T) {
	chromium := browser(t)
	srv := exampleServer(t)
	dom := loadPage(t, chromium, srv.URL+"/")
	if n, want := strings.Count(dom, `<tr data-module="`), exampleModules(t); n != want {
		t.Errorf("index: %d module rows, want %d", n, want)
	}
	dom = loadPage(t, chromium, srv.URL+"/m/0")
	if !domRowRe.MatchString(dom) || !domSectionRe.MatchString(dom) {
		t.Errorf("/m/0: no GEMM row or graph in the DOM")
	}
	if dom = loadPage(t, chromium, srv.URL+"/m/0/c/0"); !strings.Contains(dom, "<svg") {
		t.Errorf("/m/0/c/0: no graph in the DOM")
	}
	if dom = loadPage(t, chromium, srv.URL+"/diff?a=1&b=2"); !strings.Contains(dom, `<section id="diff">`) {
		t.Errorf("diff: no difference in the DOM")
	}

}
