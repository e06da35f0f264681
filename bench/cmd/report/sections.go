package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/results"
)

// goBenchSection reads the newest KIND-*.txt of `go test -bench` output and
// gives it to headlines. The link is the .md beside it when there is one.
func goBenchSection(kind, title, command string, headlines func(r *goBenchRun) []string) func(string) (section, error) {
	return func(dir string) (section, error) {
		s := section{title: title, command: command}
		file, err := latest(dir, kind, "txt")
		if err != nil || file == "" {
			return s, err
		}
		r, err := readGoBench(file)
		if err != nil {
			return s, err
		}
		s.file = sibling(file, ".md")
		if r.command != "" {
			s.command = r.command
		}
		for _, l := range headlines(r) {
			if l != "" {
				s.lines = append(s.lines, l)
			}
		}
		return s, nil
	}
}

// nsRatio is the headline "what: a / b" of two benchmarks' median ns/op.
func (r *goBenchRun) nsRatio(what, a, b string) string {
	return line(what, ratio(r.median(a), r.median(b)))
}

// inProcess: the framework suite in process (run-inprocess.sh), median ns/op.
var inProcess = func(dir string) (section, error) {
	f := goBenchSection("inprocess", "In process: routing and the request path", "bench/run-inprocess.sh 10", func(r *goBenchRun) []string {
		return []string{
			r.nsRatio("minimal route, ns/op, plinth / net/http", "Minimal/plinth", "Minimal/std"),
			r.nsRatio("the GitHub API's route table (github-all), plinth / net/http", "GithubAll/plinth", "GithubAll/std"),
			r.nsRatio("github-all, plinth / chi", "GithubAll/plinth", "GithubAll/chi"),
			r.nsRatio("github-all, plinth / gin", "GithubAll/plinth", "GithubAll/gin"),
			r.nsRatio("minimal route with plinth.New()'s default layer / net/http doing the same work by hand (std-defaults)", "Minimal/plinth-new", "Minimal/std-defaults"),
		}
	})
	s, err := f(dir)
	if err != nil || s.file == "" {
		return s, err
	}
	// The command: its count and benchtime are configuration lines.
	r, err := readGoBench(strings.TrimSuffix(s.file, ".md") + ".txt")
	if err != nil {
		return s, err
	}
	s.command = "bench/run-inprocess.sh " + r.cfg["count"]
	if bt := r.cfg["benchtime"]; bt != "" && bt != "1s" {
		s.command = "BENCHTIME=" + bt + " " + s.command
	}
	return s, nil
}

// allocs: allocations and bytes per request (cmd/alloc-count), exact counts.
var allocs = mdSection("allocs", "Allocations per request", "cd bench && go run ./cmd/alloc-count > results/allocs-$(date -u +%F).md",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "scenario", "plinth", "std")
		cells := func(sc string) string {
			var parts []string
			for _, fw := range []string{"plinth", "std", "chi", "gin"} {
				if c := t.cell(fw, sc); c != "" {
					parts = append(parts, fw+" "+c)
				}
			}
			return strings.Join(parts, ", ")
		}
		return []string{
			line("minimal route, allocations / bytes per request", cells("minimal")),
			line("a path no route matches (not-found)", cells("not-found")),
			line("minimal route through plinth.New() / net/http doing the same by hand (std-defaults)", join(t.cell("plinth-new", "minimal"), t.cell("std-defaults", "minimal"))),
		}
	})

// join formats two cells as "a against b", "" when either is missing.
func join(a, b string) string {
	if a == "" || b == "" {
		return ""
	}
	return a + " against " + b
}

