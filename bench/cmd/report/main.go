// Command report regenerates BENCHMARKS.md at the repository's root: a
// one-page summary of the headline ratios, each section linking to its
// full results file and naming the command that regenerates it. It reads
// the newest results file of each kind in bench/results/ (newest by the
// date in the name):
//
//	inprocess-<date>.txt   in-process ns/op and allocs/op (run-inprocess.sh; linked: the .md beside it)
//	allocs-<date>.md       allocations and bytes per request (cmd/alloc-count)
//	http-<date>.json       real HTTP req/s, latency, CPU, RSS (run-http.sh; linked: the .md beside it)
//	http-wrk-<date>.json   the same loaded by wrk (TOOL=wrk run-http.sh), the cross-check
//	latency-<date>.json    single-connection latency (run-latency.sh)
//	layer-skip-<date>.md   the default layer part by part (run-layer-skip.sh)
//	instr-<date>.md        instructions per request over real HTTP, callgrind (run-instr.sh)
//	nethttp-headers-<date>.md  net/http alone, instructions per request by header lines (instr-gate.sh -measure)
//	validated-json-<date>.txt  typed handlers against huma, gin and echo (its first line is its command)
//	modules-<date>.txt     the module package per request and at startup (go test -bench Module)
//	web-sessions-<date>.txt    sessions and CSRF against scs, gorilla and nosurf (run-web-sessions.sh)
//	fullstack-<date>.txt   the full production stack in process (go test -bench FullStack)
//	http-fullstack-<date>.json the same over real HTTP (run-http.sh)
//	tfb-<date>.md          the TechEmpower tests against go-std, fiber and gin (tfb/run.sh)
//	pool-modes-<date>.md   the TFB server's database pool modes (tfb/run-pool-modes.sh)
//	engine-<date>.md       Plinth's HTTP/1.1 engine beside net/http and fasthttp (run-engine.sh)
//	tfb-engine-<date>.md   the TechEmpower tests on Plinth's engine (tfb/run.sh)
//	compile-<date>.md      build time, vet, binary size and modules of the minimal and api apps (compile/run.sh)
//	laravel-<date>.md      the whole site against gin and Laravel on PHP-FPM (laravel/run.sh)
//	jobs-enqueue-<date>.md the jobs core's enqueue path beside json.Marshal (run-jobs.sh)
//	jobs-<date>.md         jobs/riverjobs beside raw River and pgbench (services/cmd/jobs-bench)
//	mail-<date>.md         mail render and send beside raw go-mail (services/run-mail.sh)
//	cache-<date>.md        cache hits beside golang-lru and otter, the stampede, Redis beside go-redis (services/run-cache.sh)
//	scaleout-<lb>-<date>.json  examples/web scaled out behind haproxy or nginx through restarts and failures (go run ./scaleout; linked: the .md beside it)
//
// and the newest of each kind in bench/realtime/results/:
//
//	ws-instr-<date>.txt    server instructions per echoed WebSocket message (realtime/run-ws-instr.sh)
//	ws-idle-<date>.txt     memory per idle WebSocket connection (realtime/run-ws-idle.sh)
//	ws-echo-<date>.txt     WebSocket echo rounds over loopback (realtime/run-ws-echo.sh)
//	sse-<date>.md          server-sent events: send, fan-out, memory per stream
//
// Every figure of the summary is read or computed from those files: none is
// typed in. Usage, from bench/:
//
//	go run ./cmd/report                 # writes ../BENCHMARKS.md
//	go run ./cmd/report -o - | less     # standard output
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/httpserve"
	"github.com/plinth-go/plinth/bench/internal/results"
)

