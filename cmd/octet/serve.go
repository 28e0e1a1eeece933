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
	"unicode"
	"unicode/utf8"

	"octet/fuse/report"
	"octet/viz/graph"
	"octet/viz/page"
)

func init() {
	register(&command{
		Name:      "serve",
		UsageLine: "serve [--addr=127.0.0.1:0] [--allow-remote] FILE|DIR...",
		Short:     "serve a local, read-only web view of modules or an XLA dump folder",
		Long: `Serve reads the modules of every FILE, and of every HLO file in each DIR (such as a folder XLA wrote
with --xla_dump_to: files ending in .txt, .hlo or .hlo.gz), and serves a read-only web view of them over
HTTP: an index of the modules with their FP8 summary, a report page per module (as "octet report"
writes it), a graph of every computation (only that computation drawn, each fusion one box that leads to
its body, so that the largest modules stay fast), the readable text, and the difference between any two
modules.

It prints its URL as the first line of standard output and serves until interrupted (Ctrl-C). It binds
the loopback interface unless --addr names another; an address that is not loopback is refused unless
--allow-remote is given too, and warned of then: the view shows the programs to whoever can reach the
address. It answers only requests addressed to itself (a Host of 127.0.0.1, localhost or [::1] with its
port, or the address it listens on), so that a web page whose name is made to lead to this machine cannot
read the programs, and its pages may not be framed by another site. What it serves is the list it read at
start: no path of a request ever reaches the file system. A FILE or DIR that is not there stops serve
before it starts; a FILE that cannot be read, parsed or verified is listed with its error; a file of a
DIR that cannot (a dump folder also holds buffer assignments and memory reports), or that is not a
regular file or a link to one, is left out, and said so on standard error. Each page is built once, at most a few at a
time, and kept while it fits in memory set aside for pages.`,
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
	// hosts are the values of the Host header the server answers: its own addresses.
	hosts map[string]bool
	pages *pageCache
}

// maxDrawn bounds the instructions of one computation graph.
const maxDrawn = 4000

// newServer loads every FILE, and every HLO file of every DIR, into the listing.
func newServer(inv *invocation, args []string) (*server, error) {
	s := &server{pages: newPageCache(pageCacheBytes, maxBuilds)}
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
				if !strings.HasSuffix(n, ".txt") && !strings.HasSuffix(n, ".hlo") && !strings.HasSuffix(n, ".hlo.gz") {
					continue
				}
				path := filepath.Join(arg, n)
				regular := e.Type().IsRegular()
				if e.Type()&os.ModeSymlink != 0 {
					// A link to a file is the file (print DIR reads it too).
					if t, err := os.Stat(path); err == nil && t.Mode().IsRegular() {
						regular = true
					}
				}
				if !regular {
					fmt.Fprintf(inv.stderr, "octet serve: skipping %s: not a regular file\n", quoteControls(path))
					continue
				}
				files = append(files, path)
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
				// The message starts with the file's name (and a position, or ": "), and the name may
				// hold a newline of its own: the first line is taken after it.
				msg := err.Error()
				if rest, ok := strings.CutPrefix(msg, f); ok {
					first, _, _ := strings.Cut(rest, "\n")
					fmt.Fprintf(inv.stderr, "octet serve: skipping %s%s\n", quoteControls(f), quoteControls(first))
				} else {
					first, _, _ := strings.Cut(msg, "\n")
					fmt.Fprintf(inv.stderr, "octet serve: skipping %s: %s\n", quoteControls(f), quoteControls(first))
				}
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
// a path with a dot segment, an encoded dot or slash, or a backslash is refused before routing, and so is a
// request whose Host is not one of the server's own (misdirected: 421).
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /m/{m}", s.module)
	mux.HandleFunc("GET /m/{m}/text", s.text)
	mux.HandleFunc("GET /m/{m}/c/{c}", s.computation)
	mux.HandleFunc("GET /diff", s.diff)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts[strings.ToLower(r.Host)] {
			http.Error(w, "this server answers only requests addressed to itself", http.StatusMisdirectedRequest)
			return
		}
		raw := r.URL.EscapedPath()
		lower := strings.ToLower(raw)
		if !strings.HasPrefix(raw, "/") || strings.Contains(raw, "//") || strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") ||
			strings.Contains(lower, "%5c") || strings.Contains(raw, "\\") || hasDotSegment(raw) {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		// frame-ancestors is obeyed only as a header; X-Frame-Options for browsers that predate it.
		w.Header().Set("Content-Security-Policy", page.CSP+"; frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
}

// allowHosts sets the Host values the server answers, for a listener at addr, given as --addr: the
// loopback names with its port, the address it listens on, and the host --addr named; for an address
// that stands for every interface, the address of each interface and the machine's name too.
func (s *server) allowHosts(addr net.Addr, given string) {
	s.hosts = map[string]bool{}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return
	}
	port := strconv.Itoa(tcp.Port)
	names := []string{"127.0.0.1", "localhost", "::1", tcp.IP.String()}
	if h, _, err := net.SplitHostPort(given); err == nil && h != "" {
		names = append(names, h)
	}
	if tcp.IP.IsUnspecified() {
		if ifaddrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range ifaddrs {
				if ipn, ok := a.(*net.IPNet); ok {
					names = append(names, ipn.IP.String())
				}
			}
		}
		if h, err := os.Hostname(); err == nil {
			names = append(names, h)
		}
	}
	for _, n := range names {
		n = strings.ToLower(n)
		s.hosts[net.JoinHostPort(n, port)] = true
		if port == "80" {
			// A browser leaves out the default port.
			if strings.Contains(n, ":") {
				n = "[" + n + "]"
			}
			s.hosts[n] = true
		}
	}
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

// writePage sends the page key names, built by build unless it is kept (see pageCache).
func (s *server) writePage(w http.ResponseWriter, r *http.Request, key string, build func(*bytes.Buffer) error) {
	body, err := s.pages.get(r.Context(), key, func() ([]byte, error) {
		var b bytes.Buffer
		if err := build(&b); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	})
	switch {
	case r.Context().Err() != nil:
		// The client is gone.
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}
}

func (s *server) index(w http.ResponseWriter, r *http.Request) {
	s.writePage(w, r, "/", func(b *bytes.Buffer) error {
		page.Head(b, "Octet")
		fmt.Fprintf(b, "<h1>Octet: %d modules</h1>\n", len(s.items))
		b.WriteString("<table class=\"modules\"><thead><tr><th>#</th><th>file</th><th>module</th><th>FP8 GEMMs</th><th>fused</th><th>not fused</th><th>views</th></tr></thead><tbody>\n")
		for i, it := range s.items {
			file := html.EscapeString(quoteControls(it.File))
			if it.Module == nil {
				fmt.Fprintf(b, "<tr data-module=\"%d\"><td>%d</td><td>%s</td><td colspan=\"5\" class=\"muted\">%s</td></tr>\n", i, i, file, html.EscapeString(quoteControls(it.Err)))
				continue
			}
			rep := it.Module.Report
			entry := 0
			for j, c := range it.Module.Module.Computations {
				if c == it.Module.Module.Entry {
					entry = j
				}
			}
			fmt.Fprintf(b, "<tr data-module=\"%d\"><td>%d</td><td>%s</td><td><a href=\"/m/%d\"><code>%s</code></a></td><td>%d</td><td>%d</td><td>%d</td><td><a href=\"/m/%d\">report</a> · <a href=\"/m/%d/c/%d\">graph</a> · <a href=\"/m/%d/text\">text</a></td></tr>\n",
				i, i, file, i, html.EscapeString(rep.Module), len(rep.GEMMs), rep.Fused, rep.Unfused, i, i, entry, i)
		}
		b.WriteString("</tbody></table>\n")
		var options strings.Builder
		for i, it := range s.items {
			if it.Module != nil {
				fmt.Fprintf(&options, "<option value=\"%d\">%d: %s (%s)</option>", i, i, html.EscapeString(it.Module.Report.Module), html.EscapeString(quoteControls(filepath.Base(it.File))))
			}
		}
		fmt.Fprintf(b, "<form action=\"/diff\" method=\"get\"><h2>Compare two modules</h2><select name=\"a\">%s</select> → <select name=\"b\">%s</select> <button>diff</button></form>\n", options.String(), options.String())
		page.Foot(b)
		return nil
	})
}

func (s *server) module(w http.ResponseWriter, r *http.Request) {
	it, i := s.lookup(w, r, r.PathValue("m"))
	if it == nil {
		return
	}
	s.writePage(w, r, fmt.Sprintf("/m/%d", i), func(b *bytes.Buffer) error {
		page.Head(b, page.Title([]*page.Module{it.Module}))
		fmt.Fprintf(b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d/text\">text</a></p>\n", i)
		if err := page.WriteModule(b, it.Module, "m0"); err != nil {
			return err
		}
		page.Foot(b)
		return nil
	})
}

func (s *server) text(w http.ResponseWriter, r *http.Request) {
	it, i := s.lookup(w, r, r.PathValue("m"))
	if it == nil {
		return
	}
	s.writePage(w, r, fmt.Sprintf("/m/%d/text", i), func(b *bytes.Buffer) error {
		lines := page.Readable(it.Module.Module).Lines
		page.Head(b, it.Module.Report.Module)
		fmt.Fprintf(b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d\">report</a></p>\n<pre class=\"text full\" style=\"max-height:none\">", i)
		for n, l := range lines {
			fmt.Fprintf(b, "<span id=\"L%d\">%s</span>", n+1, html.EscapeString(l))
		}
		b.WriteString("</pre>\n")
		page.Foot(b)
		return nil
	})
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
	s.writePage(w, r, fmt.Sprintf("/m/%d/c/%d", i, j), func(b *bytes.Buffer) error {
		c := m.Computations[j]
		index := map[string]int{}
		for k, cc := range m.Computations {
			index[cc.Name] = k
		}
		text := page.Readable(m)
		gr := graph.Computation(c, it.Module.Report, maxDrawn)
		page.Head(b, c.Name)
		fmt.Fprintf(b, "<p><a href=\"/\">index</a> · <a href=\"/m/%d\">report</a> · <a href=\"/m/%d/text\">text</a></p>\n", i, i)
		fmt.Fprintf(b, "<h1>%%%s <span class=\"muted\">in %s: %d instructions</span></h1>\n", html.EscapeString(c.Name), html.EscapeString(it.Module.Report.Module), len(c.Instructions))
		if gr.Omitted > 0 {
			fmt.Fprintf(b, "<p class=\"muted\">Only the first %d instructions are drawn; %d are not.</p>\n", len(gr.Nodes), gr.Omitted)
		}
		err := gr.SVG(b, graph.Options{ID: "c", Href: func(n graph.Node) string {
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
			return err
		}
		var names []string
		for _, cc := range m.Computations {
			names = append(names, cc.Name)
		}
		sort.Strings(names)
		b.WriteString("<details><summary>other computations</summary><ul>")
		for _, n := range names {
			fmt.Fprintf(b, "<li><a href=\"/m/%d/c/%d\">%s</a></li>", i, index[n], html.EscapeString(n))
		}
		b.WriteString("</ul></details>\n")
		page.Foot(b)
		return nil
	})
}

func (s *server) diff(w http.ResponseWriter, r *http.Request) {
	a, ai := s.lookup(w, r, r.URL.Query().Get("a"))
	if a == nil {
		return
	}
	bi, bj := s.lookup(w, r, r.URL.Query().Get("b"))
	if bi == nil {
		return
	}
	s.writePage(w, r, fmt.Sprintf("/diff?a=%d&b=%d", ai, bj), func(b *bytes.Buffer) error {
		return page.Write(b, []*page.Module{a.Module, bi.Module}, true)
	})
}

// exposure returns the warning for a listening address that is not loopback, or "".
func exposure(a *net.TCPAddr) string {
	if a != nil && a.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("octet serve: WARNING: listening on %v, not loopback: anyone who can reach it can read these programs", a)
}

// serveTimeouts are the server's: a request's header must come within header and the whole request within
// read; a response must be written within write of the request (the time to build its page included); a
// connection left idle for idle is closed.
var serveTimeouts = struct{ header, read, write, idle time.Duration }{
	header: 10 * time.Second,
	read:   30 * time.Second,
	write:  5 * time.Minute,
	idle:   time.Minute,
}

func runServe(inv *invocation, args []string) error {
	fs := inv.flags()
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0 picks a free one)")
	remote := fs.Bool("allow-remote", false, "serve on an --addr that is not loopback, to whoever can reach it")
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
	if !*remote {
		// Refused before anything listens there, where the address says so already; a name that
		// resolves elsewhere once listening is refused below.
		if ta, err := net.ResolveTCPAddr("tcp", *addr); err == nil && exposure(ta) != "" {
			return usagef("--addr %s is not loopback: anyone who can reach this machine could read these programs (add --allow-remote to serve them so)", *addr)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("octet serve: %v", err)
	}
	defer ln.Close()
	tcp, _ := ln.Addr().(*net.TCPAddr)
	if w := exposure(tcp); w != "" {
		if !*remote {
			return usagef("--addr %s is not loopback: anyone who can reach port %d of this machine could read these programs (add --allow-remote to serve them so)", *addr, tcp.Port)
		}
		fmt.Fprintln(inv.stderr, w)
	}
	s, err := newServer(inv, files)
	if err != nil {
		return err
	}
	s.allowHosts(ln.Addr(), *addr)
	host := ln.Addr().String()
	if tcp != nil && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	fmt.Fprintf(inv.stdout, "http://%s/\n", host)
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: serveTimeouts.header,
		ReadTimeout:       serveTimeouts.read,
		WriteTimeout:      serveTimeouts.write,
		IdleTimeout:       serveTimeouts.idle,
		MaxHeaderBytes:    64 << 10,
	}
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

// quoteControls returns s with what a terminal or a page could take for something else escaped, as Go
// quotes it: control characters (newlines and escape sequences among them) as \n, \x1b or \u0085, the
// characters that reorder text (U+202E and the other bidirectional controls) as \u202e, and bytes that are
// not UTF-8 as \xff. A file name from a folder is printed through it.
func quoteControls(s string) string {
	clean := true
	for _, r := range s {
		if quotedRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case quotedRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// quotedRune reports whether quoteControls escapes r.
func quotedRune(r rune) bool {
	switch {
	case r == utf8.RuneError, unicode.IsControl(r):
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}