// httpSection: a run-http.sh report (run-http.sh, run-latency.sh, wrk, the
// full stack); the link is the .md beside the .json.
func httpSection(kind string) func(string) (section, error) {
	title, command := "Real HTTP", "bench/run-http.sh 3 5 64 0 1"
	switch kind {
	case "latency":
		title, command = "Real HTTP, one connection (latency)", "bench/run-latency.sh 3 5 0 1"
	case "http-wrk":
		title, command = "Real HTTP, loaded by wrk (cross-check)", "TOOL=wrk bench/run-http.sh 3 5 64 0 1"
	case "http-fullstack":
		title, command = "Real HTTP: full production stack", `SCENARIOS=fullstack FRAMEWORKS="plinth-new chi gin echo" bench/run-http.sh 3 5 64 0 1`
	}
	return func(dir string) (section, error) {
		s := section{title: title, command: command}
		file, err := latest(dir, kind, "json")
		if err != nil || file == "" {
			return s, err
		}
		rep, err := results.ReadHTTPReport(file)
		if err != nil {
			return s, err
		}
		s.file = sibling(file, ".md")
		if c := rep.MetaValue("command"); c != "" {
			s.command = c
		}
		row := func(sc, fw string) *results.HTTPRow {
			for i := range rep.Rows {
				if rep.Rows[i].Scenario == sc && rep.Rows[i].Framework == fw {
					return &rep.Rows[i]
				}
			}
			return nil
		}
		rps := func(what, sc, a, b string) string {
			ra, rb := row(sc, a), row(sc, b)
			if ra == nil || rb == nil {
				return ""
			}
			return line(what, ratio(ra.RPS, rb.RPS))
		}
		cpu := func(what, sc, a, b string) string {
			ra, rb := row(sc, a), row(sc, b)
			if ra == nil || rb == nil {
				return ""
			}
			return line(what, ratio(ra.CPUPerReq, rb.CPUPerReq))
		}
		switch kind {
		case "latency":
			p50 := func(what, sc, a, b string) string {
				ra, rb := row(sc, a), row(sc, b)
				if ra == nil || rb == nil {
					return ""
				}
				return line(what, ratio(ra.P50, rb.P50))
			}
			s.lines = []string{
				p50("minimal route, p50 latency, plinth / net/http with Plinth's limits (std-limits)", "minimal", "plinth", "std-limits"),
				p50("minimal route, p50 latency, plinth.New() / std-defaults", "minimal", "plinth-new", "std-defaults"),
			}
		case "http-fullstack":
			for _, peer := range []string{"chi", "gin", "echo"} {
				s.lines = append(s.lines, rps("full stack, req/s, plinth.New() / "+peer, "fullstack", "plinth-new", peer))
			}
			s.lines = append(s.lines, cpu("full stack, server CPU µs per request, plinth.New() / chi", "fullstack", "plinth-new", "chi"))
		default:
			s.lines = []string{
				rps("minimal route, req/s, plinth / net/http with Plinth's limits (std-limits)", "minimal", "plinth", "std-limits"),
				rps("minimal route, req/s, plinth / net/http", "minimal", "plinth", "std"),
				rps("minimal route, req/s, plinth.New() / std-defaults (the same work by hand)", "minimal", "plinth-new", "std-defaults"),
				rps("JSON route, req/s, plinth / std-limits", "json", "plinth", "std-limits"),
				cpu("minimal route, server CPU µs per request, plinth / std-limits", "minimal", "plinth", "std-limits"),
			}
		}
		var kept []string
		for _, l := range s.lines {
			if l != "" {
				kept = append(kept, l)
			}
		}
		s.lines = kept
		return s, nil
	}
}

// layerSkip: plinth.New() part by part (run-layer-skip.sh).
var layerSkip = mdSection("layer-skip", "The default layer, part by part", "bench/run-layer-skip.sh 5 5",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "skipped", "ns/op", "vs none")
		return []string{
			line("in process, ns/op with the security headers skipped / with every part", times(t.cell("vs none", "security"))),
			line("in process, ns/op with every part skipped / with every part", times(t.cell("vs none", "all"))),
		}
	})

// instructions: instructions per request over real HTTP (run-instr.sh).
var instructions = mdSection("instr", "Instructions per request over real HTTP", "bench/run-instr.sh 20000 minimal",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "framework", "instructions per request")
		return []string{
			line("plinth / net/http with Plinth's limits (std-limits)", times(t.cell("ratio to std-limits", "plinth"))),
			line("plinth.New() / net/http doing the same work by hand (std-defaults)", times(t.cell("ratio to std-defaults", "plinth-new"))),
		}
	})

// netHTTPHeaders: what net/http costs per response header line.
var netHTTPHeaders = mdSection("nethttp-headers", "What net/http costs per response header line",
	"bench/instr-gate.sh -measure -frameworks std -scenarios headers-0,headers-4,headers-10 -md results/nethttp-headers-$(date -u +%F).md",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "scenario", "per header line")
		per := func(sc string) string {
			if c := t.cell("per header line", sc); num(c) > 0 {
				return c + " instructions"
			}
			return ""
		}
		return []string{
			line("net/http alone, instructions per header line, with 4 lines", per("headers-4")),
			line("with 10 lines", per("headers-10")),
		}
	})

