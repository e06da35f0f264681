// Command benchtable turns `go test -bench -benchmem` output into a markdown
// report: a summary of ns/op per scenario and framework with Plinth's ratio
// to net/http (std) and gin, then ns/op, B/op and allocs/op per scenario.
//
// Usage:
//
//	benchtable [file ...]   (standard input when no file is given)
//
// Benchmarks must be named Benchmark<Scenario>/<framework>, as in bench/.
// With -count above 1 the summary shows the fastest run of each cell (on a
// shared machine other tenants only add time) and the details add the median
// and the spread: half the range between the fastest and slowest run, as a
// percentage of the median. Configuration lines ("key: value", as written by
// go test and by run-inprocess.sh) make the report's header.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

const (
	subject = "plinth"
)

// baselines are the frameworks Plinth's ns/op is divided by in the summary.
var baselines = []string{"std", "gin"}

func main() {
	var in []io.Reader
	for _, name := range os.Args[1:] {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintln(os.Stderr, "usage: benchtable [go-test-bench-output ...]")
			os.Exit(2)
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, os.Stdin)
	}
	res, err := parse(io.MultiReader(in...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if err := res.write(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// results is everything read from the benchmark output.
type results struct {
	config     [][2]string // key, value, in input order, first value of a key
	scenarios  []string    // in input order
	frameworks []string    // in input order
	samples    map[cell][]float64
	runs       int // most samples of any cell
}

type cell struct{ scenario, framework, unit string }

// parse reads go test -bench output.
func parse(r io.Reader) (*results, error) {
	res := &results{samples: map[cell][]float64{}}
	seenKey := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Benchmark") {
			if err := res.addBenchLine(line); err != nil {
				return nil, err
			}
			continue
		}
		if key, value, ok := configLine(line); ok && !seenKey[key] {
			seenKey[key] = true
			res.config = append(res.config, [2]string{key, value})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(res.samples) == 0 {
		return nil, errors.New("no benchmark results in the input")
	}
	return res, nil
}

// configLine recognises "key: value" lines as the Go benchmark format
// defines them: key starts lower case and has no space or upper case.
func configLine(line string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(line, ": ")
	if !ok || key == "" || !unicode.IsLower(rune(key[0])) {
		return "", "", false
	}
	for _, c := range key {
		if unicode.IsSpace(c) || unicode.IsUpper(c) {
			return "", "", false
		}
	}
	return key, strings.TrimSpace(value), true
}

// addBenchLine records "BenchmarkX/fw-8  N  v ns/op  v B/op  v allocs/op".
func (res *results) addBenchLine(line string) error {
	fields := strings.Fields(line)
	if len(fields) < 4 || len(fields)%2 != 0 {
		return nil // "BenchmarkX" header of a failed or verbose run
	}
	if _, err := strconv.Atoi(fields[1]); err != nil {
		return nil
	}
	name := strings.TrimPrefix(fields[0], "Benchmark")
	// Strip the -GOMAXPROCS suffix.
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	bench, fw, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(fw, "/") {
		return fmt.Errorf("benchmark %q: want Benchmark<Scenario>/<framework>", fields[0])
	}
	scenario := kebab(bench)
	if !slices.Contains(res.scenarios, scenario) {
		res.scenarios = append(res.scenarios, scenario)
	}
	if !slices.Contains(res.frameworks, fw) {
		res.frameworks = append(res.frameworks, fw)
	}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return fmt.Errorf("%s: bad value %q", fields[0], fields[i])
		}
		c := cell{scenario, fw, fields[i+1]}
		res.samples[c] = append(res.samples[c], v)
		res.runs = max(res.runs, len(res.samples[c]))
	}
	return nil
}

// kebab turns a benchmark name into the scenario's name:
// GithubAll -> github-all, Routes50 -> routes-50, JSON -> json.
func kebab(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, c := range rs {
		if i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			switch {
			case unicode.IsUpper(c) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				b.WriteByte('-')
			case unicode.IsUpper(c) && unicode.IsUpper(prev) && nextLower:
				b.WriteByte('-') // "HTTPRouter" -> "http-router"
			case unicode.IsDigit(c) && unicode.IsLetter(prev):
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// fastest is the lowest value of a cell. On a shared, noisy machine other
// tenants only ever add time, so the fastest of several runs is the steadiest
// estimate of what the code itself costs.
func (res *results) fastest(scenario, fw, unit string) (float64, bool) {
	s := res.samples[cell{scenario, fw, unit}]
	if len(s) == 0 {
		return 0, false
	}
	return slices.Min(s), true
}

// stat is the median of a cell and its spread (half range / median).
func (res *results) stat(scenario, fw, unit string) (median, spread float64, ok bool) {
	s := res.samples[cell{scenario, fw, unit}]
	if len(s) == 0 {
		return 0, 0, false
	}
	s = slices.Clone(s)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	if median > 0 {
		spread = (s[n-1] - s[0]) / 2 / median
	}
	return median, spread, true
}

func (res *results) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	p("# In-process router benchmarks\n\n")
	p("Generated by `bench/cmd/benchtable` from the framework suite's `go test -bench -benchmem` output (`bench/run-inprocess.sh`); do not edit by hand.\n")
	p("Each op serves every request of the scenario once (the whole route table for github-*).\n")
	if res.runs > 1 {
		p("Two summaries of %d runs: the fastest run (other tenants of a shared machine only add time) and the median\n", res.runs)
		p("run; when they disagree, the difference is within the machine's noise. The details add ±%%, half the range\n")
		p("between the fastest and slowest run.\n")
	}
	p("\n")
	if len(res.config) > 0 {
		p("| run | |\n|---|---|\n")
		for _, kv := range res.config {
			p("| %s | %s |\n", kv[0], escape(kv[1]))
		}
		p("\n")
	}

	hasSubject := slices.Contains(res.frameworks, subject)
	fastest := func(sc, fw string) (float64, bool) { return res.fastest(sc, fw, "ns/op") }
	median := func(sc, fw string) (float64, bool) {
		m, _, ok := res.stat(sc, fw, "ns/op")
		return m, ok
	}
	res.summary(p, "Summary: fastest run (ns/op, lower is better)", "fastest", fastest, hasSubject)
	if res.runs > 1 {
		res.summary(p, "Summary: median run (ns/op, lower is better)", "median", median, hasSubject)
	}
	p("\n## Details\n")
	for _, sc := range res.scenarios {
		p("\n### %s\n\n", sc)
		p("| framework | fastest ns/op | median ns/op | B/op | allocs/op |")
		if hasSubject {
			p(" %s/framework |", subject)
		}
		p("\n|---|---:|---:|---:|---:|")
		if hasSubject {
			p("---:|")
		}
		p("\n")
		for _, fw := range res.frameworks {
			ns, spread, ok := res.stat(sc, fw, "ns/op")
			if !ok {
				continue
			}
			nsCell := formatNs(ns)
			if res.runs > 1 {
				nsCell += fmt.Sprintf(" ±%.0f%%", spread*100)
			}
			best, _ := res.fastest(sc, fw, "ns/op")
			bytes, _, okB := res.stat(sc, fw, "B/op")
			allocs, _, okA := res.stat(sc, fw, "allocs/op")
			p("| %s | %s | %s | %s | %s |", fw, formatNs(best), nsCell, orDash(okB, formatInt(bytes)), orDash(okA, formatInt(allocs)))
			if hasSubject {
				p(" %s |", ratio(fastest, sc, fw))
			}
			p("\n")
		}
	}
	return bw.Flush()
}

// summary writes one summary table of stat, with subject's ratios to the
// baselines.
func (res *results) summary(p func(string, ...any), title, what string, stat func(sc, fw string) (float64, bool), hasSubject bool) {
	p("## %s\n\n| scenario |", title)
	for _, fw := range res.frameworks {
		p(" %s |", fw)
	}
	if hasSubject {
		for _, base := range baselines {
			p(" %s/%s |", subject, base)
		}
	}
	p("\n|---|")
	for range res.frameworks {
		p("---:|")
	}
	if hasSubject {
		for range baselines {
			p("---:|")
		}
	}
	p("\n")
	for _, sc := range res.scenarios {
		p("| %s |", sc)
		for _, fw := range res.frameworks {
			m, ok := stat(sc, fw)
			p(" %s |", orDash(ok, formatNs(m)))
		}
		if hasSubject {
			for _, base := range baselines {
				p(" %s |", ratio(stat, sc, base))
			}
		}
		p("\n")
	}
	if hasSubject {
		p("\n%s/X is %s's %s ns/op divided by X's: below 1.00 means %s is faster.\n\n", subject, subject, what, subject)
	}
}

// ratio is subject's stat over base's for the scenario, or a dash.
func ratio(stat func(sc, fw string) (float64, bool), scenario, base string) string {
	s, ok1 := stat(scenario, subject)
	b, ok2 := stat(scenario, base)
	if !ok1 || !ok2 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", s/b)
}

func formatNs(v float64) string {
	switch {
	case v >= 100:
		return formatInt(v)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// formatInt rounds v and groups thousands with commas.
func formatInt(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func orDash(ok bool, s string) string {
	if !ok {
		return "–"
	}
	return s
}

// escape keeps a value from breaking a markdown table row.
func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
