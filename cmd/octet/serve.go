package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"octet/fuse/report"
	"octet/viz/graph"
	"octet/viz/page"
)

func init() {
	register(&command{
		Name:      "serve",
		UsageLine: "serve [--addr=127.0.0.1:0] FILE|DIR...",
		Short:     "serve a local, read-only web view of modules or an XLA dump folder",
		Long: `Serve reads the modules of every FILE, and of every HLO file in each DIR (such as a folder XLA wrote
with --xla_dump_to: files ending in .txt, .hlo or .hlo.gz), and serves a read-only web view of them over
HTTP: an index of the modules with their FP8 summary, a report page per module (as "octet report"
writes it), a graph of every computation (only that computation drawn, each fusion one box that leads to
its body, so that the largest modules stay fast), the readable text, and the difference between any two
modules.

It prints its URL as the first line of standard output and serves until interrupted (Ctrl-C). It binds
the loopback interface unless --addr names another, and warns then: the view shows the programs to
whoever can reach the address. What it serves is the list it read at start: no path of a request ever
reaches the file system. A FILE that cannot be read, parsed or verified is listed with its error; a file
of a DIR that cannot (a dump folder also holds buffer assignments and memory reports) is left out, and
said so on standard error.`,
		Order: 25,
		Run:   runServe,

		ReadsModules: true,
	})
}

// A served is one module of the listing, or a file that could not be loaded.
type served struct {
	File   string
	Module *page.Module // nil when Err is set
	Err    string
}

// server is the web view of a fixed listing of modules.
type server struct {
	items []*served
}

// maxDrawn bounds the instructions of one computation graph.
const maxDrawn = 4000

// newServer loads every FILE, and every HLO file of every DIR, into the listing.
func newServer(inv *invocation, args []string) (*server, error) {
	s := &server{}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", arg, trimPathError(err))
		}
		files := []string{arg}
		if fi.IsDir() {
			entries, err := os.ReadDir(arg)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", arg, trimPathError(err))
			}
			files = nil
			for _, e := range entries {
				n := e.Name()
				if e.Type().IsRegular() && (strings.HasSuffix(n, ".txt") || strings.HasSuffix(n, ".hlo") || strings.HasSuffix(n, ".hlo.gz")) {
					files = append(files, filepath.Join(arg, n))
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no HLO files (.txt, .hlo, .hlo.gz) in the folder", arg)
			}
		}
		for _, f := range files {
			if err := inv.ctx.Err(); err != nil {
				return nil, err
			}
			mods, err := inv.loadModules(f)
			if err != nil && fi.IsDir() {
				// A dump folder holds other text (buffer assignments, memory reports): said, not listed.
				first, _, _ := strings.Cut(err.Error(), "\n")
				fmt.Fprintf(inv.stderr, "octet serve: skipping %s: %s\n", f, first)
				continue
			}
			if err != nil {
				s.items = append(s.items, &served{File: f, Err: err.Error()})
				continue
			}
			for _, m := range mods {
				s.items = append(s.items, &served{File: f, Module: &page.Module{File: f, Module: m, Report: report.Check(m)}})
			}
		}
	}
	return s, nil
}

// handler is the server's routes. Requests name modules and computations by their index in the listing;
// a path with a dot segment, an encoded dot or slash, or a backslash is refused before routing.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /m/{m}", s.module)
	mux.HandleFunc("GET /m/{m}/text", s.text)
	mux.HandleFunc("GET /m/{m}/c/{c}", s.computation)
	mux.HandleFunc("GET /diff", s.diff)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := r.URL.EscapedPath()
		lower := strings.ToLower(raw)
		if !strings.HasPrefix(raw, "/") || strings.Contains(raw, "//") || strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") ||
			strings.Contains(lower, "%5c") || strings.Contains(raw, "\\") || hasDotSegment(raw) {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Security-Policy", page.CSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
}

// hasDotSegment reports whether a path has a "." or ".." segment.
func hasDotSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// lookup returns the module the index v names, or writes 404.
func (s *server) lookup(w http.ResponseWriter, r *http.Request, v string) (*served, int) {
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(s.items) || s.items[i].Module == nil {
		http.NotFound(w, r)
		return nil, 0
	}
	return s.items[i], i
}

// writePage sends an HTML page.
func writePage(w http.ResponseWriter, body *bytes.Buffer) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(body.Bytes())
}

func (s *server) index(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	page.Head(&b, "Octet")
	fmt.Fprintf(&b, "<h1>Octet: %d modules</h1>\n", len(s.items))
	b.WriteString("<table class=\"modules\"><thead><tr><th>#</th><th>file</th><th>module</th><th>FP8 GEMMs</th><th>fused</th><th>not fused</th><th>views</th></tr></thead><tbody>\n")
	for i, it := range s.items {
		if it.Module == nil {
			fmt.Fprintf(&b, "<tr data-module=\"%d\"><td>%d</td><td>%s</td><td colspan=\"5\" class=\"muted\">%s</td></tr>\n", i, i, html.EscapeString(it.File), html.EscapeString(it.Err))
			continue
		}
		rep := it.Module.Report
		entry := 0
		for j, c := range it.Module.Module.Computations {
			if c == it.Module.Module.Entry {
				entry = j
			}
		}
		fmt.Fprintf(&b, "<tr data-module=\"%d\"><td>%d</td><td>%s</td><td><a href=\"/m/%d\"><code>%s</code></a></td><td>%d</td><td>%d</td><td>%d</td><td><a href=\"/m/%d\">report</a> · <a href=\"/m/%d/c/%d\">graph</a> · <a href=\"/m/%d/text\">text</a></td></tr>\n",
			i, i, html.EscapeString(it.File), i, html.EscapeString(rep.Module), len(rep.GEMMs), rep.Fused, rep.Unfused, i, i, entry, i)
	}
	b.WriteString("</tbody></table>\n")
	var options strings.Builder
	for i, it := range s.items {
		if it.Module != nil {
			fmt.Fprintf(&options, "<option value=\"%d\">%d: %s (%s)</option>", i, i, html.EscapeString(it.Module.Report.Module), html.EscapeString(filepath.Base(it.File)))
		}
	}
	fmt.Fprintf(&b, "<form action=\"/diff\" method=\"get\"><h2>Compare two modules</h2><select name=\"a\">%s</select> → <select name=\"b\">%s</select> <button>diff</button></form>\n", options.String(), options.String())
	page.Foot(&b)
	writePage(w, &b)
}