// validatedJSON: typed handlers against huma, gin and echo.
var validatedJSON = goBenchSection("validated-json", "Typed handlers: validated-json", "bench/run-validated-json.sh 8", func(r *goBenchRun) []string {
	return []string{
		r.nsRatio("POST of a validated 5-field JSON body, ns/op, plinth's api / huma", "ValidatedJSON/plinth-api", "ValidatedJSON/huma"),
		r.nsRatio("the same, plinth's api / gin", "ValidatedJSON/plinth-api", "ValidatedJSON/gin"),
		r.nsRatio("the validator alone, plinth's api / go-playground", "Validator/plinth-api", "Validator/go-playground"),
	}
})

// modules: the module package per request and at startup.
var modules = goBenchSection("modules", "Modules: per request and at startup", "cd bench && go test -run '^$' -bench Module -benchmem -count=3 .", func(r *goBenchRun) []string {
	return []string{
		r.nsRatio("a request through a module's guard, interceptor and controller / the same on the App", "ModuleRoute", "ModuleDirect"),
		r.nsRatio("building 1,000 providers, module / uber-go/fx", "ModuleStartup1000/module", "ModuleStartup1000/fx"),
	}
})

// webSessions: sessions and CSRF against scs, gorilla and nosurf.
var webSessions = goBenchSection("web-sessions", "Web layer: sessions and CSRF", "PLINTH_TEST_REDIS=redis://127.0.0.1:6379/0 bench/run-web-sessions.sh 6", func(r *goBenchRun) []string {
	return []string{
		r.nsRatio("reading a session in memory, ns/op, plinth / scs", "Session/store=memory/op=read/fw=plinth", "Session/store=memory/op=read/fw=scs"),
		r.nsRatio("reading a session in Redis, plinth / scs", "Session/store=redis/op=read/fw=plinth", "Session/store=redis/op=read/fw=scs"),
		r.nsRatio("a request that never touches its session, plinth with sessions / without", "SessionUntouched/fw=plinth", "SessionUntouched/fw=plinth-bare"),
		r.nsRatio("a form POST checked by its CSRF token, plinth / gorilla/csrf", "CSRF/case=token/fw=plinth", "CSRF/case=token/fw=gorilla"),
		r.nsRatio("the same, plinth / nosurf", "CSRF/case=token/fw=plinth", "CSRF/case=token/fw=nosurf"),
	}
})

// fullStack: the full production stack in process.
var fullStack = goBenchSection("fullstack", "Full production stack, in process: request ID, access log, metrics, tracing, gzip, a concurrency limit", "cd bench && go test -run '^$' -bench FullStack -benchmem -count=5 -benchtime=300ms .", func(r *goBenchRun) []string {
	var lines []string
	for _, peer := range []string{"chi", "gin", "echo"} {
		lines = append(lines, r.nsRatio("ns/op, plinth / "+peer, "FullStack/plinth", "FullStack/"+peer))
	}
	return lines
})

// tfb: the TechEmpower tests against go-std, fiber and gin.
var tfb = mdSection("tfb", "TechEmpower benchmark", "cd bench/tfb && ./run.sh",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "test", "level", "plinth / go-std")
		var lines []string
		seen := map[string]bool{}
		for _, r := range t.rowsOf() {
			if seen[r[0]] || !slices.Contains([]string{"json", "db", "fortunes", "plaintext"}, r[0]) {
				continue // the first level of the four tests TechEmpower ranks first
			}
			seen[r[0]] = true
			lines = append(lines, line(r[0]+" ("+r[1]+"), req/s, plinth / go-std", times(t.cell("plinth / go-std", r[0], r[1]))))
		}
		return lines
	})

// rowsOf returns the table's rows, none for a nil table.
func (t *mdTable) rowsOf() [][]string {
	if t == nil {
		return nil
	}
	return t.rows
}

// poolModes: the TFB server's database pool modes.
var poolModes = mdSection("pool-modes", "Plinth TFB server: pool modes", "cd bench/tfb && ./run-pool-modes.sh",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "test", "level", "ping / default")
		var lines []string
		for _, r := range t.rowsOf() {
			if r[0] != "db" {
				continue
			}
			lines = append(lines,
				line(r[0]+" ("+r[1]+"), req/s, a ping on every checkout / the default pool", times(t.cell("ping / default", r[0], r[1]))),
				line(r[0]+" ("+r[1]+"), req/s, a connection per worker / the default pool", times(t.cell("per-worker / default", r[0], r[1]))))
		}
		return lines
	})

