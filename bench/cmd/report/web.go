package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/results"
)

// webSessions renders the newest web-sessions-*.txt (run-web-sessions.sh:
// BenchmarkSession, BenchmarkSessionUntouched and BenchmarkCSRF, whose
// sub-benchmarks are named key=value/.../fw=F): one table per benchmark, a
// row per case, a column per framework with the median ns/op, B/op and
// allocs/op, and Plinth's time as a ratio of each peer's.
func webSessions(w io.Writer, dir string) error {
	const title = "Web layer: sessions and CSRF"
	file, err := latest(dir, "web-sessions", "txt")
	if err != nil || file == "" {
		fmt.Fprintf(w, "## %s\n\nNo results yet: run `PLINTH_TEST_REDIS=redis://127.0.0.1:6379/0 bench/run-web-sessions.sh 6`.\n\n", title)
		return err
	}
	run, err := readWebBench(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## %s\n\nFrom `%s`, produced by `%s` (commit %s, %s, %s, %s). Median of %s runs; each cell is\nns/op · B/op · allocs/op, in process, one request per op (see `bench/web_sessions_test.go` and `bench/web_csrf_test.go`).\n\n",
		title, filepath.Base(file), run.cfg["command"], run.cfg["commit"], run.cfg["go"], run.cfg["cpu-model"], run.cfg["pinned"], run.cfg["count"])

	fmt.Fprint(w, "Sessions: a handler that reads one string from the session, or writes one, with the cookie of an existing\n"+
		"session. Plinth on plinth.Bare(), the peers on an http.ServeMux. scs has no cookie store, gorilla/sessions no\n"+
		"memory store; gorilla's Redis store is boj/redistore (redigo).\n\n")
	run.table(w, "Session", "store, op", []string{"plinth", "scs", "gorilla"}, []string{"scs", "gorilla"})
	fmt.Fprint(w, "A request that never touches its session: Plinth with Sessions attached and without (plinth-bare);\n"+
		"scs's LoadAndSave, which loads the session of every request, and the ServeMux alone (mux).\n\n")
	run.table(w, "SessionUntouched", "request", []string{"plinth", "plinth-bare", "scs", "mux"}, []string{"plinth-bare", "scs"})
	fmt.Fprint(w, "CSRF: a form POST (the handler parses the form) with Sec-Fetch-Site: same-origin and Origin (a current\n"+
		"browser), and with a token and neither header (the token decides; the session in the memory store, or the\n"+
		"cookie store for plinth-cookie). gorilla/csrf and nosurf check their token in both cases; the standard\n"+
		"library's CrossOriginProtection (std) has no token step. plinth-bare and mux: the handler unprotected.\n\n")
	run.table(w, "CSRF", "case", []string{"plinth", "plinth-cookie", "std", "gorilla", "nosurf", "plinth-bare", "mux"}, []string{"std", "gorilla", "nosurf"})
	return nil
}

// webStat is one benchmark's runs.
type webStat struct{ ns, b, allocs []float64 }

// webRun is a web-sessions file: configuration lines and benchmarks by
// family (BenchmarkSession -> "Session"), case and framework.
type webRun struct {
	cfg   map[string]string
	cases map[string][]string // family -> cases in order
	stats map[[3]string]*webStat
}

func readWebBench(file string) (*webRun, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run := &webRun{cfg: map[string]string{}, cases: map[string][]string{}, stats: map[[3]string]*webStat{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
				if _, seen := run.cfg[k]; !seen {
					run.cfg[k] = strings.TrimSpace(v)
				}
			}
			continue
		}
		family, rest, ok := strings.Cut(strings.TrimPrefix(fields[0], "Benchmark"), "/")
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, "fw=")
		if i < 0 {
			continue
		}
		cs, fw := strings.TrimSuffix(rest[:i], "/"), rest[i+len("fw="):]
		if j := strings.LastIndexByte(fw, '-'); j > 0 { // -GOMAXPROCS suffix
			if _, err := strconv.Atoi(fw[j+1:]); err == nil {
				fw = fw[:j]
			}
		}
		key := [3]string{family, cs, fw}
		st := run.stats[key]
		if st == nil {
			st = &webStat{}
			run.stats[key] = st
			if !slices.Contains(run.cases[family], cs) {
				run.cases[family] = append(run.cases[family], cs)
			}
		}
		for k := 2; k+1 < len(fields); k += 2 {
			v, err := strconv.ParseFloat(fields[k], 64)
			if err != nil {
				continue
			}
			switch fields[k+1] {
			case "ns/op":
				st.ns = append(st.ns, v)
			case "B/op":
				st.b = append(st.b, v)
			case "allocs/op":
				st.allocs = append(st.allocs, v)
			}
		}
	}
	return run, sc.Err()
}

// table writes family's table: a row per case, the columns fws, then
// Plinth's median time over each of versus.
func (run *webRun) table(w io.Writer, family, rowHead string, fws, versus []string) {
	if len(run.cases[family]) == 0 {
		fmt.Fprintf(w, "(No Benchmark%s in this file.)\n\n", family)
		return
	}
	fmt.Fprintf(w, "| %s |", rowHead)
	for _, fw := range fws {
		fmt.Fprintf(w, " %s |", fw)
	}
	for _, v := range versus {
		fmt.Fprintf(w, " plinth / %s |", v)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range len(fws) + len(versus) {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, cs := range run.cases[family] {
		fmt.Fprintf(w, "| %s |", webRowName(cs))
		for _, fw := range fws {
			st := run.stats[[3]string{family, cs, fw}]
			if st == nil || len(st.ns) == 0 {
				fmt.Fprint(w, " – |")
				continue
			}
			fmt.Fprintf(w, " %s · %s B · %s |", thousands(results.Median(st.ns)), webCount(results.Median(st.b)), trim(results.Median(st.allocs)))
		}
		p := run.stats[[3]string{family, cs, "plinth"}]
		for _, v := range versus {
			o := run.stats[[3]string{family, cs, v}]
			if p == nil || o == nil || len(p.ns) == 0 || len(o.ns) == 0 {
				fmt.Fprint(w, " – |")
				continue
			}
			r := results.Median(p.ns) / results.Median(o.ns)
			if r < 0.1 {
				fmt.Fprintf(w, " %.3f |", r)
			} else {
				fmt.Fprintf(w, " %.2f |", r)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// webRowName turns a case, "store=memory/op=read", into its row's name,
// "memory, read" ("" into "untouched").
func webRowName(cs string) string {
	if cs == "" {
		return "untouched"
	}
	parts := strings.Split(cs, "/")
	for i, p := range parts {
		if _, v, ok := strings.Cut(p, "="); ok {
			parts[i] = v
		}
	}
	return strings.Join(parts, ", ")
}

// webCount formats a byte count: thousands separated, no decimals below 10.
func webCount(v float64) string {
	if v < 10 {
		return trim(v)
	}
	return thousands(v)
}