func (s *server) module(w http.ResponseWriter, r *http.Request) {
	it, i := s.lookup(w, r, r.PathValue("m"))
	if it == nil {
		return
	}
	var b bytes.Buffer
	page.Head(&b, page.Title([]*page.Module{it.Module}))
	fmt.Fprintf(&b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d/text\">text</a></p>\n", i)
	if err := page.WriteModule(&b, it.Module, "m0"); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	page.Foot(&b)
	writePage(w, &b)
}

func (s *server) text(w http.ResponseWriter, r *http.Request) {
	it, i := s.lookup(w, r, r.PathValue("m"))
	if it == nil {
		return
	}
	lines := page.Readable(it.Module.Module).Lines
	var b bytes.Buffer
	page.Head(&b, it.Module.Report.Module)
	fmt.Fprintf(&b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d\">report</a></p>\n<pre class=\"text full\" style=\"max-height:none\">", i)
	for n, l := range lines {
		fmt.Fprintf(&b, "<span id=\"L%d\">%s</span>", n+1, html.EscapeString(l))
	}
	b.WriteString("</pre>\n")
	page.Foot(&b)
	writePage(w, &b)
}

func (s *server) computation(w http.ResponseWriter, r *http.Request) {
	it, i := s.lookup(w, r, r.PathValue("m"))
	if it == nil {
		return
	}
	m := it.Module.Module
	j, err := strconv.Atoi(r.PathValue("c"))
	if err != nil || j < 0 || j >= len(m.Computations) {
		http.NotFound(w, r)
		return
	}
	c := m.Computations[j]
	index := map[string]int{}
	for k, cc := range m.Computations {
		index[cc.Name] = k
	}
	text := page.Readable(m)
	gr := graph.Computation(c, it.Module.Report, maxDrawn)
	var b bytes.Buffer
	page.Head(&b, c.Name)
	fmt.Fprintf(&b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d\">report</a> · <a href=\"/m/%d/text\">text</a></p>\n", i, i)
	fmt.Fprintf(&b, "<h1>%%%s <span class=\"muted\">in %s: %d instructions</span></h1>\n", html.EscapeString(c.Name), html.EscapeString(it.Module.Report.Module), len(c.Instructions))
	if gr.Omitted > 0 {
		fmt.Fprintf(&b, "<p class=\"muted\">Only the first %d instructions are drawn; %d are not.</p>\n", len(gr.Nodes), gr.Omitted)
	}
	err = gr.SVG(&b, graph.Options{ID: "c", Href: func(n graph.Node) string {
		if n.Collapsed && n.Calls != "" {
			if k, ok := index[n.Calls]; ok {
				return fmt.Sprintf("/m/%d/c/%d", i, k)
			}
		}
		if l, ok := text.Line(n.Computation, n.Name); ok {
			return fmt.Sprintf("/m/%d/text#L%d", i, l+1)
		}
		return ""
	}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var names []string
	for _, cc := range m.Computations {
		names = append(names, cc.Name)
	}
	sort.Strings(names)
	b.WriteString("<details><summary>other computations</summary><ul>")
	for _, n := range names {
		fmt.Fprintf(&b, "<li><a href=\"/m/%d/c/%d\">%s</a></li>", i, index[n], html.EscapeString(n))
	}
	b.WriteString("</ul></details>\n")
	page.Foot(&b)
	writePage(w, &b)
}

func (s *server) diff(w http.ResponseWriter, r *http.Request) {
	a, _ := s.lookup(w, r, r.URL.Query().Get("a"))
	if a == nil {
		return
	}
	bi, _ := s.lookup(w, r, r.URL.Query().Get("b"))
	if bi == nil {
		return
	}
	var b bytes.Buffer
	if err := page.Write(&b, []*page.Module{a.Module, bi.Module}, true); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, &b)
}

// exposure returns the warning for a listening address that is not loopback, or "".
func exposure(a *net.TCPAddr) string {
	if a != nil && a.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("octet serve: warning: listening on %v, not loopback: anyone who can reach it can read these programs", a)
}

func runServe(inv *invocation, args []string) error {
	fs := inv.flags()
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0 picks a free one)")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("serve takes at least one FILE or DIR")
	}
	for _, f := range files {
		if f == "-" {
			return usagef("serve reads files and folders, not standard input")
		}
	}
	s, err := newServer(inv, files)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("octet serve: %v", err)
	}
	tcp, _ := ln.Addr().(*net.TCPAddr)
	if w := exposure(tcp); w != "" {
		fmt.Fprintln(inv.stderr, w)
	}
	host := ln.Addr().String()
	if tcp != nil && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	fmt.Fprintf(inv.stdout, "http://%s/\n", host)
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-inv.ctx.Done():
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