// engine: Plinth's HTTP/1.1 engine beside net/http and fasthttp.
var engine = mdSection("engine", "Plinth's engine", "bench/run-engine.sh all",
	func(_ string, tables []mdTable) []string {
		target := findTable(tables, "ratio", "measured", "target")
		wall := findTable(tables, "framework", "pipelined x16 req/s (runs)")
		rps := func(col, a, b string) string {
			if wall == nil {
				return ""
			}
			// the median is the column after the runs
			c := wall.col(col)
			if c < 0 || c+1 >= len(wall.header) {
				return ""
			}
			return ratio(num(wall.cell(wall.header[c+1], a)), num(wall.cell(wall.header[c+1], b)))
		}
		return []string{
			line("instructions per request, Plinth's engine alone / fasthttp", times(target.cell("measured", "plinth-fast / fasthttp"))),
			line("instructions per request, plinth.New() on the engine / on net/http", times(target.cell("measured", "plinth-new-fast / plinth-new"))),
			line("pipelined req/s, plinth.New() on the engine / fasthttp", rps("pipelined x16 req/s (runs)", "plinth-new-fast", "fasthttp")),
			line("pipelined req/s, plinth.New() on the engine / net/http", rps("pipelined x16 req/s (runs)", "plinth-new-fast", "std")),
			line("plain req/s, plinth.New() on the engine / fasthttp", rps("plain req/s (runs)", "plinth-new-fast", "fasthttp")),
		}
	})

// tfbEngine: the TechEmpower tests on Plinth's engine.
var tfbEngine = mdSection("tfb-engine", "TechEmpower benchmark on Plinth's engine", engineTFBCommand,
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "test", "level", "plinth-fast / go-std")
		var lines []string
		for _, r := range t.rowsOf() {
			lines = append(lines, line(r[0]+" ("+r[1]+"), req/s, Plinth on its engine / go-std", times(t.cell("plinth-fast / go-std", r[0], r[1]))))
		}
		return lines
	})

// compile: build time and binary size of the minimal and api apps.
var compile = mdSection("compile", "Build time and binary size", "bench/compile/run.sh",
	func(text string, _ []mdTable) []string {
		if i := strings.Index(text, "\n## Every run"); i >= 0 {
			text = text[:i]
		}
		t := findTable(mdTables(text), "app", "cold CPU", "stripped MiB")
		cell := func(col, app string) float64 { return num(t.cell(col, app)) }
		var lines []string
		for _, peer := range []string{"std", "chi", "gin", "echo"} {
			lines = append(lines, line("minimal app, cold build CPU time, Plinth / "+peer, ratio(cell("cold CPU", "plinth-minimal"), cell("cold CPU", peer+"-minimal"))))
		}
		lines = append(lines,
			line("minimal app, stripped binary size, Plinth / net/http", ratio(cell("stripped MiB", "plinth-minimal"), cell("stripped MiB", "std-minimal"))),
			line("api app (typed CRUD on SQLite), cold build CPU time, Plinth / net/http", ratio(cell("cold CPU", "plinth-api"), cell("cold CPU", "std-api"))))
		return lines
	})

// laravel: the whole site against gin and Laravel on PHP-FPM.
var laravel = mdSection("laravel", "Whole site: Plinth, gin and Laravel on PHP-FPM", "bench/laravel/run.sh",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "scenario", "conns", "server", "vs Laravel")
		var lines []string
		for _, sc := range []string{"hello", "account"} {
			lines = append(lines,
				line(sc+" page at 64 connections, req/s, Plinth / Laravel", times(t.cell("vs Laravel", sc, "64", "plinth"))),
				line(sc+" page at 64 connections, req/s, Plinth / gin", times(t.cell("vs gin", sc, "64", "plinth"))))
		}
		return lines
	})

// jobsEnqueue: the jobs core's enqueue path beside json.Marshal.
var jobsEnqueue = mdSection("jobs-enqueue", "Jobs: the enqueue path", "bench/run-jobs.sh",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "operation", "instructions/op", "ratio to json.Marshal")
		return []string{
			line("Client.Enqueue before the insert, instructions / json.Marshal of the same arguments", times(t.cell("ratio to json.Marshal", "plinth"))),
			line("allocations per Enqueue", t.cell("allocs/op", "plinth")),
		}
	})

