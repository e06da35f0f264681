// Package results reads and summarizes the benchmark result files under
// bench/results/ and renders their tables: the real-HTTP runs of run-http.sh
// (httpreport.go, for cmd/httptable and cmd/report) and medians (median.go).
package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/httpserve"
	"github.com/plinth-go/plinth/bench/internal/suite"
)

// HTTPRun is one measured run of run-http.sh: one server process, one
// framework and scenario, one load generator run (cmd/loadgen -json).
type HTTPRun struct {
	Framework string   `json:"framework"`
	Scenario  string   `json:"scenario"`
	Round     int      `json:"round"`
	RPS       float64  `json:"rps"`
	P50       float64  `json:"p50_us"`
	P95       float64  `json:"p95_us"`
	P99       float64  `json:"p99_us"`
	P999      float64  `json:"p99_9_us"`
	Errors    uint64   `json:"errors"`
	Non2xx    uint64   `json:"non_2xx"`
	CPU       *float64 `json:"server_cpu_pct,omitempty"`
	RSS       *float64 `json:"server_rss_mib,omitempty"`
}

// HTTPRow is the median over the runs of one framework on one scenario.
type HTTPRow struct {
	Scenario  string  `json:"scenario"`
	Framework string  `json:"framework"`
	Runs      int     `json:"runs"`
	RPS       float64 `json:"rps"`
	RPSAll    []int64 `json:"rps_runs"`
	// VsStd and VsStdLimits are RPS over std's and std-limits' median in the
	// same scenario (for middleware-fused and default-stack, which run
	// without them by default, in BaselineScenario's); 0 when not measured.
	VsStd       float64 `json:"vs_std,omitempty"`
	VsStdLimits float64 `json:"vs_std_limits,omitempty"`
	P50         float64 `json:"p50_us"`
	P95         float64 `json:"p95_us"`
	P99         float64 `json:"p99_us"`
	P999        float64 `json:"p99_9_us"`
	CPU         float64 `json:"server_cpu_pct"`
	// CPUPerReq is the server's CPU time per request in microseconds
	// (CPU over req/s, per run): less sensitive than req/s to a client or
	// a neighbour taking the server's core away.
	CPUPerReq float64 `json:"server_cpu_us_per_req"`
	RSS       float64 `json:"server_rss_mib"`
	Errors    uint64  `json:"errors"`
	Non2xx    uint64  `json:"non_2xx"`
}

// HTTPReport is the JSON file run-http.sh writes: how the runs were made,
// every run, and the medians.
type HTTPReport struct {
	Meta [][2]string `json:"meta"` // key, value, in order
	Runs []HTTPRun   `json:"runs"`
	Rows []HTTPRow   `json:"rows"`
}

