// Command tfb-report turns the raw wrk figures that run.sh and
// run-pool-modes.sh collect into a Markdown table and a JSON file. Its input
// is tab-separated, one wrk run a line:
//
//	test  level  column  run  req/s  p99-ms  errors  [server-CPU-µs-per-request]
//
// Each cell of the table is the median req/s of a (test, level, column)'s
// runs; each ratio column divides by the -base column's median. When the
// runs carry the server's CPU time per request, a second table gives its
// median and the base's CPU per request divided by the column's: on a
// shared machine whose other tenants take the CPU away at random, req/s
// moves by tens of percent from run to run, while the CPU a server spends
// on a request hardly moves, so that ratio says which framework does less
// work per request.
//
//	go run ./cmd/tfb-report -in raw.tsv -columns plinth,go-std,fiber,gin -base go-std \
//	    -title "TechEmpower benchmark" -notes notes.md -md out.md -json out.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// row is one wrk run.
type row struct {
	test, level, column string
	rps, p99            float64
	errors              int
	cpu                 float64 // server CPU µs per request; 0 when not measured
}

// cell is the runs of one (test, level, column).
type cell struct {
	Test      string    `json:"test"`
	Level     string    `json:"level"`
	Column    string    `json:"implementation"`
	Runs      []float64 `json:"runs_rps"`
	MedianRPS float64   `json:"median_rps"`
	MedianP99 float64   `json:"median_p99_ms"`
	Errors    int       `json:"errors"`
	RatioBase float64   `json:"ratio_to_base,omitempty"`
	CPU       []float64 `json:"runs_cpu_us_per_request,omitempty"`
	MedianCPU float64   `json:"median_cpu_us_per_request,omitempty"`
	CPURatio  float64   `json:"cpu_base_over_column,omitempty"`
	p99s      []float64 // per run
}

func main() {
	in := flag.String("in", "", "raw tab-separated figures")
	columns := flag.String("columns", "", "comma-separated column order (default: order of appearance)")
	base := flag.String("base", "", "column the ratios divide by")
	title := flag.String("title", "TechEmpower benchmark", "the Markdown title")
	notes := flag.String("notes", "", "a Markdown file printed under the title (command, machine, levels)")
	mdOut := flag.String("md", "", "Markdown output file")
	jsonOut := flag.String("json", "", "JSON output file (optional)")
	flag.Parse()
	if err := run(*in, *columns, *base, *title, *notes, *mdOut, *jsonOut); err != nil {
		fmt.Fprintln(os.Stderr, "tfb-report:", err)
		os.Exit(1)
	}
}

func run(in, columns, base, title, notes, mdOut, jsonOut string) error {
	rows, err := readRows(in)
	if err != nil {
		return err
	}
	cells, keys, cols := group(rows)
	if columns != "" {
		cols = strings.Split(columns, ",")
	}
	for _, c := range cells {
		c.MedianRPS = median(c.Runs)
		c.MedianP99 = median(c.p99s)
		c.MedianCPU = median(c.CPU)
	}
	if base != "" {
		for _, c := range cells {
			if b := cells[key{c.Test, c.Level, base}]; b != nil && b.MedianRPS > 0 {
				c.RatioBase = c.MedianRPS / b.MedianRPS
			}
			if b := cells[key{c.Test, c.Level, base}]; b != nil && c.MedianCPU > 0 {
				c.CPURatio = b.MedianCPU / c.MedianCPU
			}
		}
	}
	var note string
	if notes != "" {
		b, err := os.ReadFile(notes)
		if err != nil {
			return err
		}
		note = strings.TrimSpace(string(b))
	}
	md := markdown(title, note, cells, keys, cols, base)
	if err := os.WriteFile(mdOut, []byte(md), 0o644); err != nil {
		return err
	}
	if jsonOut != "" {
		list := make([]*cell, 0, len(cells))
		for _, k := range keys {
			for _, col := range cols {
				if c := cells[key{k.test, k.level, col}]; c != nil {
					list = append(list, c)
				}
			}
		}
		doc := map[string]any{"title": title, "notes": note, "base": base, "results": list}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// key names a cell.
type key struct{ test, level, column string }

// rowKey names a table row.
type rowKey struct{ test, level string }

// readRows parses the raw file.
func readRows(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 7 && len(p) != 8 {
			return nil, fmt.Errorf("%s:%d: want 7 or 8 tab-separated fields, got %d", path, n, len(p))
		}
		var cpu float64
		if len(p) == 8 {
			v, err := strconv.ParseFloat(p[7], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad CPU figure in %q", path, n, line)
			}
			cpu = v
		}
		rps, err1 := strconv.ParseFloat(p[4], 64)
		p99, err2 := strconv.ParseFloat(p[5], 64)
		errs, err3 := strconv.Atoi(p[6])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%s:%d: bad number in %q", path, n, line)
		}
		rows = append(rows, row{p[0], p[1], p[2], rps, p99, errs, cpu})
	}
	return rows, sc.Err()
}