// jobs: jobs/riverjobs beside raw River.
var jobs = mdSection("jobs", "Jobs: jobs/riverjobs beside raw River", "cd bench/services && go run ./cmd/jobs-bench -o ../results/jobs-$(date -u +%F).md",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "measurement", "Plinth / River")
		var lines []string
		for _, m := range []string{"postgres: single enqueue", "postgres: app transaction (1 row) + 1 enqueue, pgx", "postgres: batch enqueue (1000 a batch)", "postgres: no-op work, 5000 jobs, 100 workers", "sqlite: single enqueue"} {
			unit := t.cell("unit", m)
			lines = append(lines, line(m+", "+unit+", Plinth / River", times(t.cell("Plinth / River", m))))
		}
		return lines
	})

// mail: render and send beside raw go-mail.
var mail = mdSection("mail", "Mail: render and send, beside raw go-mail", "bench/services/run-mail.sh",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "scenario", "Plinth / go-mail (CPU)")
		return []string{
			line("rendering a welcome message, CPU per message, Plinth / go-mail", times(t.cell("Plinth / go-mail (CPU)", "Render"))),
			line("sending it on a reused connection", times(t.cell("Plinth / go-mail (CPU)", "Send/conn=reused"))),
			line("sending it on a new connection", times(t.cell("Plinth / go-mail (CPU)", "Send/conn=new"))),
		}
	})

var echoRatio = regexp.MustCompile(`(?m)^size=(\d+) plinth/coder per-round ratios: [^;]*; median ([0-9.]+)$`)

var clockCost = regexp.MustCompile(`BenchmarkCacheClock: a time.Now costs ([0-9.]+) ns, an atomic load ([0-9.]+) ns`)

var computesPerOp = regexp.MustCompile(`([0-9.]+) computes/op`)

// cache: hits beside golang-lru and otter, the stampede, Redis beside go-redis.
var cache = mdSection("cache", "Cache", "PLINTH_TEST_REDIS=redis://127.0.0.1:6379/0 bench/services/run-cache.sh",
	func(text string, tables []mdTable) []string {
		hit := func(bench, row, what string) string {
			t := findTable(tables, bench)
			if t == nil {
				return ""
			}
			return line(what, times(t.cell(t.header[len(t.header)-1], row)))
		}
		lines := []string{
			hit("BenchmarkCacheHit/zipf", "plinth-memory-get", "a hit in memory, keys read by Zipf's law, ns/op, Plinth's memory store / golang-lru"),
			hit("BenchmarkCacheHit/uniform", "plinth-memory-get", "the same, keys read in turn"),
			hit("BenchmarkCacheHit/zipf", "plinth-memory-remember", "a typed Remember hit in memory (Zipf) / golang-lru"),
			hit("BenchmarkCacheRedisHit", "rediscache-get", "a Redis hit, redisstore.CacheStore / go-redis"),
		}
		if m := clockCost.FindStringSubmatch(text); m != nil {
			lines = append(lines, line("reading the time for an expiry check, time.Now against the coarse clock's atomic load", m[1]+" ns against "+m[2]+" ns"))
		}
		if m := computesPerOp.FindStringSubmatch(text); m != nil {
			lines = append(lines, line("64 concurrent misses of one cold key, computations (1 = single flight)", m[1]))
		}
		return lines
	})

// sse: server-sent events (sse-<date>.md in bench/realtime/results).
var sse = mdSection("sse", "Real-time: SSE", "cd bench && go test -run '^$' -bench SSE -benchmem -benchtime 20x -count 1",
	func(_ string, tables []mdTable) []string {
		t := findTable(tables, "measure", "identity", "gzip")
		var send, idle []string
		for _, r := range t.rowsOf() {
			switch {
			case strings.HasPrefix(r[0], "`Send` of one event"):
				send = r
			case strings.HasPrefix(r[0], "heap + stack per idle stream"):
				idle = r
			}
		}
		var lines []string
		if len(send) >= 3 {
			lines = append(lines, line("one event sent, ns/op (allocs/op), identity", send[1]), line("the same, gzip", send[2]))
		}
		if len(idle) >= 3 {
			lines = append(lines, line("memory per idle stream, identity", idle[1]), line("the same, gzip", idle[2]))
		}
		return lines
	})