func main() {
	dir := flag.String("results", "results", "the results directory")
	rt := flag.String("realtime", "realtime/results", "the real-time results directory")
	out := flag.String("o", "../BENCHMARKS.md", "output file, - for standard output")
	flag.Parse()
	var w io.Writer = os.Stdout
	var f *os.File
	if *out != "-" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fail(err)
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	if err := write(bw, *dir, *rt); err != nil {
		fail(err)
	}
	if err := bw.Flush(); err != nil {
		fail(err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			fail(err)
		}
		fmt.Fprintln(os.Stderr, "wrote", *out)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

var datedName = regexp.MustCompile(`^(inprocess|allocs|http-fullstack|http-wrk|http|latency|fullstack|layer-skip|instr|nethttp-headers|validated-json|modules|web-sessions|tfb-engine|tfb|pool-modes|engine|compile|laravel|jobs-enqueue|jobs|mail|cache|ws-instr-detached|ws-instr|ws-idle|ws-echo-inprocess|ws-echo|ws|sse)-(\d{4}-\d{2}-\d{2}[^.]*)\.(txt|md|json)$`)

// latest returns the newest file of a kind and extension, "" when none.
func latest(dir, kind, ext string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		m := datedName.FindStringSubmatch(e.Name())
		if m != nil && m[1] == kind && m[3] == ext {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	slices.Sort(names) // ISO dates sort as text
	return filepath.Join(dir, names[len(names)-1]), nil
}

// engineTFBCommand measures the TechEmpower tests the engine is for: tfb-server
// on Plinth's engine (plinth-fast) beside itself on net/http, go-std and fiber.
const engineTFBCommand = `cd bench/tfb && IMPLS="plinth-fast plinth go-std fiber" TESTS="json plaintext" ` +
	`TITLE="TechEmpower benchmark on Plinth's engine" OUT=../results/tfb-engine-$(date -u +%F) ./run.sh`

const intro = `# Benchmarks

Generated by ` + "`cd bench && go run ./cmd/report`" + ` from the newest files in ` + "`bench/results/`" + `; do not edit by hand.
Each section gives a few headline ratios from one results file. The link opens the full results, and the command
reruns them. Every figure below is read from that file.

Read the figures with three caveats:

- Most come from a shared 2-core virtual machine, where other tenants add noise of ±20 % and more between runs.
  Each figure is a median of several runs that alternate frameworks.
- Compare ratios within one section, not totals across sections, machines or dates.
- A ratio below 1× means Plinth takes less time (or fewer instructions, bytes or allocations); for req/s, msgs/s
  and jobs/s, a ratio above 1× means Plinth serves more.

[docs/performance.md](docs/performance.md) explains what each benchmark measures and how.

`

// write renders the summary: the newest results of each kind in dir and,
// for WebSocket and SSE, in rt.
func write(w io.Writer, dir, rt string) error {
	fmt.Fprint(w, intro)
	sections := []func(string) (section, error){
		inProcess, allocs, httpSection("http"), httpSection("http-wrk"), httpSection("latency"),
		layerSkip, instructions, netHTTPHeaders, validatedJSON, modules, webSessions,
		fullStack, httpSection("http-fullstack"), tfb, poolModes, engine, tfbEngine, compile,
	}
	for _, f := range sections {
		s, err := f(dir)
		if err != nil {
			return err
		}
		s.render(w)
	}
	for _, f := range []func(string) (section, error){sse, websocket} {
		s, err := f(rt)
		if err != nil {
			return err
		}
		s.render(w)
	}
	for _, f := range []func(string) (section, error){laravel, jobsEnqueue, jobs, mail, cache, scaleOut} {
		s, err := f(dir)
		if err != nil {
			return err
		}
		s.render(w)
	}
	return nil
}

// goBenchRun is a file of `go test -bench` output: its command and the
// runs of each benchmark, in the order of their first appearance.
type goBenchRun struct {
	command string
	cfg     map[string]string // "key: value" lines before the benchmarks
	order   []string
	ns      map[string][]float64
	b       map[string][]float64
	allocs  map[string][]float64
}

// median returns the median of a benchmark's ns/op, 0 when it has none.
func (r *goBenchRun) median(name string) float64 { return results.Median(r.ns[name]) }

// readGoBench reads `go test -bench` output. The command is the file's
// "command: " line, or its first line as a "# " comment. A -GOMAXPROCS
// suffix is dropped from the names, except where it is part of a framework
// name (httpserve.Frameworks).
func readGoBench(file string) (*goBenchRun, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &goBenchRun{cfg: map[string]string{}, ns: map[string][]float64{}, b: map[string][]float64{}, allocs: map[string][]float64{}}
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, "# "); ok && first {
			r.command = c
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
				if _, seen := r.cfg[k]; !seen {
					r.cfg[k] = strings.TrimSpace(v)
				}
			}
			continue
		}
		name := strings.TrimPrefix(fields[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil && !slices.Contains(httpserve.Frameworks, name[strings.LastIndexByte(name, '/')+1:]) {
				name = name[:i]
			}
		}
		if _, seen := r.ns[name]; !seen {
			r.order = append(r.order, name)
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			switch fields[i+1] {
			case "ns/op":
				r.ns[name] = append(r.ns[name], v)
			case "B/op":
				r.b[name] = append(r.b[name], v)
			case "allocs/op":
				r.allocs[name] = append(r.allocs[name], v)
			}
		}
	}
	if r.command == "" {
		r.command = r.cfg["command"]
	}
	return r, sc.Err()
}

// trim formats a count: no decimals when it is whole, else two.
func trim(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// scaleOutName is a scale-out rehearsal's results file: its load balancer
// and date.
var scaleOutName = regexp.MustCompile(`^scaleout-([a-z]+)-(\d{4}-\d{2}-\d{2})\.json$`)

// scaleOutEvent is what the summary reads of one event of a scale-out
// rehearsal (bench/scaleout's EventStats), or of its totals.
type scaleOutEvent struct {
	Kind        string  `json:"kind"`
	Requests    int     `json:"requests"`
	Failed      int     `json:"failed"`
	Expected503 int     `json:"expected_503_retry_after"`
	JobsLost    int     `json:"jobs_lost"`
	JobsTwice   int     `json:"jobs_duplicated"`
	RecoverS    float64 `json:"recover_s"`
	DownS       float64 `json:"down_s"`
	InFlight    int     `json:"in_flight_failed"`
	Result      string  `json:"result"`
}

// scaleOut: the newest scale-out rehearsal of each load balancer
// (bench/scaleout), its failed requests, targets, jobs and the database's
// restart; the link is the .md beside the .json.
func scaleOut(dir string) (section, error) {
	s := section{title: "Scale-out rehearsal: examples/web, three instances behind a load balancer",
		command: "cd bench && go run ./scaleout && LB=nginx go run ./scaleout"}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s, err
	}
	newest := map[string]string{} // load balancer -> its newest file
	for _, e := range entries {
		if m := scaleOutName.FindStringSubmatch(e.Name()); m != nil && e.Name() > newest[m[1]] {
			newest[m[1]] = e.Name()
		}
	}
	lbs := slices.Sorted(func(yield func(string) bool) {
		for lb := range newest {
			if !yield(lb) {
				return
			}
		}
	})
	for _, lb := range lbs {
		file := filepath.Join(dir, newest[lb])
		raw, err := os.ReadFile(file)
		if err != nil {
			return s, err
		}
		var r struct {
			Meta struct {
				Rate    float64 `json:"rate"`
				Clients int     `json:"clients"`
			} `json:"meta"`
			Events []scaleOutEvent `json:"events"`
			Totals scaleOutEvent   `json:"totals"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return s, fmt.Errorf("%s: %w", file, err)
		}
		md := sibling(file, ".md")
		if s.file == "" {
			s.file = md
		}
		src := fmt.Sprintf(" ([%s](%s))", baseName(md), link(md))
		met, events := 0, 0
		for _, e := range r.Events {
			if e.Result == "PASS" {
				met++
			}
			if e.Kind != "baseline" {
				events++
			}
		}
		t := r.Totals
		s.lines = append(s.lines, line(fmt.Sprintf("%s, %g requests/s from %d clients through a baseline and %d events: failed / sent requests", lb, r.Meta.Rate, r.Meta.Clients, events),
			fmt.Sprintf("%d / %d", t.Failed, t.Requests))+
			fmt.Sprintf("; periods meeting their targets: **%d of %d**; jobs lost / run twice: **%d / %d**", met, len(r.Events), t.JobsLost, t.JobsTwice)+src)
		for _, e := range r.Events {
			switch e.Kind {
			case "postgres":
				s.lines = append(s.lines, line(lb+", PostgreSQL restart: database down", fmt.Sprintf("%.1f s", e.DownS))+
					fmt.Sprintf("; answered 503 with Retry-After: **%d**; other failures: **%d**; last one **%.1f s** after the restart began", e.Expected503, e.Failed, e.RecoverS))
			case "sigkill":
				s.lines = append(s.lines, line(lb+", SIGKILL of an instance: failed requests", strconv.Itoa(e.Failed))+
					fmt.Sprintf(" (%d of them in flight at the kill)", e.InFlight))
			}
		}
	}
	return s, nil
}
