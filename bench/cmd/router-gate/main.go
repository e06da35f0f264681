// Command router-gate is the router's side of the instruction gate
// (bench/router-gate.sh, run by bench/instr-gate.sh): for each route table
// it counts, with valgrind's callgrind, the instructions of lookup passes
// served in process by plinth.Bare() and by gin (release mode, the
// benchmarks' set-up from bench/internal/suite), and fails when Plinth's
// count per pass exceeds gin's times -max-ratio (0.95).
//
// Why below 1: Plinth runs fewer instructions per cycle than gin on these
// loops, so equal counts mean a slower router. At 5e9169b Plinth's count
// was 0.90 of gin's on the GitHub table and its time 0.91-0.96 of gin's; at
// f7d8f87 the count was 0.99 of gin's and the time 1.22-1.26 (benchstat,
// -count 10, one process). 0.95 fails the second and passes the first.
//
// A pass serves every request of the table once, through App.ServeHTTP and
// gin.Engine.ServeHTTP, with httptest requests and a discarding writer, as
// the in-process benchmarks do (bench_test.go). Each table is measured on
// all its routes ("all") and on its static routes alone ("static"), when it
// has any. Counts are exact and repeat from run to run, unlike time on a
// shared machine: one child process per framework serves every table under
// callgrind, which dumps its counts at each mark around the passes, so
// that set-up and warm-up count nowhere.
//
// Usage (from bench/):
//
//	go run ./cmd/router-gate [-max-ratio 0.95] [-n 20] [-inform t1.txt,t2.txt] table.txt...
//
// Tables given with -inform are measured and printed, not gated.
//
// Table files hold "METHOD /path" lines in httprouter syntax (:param,
// *catchall); '#' starts a comment line.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/plinth-go/plinth/bench/internal/suite"
)

func main() {
	child := flag.String("child", "", "internal: serve passes for this framework (plinth or gin)")
	n := flag.Int("n", 20, "lookup passes measured per table")
	maxRatio := flag.Float64("max-ratio", 0.95, "fail when plinth > gin * max-ratio on a gated table")
	inform := flag.String("inform", "", "comma-separated tables measured and printed but not gated")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child, flag.Args(), *n); err != nil {
			fmt.Fprintln(os.Stderr, "router-gate:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: router-gate [-max-ratio 0.95] [-n 20] [-inform t.txt,...] table.txt...")
		os.Exit(2)
	}
	informed := map[string]bool{}
	tables := flag.Args()
	if *inform != "" {
		for _, tb := range strings.Split(*inform, ",") {
			informed[tb] = true
			tables = append(tables, tb)
		}
	}
	if err := gate(tables, informed, *n, *maxRatio); err != nil {
		fmt.Fprintln(os.Stderr, "router-gate:", err)
		os.Exit(1)
	}
}

// unit is one measurement: a subset ("all" or "static") of a table.
type unit struct {
	table, subset string
	requests      int
	ir            [2]float64 // instructions per pass: plinth, gin
}

var frameworks = [2]string{"plinth", "gin"}

func gate(tables []string, informed map[string]bool, n int, maxRatio float64) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	units, err := unitsOf(tables)
	if err != nil {
		return err
	}
	// One child per framework, both at once: the counts do not depend on
	// the load.
	var wg sync.WaitGroup
	var errs [2]error
	for i, fw := range frameworks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = measure(self, fw, i, units, tables, n)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	failed := false
	fmt.Printf("router-gate: instructions per lookup pass (callgrind, %d passes), plinth.Bare() against gin; fails above a ratio of %.2f\n", n, maxRatio)
	fmt.Printf("%-16s %-7s %9s %12s %12s %7s\n", "table", "subset", "requests", "plinth", "gin", "ratio")
	for _, u := range units {
		ratio := u.ir[0] / u.ir[1]
		verdict := "ok"
		switch {
		case informed[u.table]:
			verdict = "(not gated)"
		case ratio > maxRatio:
			verdict = "FAIL"
			failed = true
		}
		fmt.Printf("%-16s %-7s %9d %12.0f %12.0f %7.3f %s\n", strings.TrimSuffix(filepath.Base(u.table), ".txt"), u.subset, u.requests, u.ir[0], u.ir[1], ratio, verdict)
	}
	if failed {
		return fmt.Errorf("plinth's router costs more instructions per lookup than gin's on a table above (docs/performance.md, router section, says how to look into it)")
	}
	return nil
}