// websocket: the ws module beside coder, gorilla and gws, from the raw
// outputs of bench/realtime's scripts; the linked file is the write-up of
// the runs (ws-<date>.md) when there is one.
func websocket(dir string) (section, error) {
	s := section{title: "Real-time: WebSocket", command: "bench/realtime/run-ws-instr.sh 50 250 plinth plinth-noutf8 coder gorilla gws"}
	kv := func(kind string) (file string, rows []map[string]string, err error) {
		if file, err = latest(dir, kind, "txt"); err != nil || file == "" {
			return "", nil, err
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", nil, err
		}
		for _, l := range strings.Split(string(raw), "\n") {
			m := map[string]string{}
			for _, f := range strings.Fields(l) {
				if k, v, ok := strings.Cut(f, "="); ok {
					m[k] = v
				}
			}
			if fs := strings.Fields(l); len(fs) > 0 && !strings.Contains(fs[0], "=") {
				m[""] = fs[0]
			}
			rows = append(rows, m)
		}
		return file, rows, nil
	}
	find := func(rows []map[string]string, key string, match map[string]string) float64 {
		for _, r := range rows {
			ok := true
			for k, v := range match {
				if r[k] != v {
					ok = false
				}
			}
			if ok && r[key] != "" {
				return num(r[key])
			}
		}
		return 0
	}
	src := func(file, command string) string {
		return fmt.Sprintf(" ([%s](%s), `%s`)", baseName(file), link(file), command)
	}
	firstComment := func(file, def string) string {
		raw, err := os.ReadFile(file)
		if err != nil {
			return def
		}
		if c, ok := strings.CutPrefix(strings.SplitN(string(raw), "\n", 2)[0], "# "); ok {
			c, _, _ = strings.Cut(c, " (")
			return c
		}
		return def
	}
	if f, rows, err := kv("ws-instr"); err != nil {
		return s, err
	} else if f != "" {
		cmd := firstComment(f, s.command)
		for _, size := range []string{"64", "1024"} {
			p := find(rows, "instructions_per_msg", map[string]string{"size": size, "lib": "plinth"})
			c := find(rows, "instructions_per_msg", map[string]string{"size": size, "lib": "coder"})
			if l := line("server instructions per echoed "+size+" B message, Plinth / coder/websocket underneath", ratio(p, c)); l != "" {
				s.lines = append(s.lines, l+src(f, cmd))
			}
		}
	}
	if f, rows, err := kv("ws-idle"); err != nil {
		return s, err
	} else if f != "" {
		cmd := firstComment(f, "bench/realtime/run-ws-idle.sh 10000 plinth plinth-detached coder coder-detached gorilla gws")
		var parts []string
		for _, lib := range []string{"plinth-detached", "coder-detached", "gorilla", "gws"} {
			for _, r := range rows {
				if r[""] == lib && r["rss_per_conn_kib"] != "" {
					parts = append(parts, lib+" "+r["rss_per_conn_kib"]+" KiB")
					break
				}
			}
		}
		held := ""
		for _, r := range rows {
			if r["conns"] != "" {
				held = ", " + r["conns"] + " held"
				break
			}
		}
		if l := line("RSS per idle connection"+held, strings.Join(parts, ", ")); l != "" {
			s.lines = append(s.lines, l+src(f, cmd))
		}
	}
	if f, rows, err := kv("ws-echo"); err != nil {
		return s, err
	} else if f != "" {
		cmd := firstComment(f, "bench/realtime/run-ws-echo.sh 5 3")
		for _, size := range []string{"64", "1024"} {
			p := find(rows, "allocs_per_msg", map[string]string{"size": size, "lib": "plinth", "round": ""})
			c := find(rows, "allocs_per_msg", map[string]string{"size": size, "lib": "coder", "round": ""})
			if p == 0 && c == 0 {
				continue
			}
			if l := line("server allocations per echoed "+size+" B message, Plinth against coder", fmt.Sprintf("%s against %s", trim(p), trim(c))); l != "" {
				s.lines = append(s.lines, l+src(f, cmd))
			}
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return s, err
		}
		for _, m := range echoRatio.FindAllStringSubmatch(string(raw), -1) {
			s.lines = append(s.lines, line("echoed "+m[1]+" B messages per second, 50 connections, Plinth / coder (median of the per-round ratios)", m[2]+"×")+src(f, cmd))
		}
	}
	s.command = "" // each line names its own
	file, err := latest(dir, "ws", "md")
	if err != nil {
		return s, err
	}
	switch {
	case file != "":
		s.file = file
	case len(s.lines) > 0:
		s.file = dir // the raw outputs, each linked on its line
	}
	return s, nil
}

// baseName is the last element of a slash or OS path.
func baseName(file string) string {
	file = strings.ReplaceAll(file, "\\", "/")
	return file[strings.LastIndexByte(file, '/')+1:]
}