// group gathers the runs by cell, and returns the table rows and columns in
// order of first appearance.
func group(rows []row) (map[key]*cell, []rowKey, []string) {
	cells := map[key]*cell{}
	var keys []rowKey
	var cols []string
	for _, r := range rows {
		k := key{r.test, r.level, r.column}
		c := cells[k]
		if c == nil {
			c = &cell{Test: r.test, Level: r.level, Column: r.column}
			cells[k] = c
		}
		c.Runs = append(c.Runs, r.rps)
		c.p99s = append(c.p99s, r.p99)
		c.Errors += r.errors
		if r.cpu > 0 {
			c.CPU = append(c.CPU, r.cpu)
		}
		if rk := (rowKey{r.test, r.level}); !slices.Contains(keys, rk) {
			keys = append(keys, rk)
		}
		if !slices.Contains(cols, r.column) {
			cols = append(cols, r.column)
		}
	}
	return cells, keys, cols
}

// median returns the median of xs (the mean of the middle two for an even
// count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// markdown renders the report.
func markdown(title, note string, cells map[key]*cell, keys []rowKey, cols []string, base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString("Median req/s of the runs (p99 latency in parentheses)")
	if base != "" {
		fmt.Fprintf(&b, ", then each column's ratio to %s", base)
	}
	b.WriteString(". A cell marked `!` had socket errors or non-2xx answers in some run.\n\n")
	b.WriteString("| test | level |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c)
	}
	ratioCols := []string{}
	if base != "" {
		for _, c := range cols {
			if c != base {
				ratioCols = append(ratioCols, c)
				fmt.Fprintf(&b, " %s / %s |", c, base)
			}
		}
	}
	b.WriteString("\n|---|---|")
	for range len(cols) + len(ratioCols) {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %s |", k.test, k.level)
		for _, col := range cols {
			c := cells[key{k.test, k.level, col}]
			if c == nil {
				b.WriteString(" |")
				continue
			}
			mark := ""
			if c.Errors > 0 {
				mark = " !"
			}
			fmt.Fprintf(&b, " %s (%s ms)%s |", thousands(c.MedianRPS), strconv.FormatFloat(c.MedianP99, 'f', 1, 64), mark)
		}
		for _, col := range ratioCols {
			c := cells[key{k.test, k.level, col}]
			if c == nil || c.RatioBase == 0 {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(&b, " %.2f |", c.RatioBase)
		}
		b.WriteString("\n")
	}
	cpuTable(&b, cells, keys, cols, base)
	return b.String()
}

// cpuTable renders the server CPU per request, when the runs measured it.
func cpuTable(b *strings.Builder, cells map[key]*cell, keys []rowKey, cols []string, base string) {
	measured := false
	for _, c := range cells {
		measured = measured || c.MedianCPU > 0
	}
	if !measured {
		return
	}
	b.WriteString("\nServer CPU per request, µs (median of the runs: user and system time of the server process over the run, " +
		"divided by the requests it answered)")
	if base != "" {
		fmt.Fprintf(b, ", then %s's CPU per request divided by each column's (above 1: less work per request than %s)", base, base)
	}
	b.WriteString(".\n\n| test | level |")
	var ratioCols []string
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", c)
	}
	if base != "" {
		for _, c := range cols {
			if c != base {
				ratioCols = append(ratioCols, c)
				fmt.Fprintf(b, " %s: %s / it |", c, base)
			}
		}
	}
	b.WriteString("\n|---|---|")
	for range len(cols) + len(ratioCols) {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %s |", k.test, k.level)
		for _, col := range cols {
			if c := cells[key{k.test, k.level, col}]; c != nil && c.MedianCPU > 0 {
				fmt.Fprintf(b, " %.1f |", c.MedianCPU)
			} else {
				b.WriteString(" |")
			}
		}
		for _, col := range ratioCols {
			if c := cells[key{k.test, k.level, col}]; c != nil && c.CPURatio > 0 {
				fmt.Fprintf(b, " %.2f |", c.CPURatio)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
}

// thousands formats x rounded, with commas: 12,345.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