// unitsOf lists the units of the tables, in the order a child serves them.
func unitsOf(tables []string) ([]*unit, error) {
	var units []*unit
	for _, tb := range tables {
		routes, err := suite.LoadGitHubRoutes(tb)
		if err != nil {
			return nil, err
		}
		units = append(units, &unit{table: tb, subset: "all", requests: len(requests(routes, "all"))})
		if k := len(requests(routes, "static")); k > 0 {
			units = append(units, &unit{table: tb, subset: "static", requests: k})
		}
	}
	return units, nil
}

// measure runs the child of framework fw (index i) under callgrind. The
// child calls mark before and after the passes of each unit; callgrind
// dumps its counts before every mark (out.1, out.2, ...), so dump 2k holds
// the passes of unit k alone (1-based), and set-up and warm-up count in
// none that is read.
func measure(self, fw string, i int, units []*unit, tables []string, n int) error {
	dir, err := os.MkdirTemp("", "router-gate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "callgrind.out")
	args := []string{"--tool=callgrind", "--dump-before=main.mark", "--dump-line=no",
		"--callgrind-out-file=" + out, self, "-child", fw, "-n", strconv.Itoa(n)}
	cmd := exec.Command("valgrind", append(args, tables...)...)
	// The settings of the instruction gate (cmd/instr-gate says why): no
	// collector, no async preemption, no random memory profiling, one P.
	cmd.Env = append(os.Environ(), "GOGC=off", "GOMAXPROCS=1",
		"GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,memprofilerate=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", fw, err, lastLines(stderr.String(), 15))
	}
	for k, u := range units {
		total, err := callgrindTotal(out + "." + strconv.Itoa(2*(k+1)))
		if err != nil {
			return fmt.Errorf("%s: %v", fw, err)
		}
		u.ir[i] = float64(total) / float64(n)
	}
	return nil
}

func callgrindTotal(file string) (int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"summary: ", "totals: "} {
			if v, ok := strings.CutPrefix(line, p); ok {
				return strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s: no summary line", file)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// requests are the requests of a subset: one per route, each parameter
// replaced by its name, as the benchmarks send them.
func requests(routes []suite.Route, subset string) []suite.Request {
	var out []suite.Request
	for _, rt := range routes {
		if subset == "static" && strings.ContainsAny(rt.Path, ":*") {
			continue
		}
		out = append(out, suite.Request{Method: rt.Method, Path: suite.RequestPath(rt.Path), Status: 200, Body: string(rt.Body)})
	}
	return out
}

func runChild(fwName string, tables []string, n int) error {
	var fw *suite.Framework
	for i := range suite.Frameworks {
		if suite.Frameworks[i].Name == fwName {
			fw = &suite.Frameworks[i]
		}
	}
	if fw == nil {
		return fmt.Errorf("unknown framework %q", fwName)
	}
	units, err := unitsOf(tables)
	if err != nil {
		return err
	}
	for _, u := range units {
		routes, err := suite.LoadGitHubRoutes(u.table)
		if err != nil {
			return err
		}
		spec := requests(routes, u.subset)
		h, err := fw.BuildScenario(suite.Scenario{Name: "router-gate", Routes: routes, Requests: spec})
		if err != nil {
			return err
		}
		reqs := make([]*http.Request, len(spec))
		for i, rq := range spec {
			reqs[i] = httptest.NewRequest(rq.Method, rq.Path, nil)
		}
		// Every response is checked once: a broken set-up must not count
		// as a cheap one.
		cw := suite.NewResponseWriter(true)
		for i, r := range reqs {
			cw.Reset()
			h.ServeHTTP(cw, r)
			if err := spec[i].Check(cw); err != nil {
				return fmt.Errorf("%s %s: %s %s: %v", fwName, u.table, r.Method, r.URL.Path, err)
			}
		}
		w := suite.NewResponseWriter(false)
		warm(h, w, reqs)
		mark()
		passes(h, w, reqs, n)
		mark()
	}
	return nil
}

// mark is where callgrind, run with --dump-before=main.mark, writes the
// counts since the previous mark.
//
//go:noinline
func mark() {}

// warm fills the caches the runtime fills at random (type assertions) and
// grows every pooled buffer before anything counts.
//
//go:noinline
func warm(h http.Handler, w *suite.ResponseWriter, reqs []*http.Request) {
	for range 20 {
		for _, r := range reqs {
			w.Reset()
			h.ServeHTTP(w, r)
		}
	}
}

// passes is what the dumps between two marks count.
//
//go:noinline
func passes(h http.Handler, w *suite.ResponseWriter, reqs []*http.Request, n int) {
	for range n {
		for _, r := range reqs {
			w.Reset()
			h.ServeHTTP(w, r)
		}
	}
}