// MetaValue returns the value of key in r.Meta, or "".
func (r *HTTPReport) MetaValue(key string) string {
	for _, kv := range r.Meta {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// BaselineScenario is the scenario whose std and std-limits runs give the
// ratios of sc when sc has none of its own: middleware-fused's stack is
// middleware's for net/http, and default-stack is minimal.
func BaselineScenario(sc string) string {
	switch sc {
	case suite.MiddlewareFused:
		return suite.Middleware
	case suite.DefaultStack:
		return suite.Minimal
	}
	return sc
}

// ReadLoadgenRuns reads cmd/loadgen -json lines whose tags name the
// framework, scenario and round.
func ReadLoadgenRuns(r io.Reader) ([]HTTPRun, error) {
	var runs []HTTPRun
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v struct {
			Tags    map[string]string `json:"tags"`
			RPS     float64           `json:"rps"`
			Latency struct {
				P50  float64 `json:"p50"`
				P95  float64 `json:"p95"`
				P99  float64 `json:"p99"`
				P999 float64 `json:"p99_9"`
			} `json:"latency_us"`
			Errors uint64   `json:"errors"`
			Non2xx uint64   `json:"non_2xx"`
			CPU    *float64 `json:"server_cpu_pct"`
			RSS    *float64 `json:"server_rss_mib"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		round, _ := strconv.Atoi(v.Tags["round"])
		if v.Tags["framework"] == "" || v.Tags["scenario"] == "" {
			return nil, fmt.Errorf("line %d: no framework or scenario tag", n)
		}
		runs = append(runs, HTTPRun{
			Framework: v.Tags["framework"], Scenario: v.Tags["scenario"], Round: round,
			RPS: v.RPS, P50: v.Latency.P50, P95: v.Latency.P95, P99: v.Latency.P99, P999: v.Latency.P999,
			Errors: v.Errors, Non2xx: v.Non2xx, CPU: v.CPU, RSS: v.RSS,
		})
	}
	return runs, sc.Err()
}

// Summarize computes the rows: per scenario and framework, the median of
// each figure over the runs (errors are summed), and the ratios.
func Summarize(runs []HTTPRun) []HTTPRow {
	type key struct{ sc, fw string }
	groups := map[key][]HTTPRun{}
	for _, r := range runs {
		k := key{r.Scenario, r.Framework}
		groups[k] = append(groups[k], r)
	}
	var rows []HTTPRow
	for k, rs := range groups {
		row := HTTPRow{Scenario: k.sc, Framework: k.fw, Runs: len(rs)}
		pick := func(f func(HTTPRun) float64) float64 {
			v := make([]float64, 0, len(rs))
			for _, r := range rs {
				v = append(v, f(r))
			}
			return Median(v)
		}
		row.RPS = pick(func(r HTTPRun) float64 { return r.RPS })
		row.P50 = pick(func(r HTTPRun) float64 { return r.P50 })
		row.P95 = pick(func(r HTTPRun) float64 { return r.P95 })
		row.P99 = pick(func(r HTTPRun) float64 { return r.P99 })
		row.P999 = pick(func(r HTTPRun) float64 { return r.P999 })
		row.CPU = pick(func(r HTTPRun) float64 { return deref(r.CPU) })
		row.CPUPerReq = pick(func(r HTTPRun) float64 {
			if r.RPS == 0 {
				return 0
			}
			return deref(r.CPU) / 100 / r.RPS * 1e6
		})
		row.RSS = pick(func(r HTTPRun) float64 { return deref(r.RSS) })
		for _, r := range rs {
			row.RPSAll = append(row.RPSAll, int64(math.Round(r.RPS)))
			row.Errors += r.Errors
			row.Non2xx += r.Non2xx
		}
		rows = append(rows, row)
	}
	rpsOf := func(sc, fw string) float64 {
		for _, r := range rows {
			if r.Scenario == sc && r.Framework == fw {
				return r.RPS
			}
		}
		return 0
	}
	for i := range rows {
		r := &rows[i]
		for _, base := range []struct {
			fw  string
			dst *float64
		}{{"std", &r.VsStd}, {"std-limits", &r.VsStdLimits}} {
			b := rpsOf(r.Scenario, base.fw)
			if b == 0 {
				b = rpsOf(BaselineScenario(r.Scenario), base.fw)
			}
			if b > 0 {
				*base.dst = r.RPS / b
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Scenario != b.Scenario {
			return orderOf(suite.ScenarioNames, a.Scenario) < orderOf(suite.ScenarioNames, b.Scenario)
		}
		return orderOf(httpserve.Frameworks, a.Framework) < orderOf(httpserve.Frameworks, b.Framework)
	})
	return rows
}

func orderOf(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// ReadHTTPReport reads a JSON report written by cmd/httptable.
func ReadHTTPReport(file string) (*HTTPReport, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rep HTTPReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &rep, nil
}

// WriteHTTPTable writes the report's rows as a markdown table: req/s with
// the ratios to net/http, latency percentiles, server CPU and peak RSS.
// latency adds p95 and p99.9 (the single-connection mode).
func WriteHTTPTable(w io.Writer, rep *HTTPReport, latency bool) {
	if latency {
		fmt.Fprintln(w, "| scenario | framework | req/s | vs std | vs std-limits | p50 µs | p95 µs | p99 µs | p99.9 µs | server CPU % | CPU µs/req | peak RSS MiB | errors |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	} else {
		fmt.Fprintln(w, "| scenario | framework | req/s | vs std | vs std-limits | p50 µs | p99 µs | server CPU % | CPU µs/req | peak RSS MiB | errors | req/s per run |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	}
	for _, r := range rep.Rows {
		errs := fmt.Sprint(r.Errors)
		if r.Non2xx > 0 {
			errs += fmt.Sprintf(" (+%d non-2xx)", r.Non2xx)
		}
		runs := make([]string, len(r.RPSAll))
		for i, v := range r.RPSAll {
			runs[i] = strconv.FormatInt(v, 10)
		}
		if latency {
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %s |\n",
				r.Scenario, r.Framework, int64(math.Round(r.RPS)), ratio(r.VsStd), ratio(r.VsStdLimits), r.P50, r.P95, r.P99, r.P999, r.CPU, r.CPUPerReq, r.RSS, errs)
		} else {
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.0f | %.0f | %.0f | %.1f | %.1f | %s | %s |\n",
				r.Scenario, r.Framework, int64(math.Round(r.RPS)), ratio(r.VsStd), ratio(r.VsStdLimits), r.P50, r.P99, r.CPU, r.CPUPerReq, r.RSS, errs, strings.Join(runs, " "))
		}
	}
}

func ratio(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}
