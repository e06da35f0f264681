package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is a rehearsal's results: the JSON file's content, from which
// the Markdown is rendered.
type Report struct {
	Title   string       `json:"title"`
	Date    string       `json:"date"`
	Command string       `json:"command"`
	Meta    Meta         `json:"meta"`
	Events  []EventStats `json:"events"`
	Totals  EventStats   `json:"totals"`
	// Samples are the first failed requests (20 at most), for diagnosis;
	// ExpectedSamples the first expected answers (503 + Retry-After during
	// the PostgreSQL restart, 5 at most).
	Samples         []Sample     `json:"failure_samples"`
	ExpectedSamples []Sample     `json:"expected_samples,omitempty"`
	Routes          []RouteStats `json:"routes"`
	// StreamSamples are the first stream ends that missed their target.
	StreamSamples []StreamSample `json:"stream_samples,omitempty"`
	Checks        []string       `json:"checks"` // what was checked before the load (X-Forwarded-For, ...)
	Cache         map[string]int `json:"quote_x_cache"`
	SignIns       int            `json:"sign_ins_after_sign_out"`
	// JobsRanUnacknowledged counts the job_effects rows of this run whose
	// POST /jobs got no 202 (it failed or timed out, yet the job ran).
	JobsRanUnacknowledged int    `json:"jobs_ran_without_202"`
	JobsWait              string `json:"jobs_wait"`
	Config                Config `json:"config"`
}

// Meta is the run's machine and load.
type Meta struct {
	LB        string  `json:"lb"`
	LBVersion string  `json:"lb_version"`
	Smoke     bool    `json:"smoke"`
	Rate      float64 `json:"rate"`
	Clients   int     `json:"clients"`
	SignedIn  int     `json:"signed_in_clients"`
	Streams   int     `json:"streams_each"` // SSE streams, and as many WebSockets
	Instances int     `json:"instances"`
	Baseline  string  `json:"baseline"`
	Settle    string  `json:"settle"`
	LoadS     float64 `json:"load_s"`
	Nproc     int     `json:"nproc"`
	Go        string  `json:"go"`
	Commit    string  `json:"commit"`
	Kernel    string  `json:"kernel"`
	CPU       string  `json:"cpu"`
	Postgres  string  `json:"postgres"`
	Redis     string  `json:"redis"`
	// HarnessCPUS is the CPU time the harness itself (load, streams,
	// monitors) used, in seconds: on 2 cores it shares the machine with
	// everything it measures.
	HarnessCPUS float64 `json:"harness_cpu_s"`
}

// Config is what the instances and the load balancer ran with.
type Config struct {
	InstanceEnv []string `json:"instance_env"` // secrets elided
	LBConfig    string   `json:"lb_config"`
}

// Sample is a failed request.
type Sample struct {
	T       float64 `json:"t_s"` // scheduled, seconds since the load started
	Event   int     `json:"event"`
	Route   string  `json:"route"`
	Path    string  `json:"path"`
	Backend string  `json:"backend,omitempty"`
	Cause   string  `json:"cause"`
	Status  int     `json:"status,omitempty"`
	LatMs   float64 `json:"latency_ms"`
	Err     string  `json:"error"`
}

// StreamSample is a stream end that missed its event's target.
type StreamSample struct {
	T       float64 `json:"t_s"`
	Event   int     `json:"event"`
	Kind    string  `json:"kind"`
	Backend string  `json:"backend,omitempty"`
	What    string  `json:"what"`
}

// samples returns the first max failed requests, by scheduled time: the
// expected answers (wantExpected) or the others.
func samples(d *runData, maxN int, wantExpected bool) []Sample {
	var out []Sample
	rs := slices.Clone(d.results)
	slices.SortFunc(rs, func(a, b result) int { return a.Sched.Compare(b.Sched) })
	for i := range rs {
		r := &rs[i]
		if !r.failed() || len(out) >= maxN || expected(d.windows[windowOf(d.windows, r.end())], r) != wantExpected {
			continue
		}
		out = append(out, Sample{T: secs(r.Sched.Sub(d.t0)), Event: windowOf(d.windows, r.end()), Route: r.Route, Path: r.Path,
			Backend: r.Backend, Cause: r.Cause, Status: r.Status, LatMs: ms(r.Lat), Err: r.Err})
	}
	return out
}

// streamSamples returns the first max stream ends other than a clean one
// (SSE with its shutdown event, WebSocket 1001 or 1012), connects refused
// included.
func streamSamples(d *runData, maxN int) []StreamSample {
	var out []StreamSample
	for _, c := range d.closes {
		if len(out) >= maxN {
			break
		}
		clean := !c.Connect && ((c.Kind == "sse" && c.Shutdown) || (c.Kind == "ws" && (c.Code == 1001 || c.Code == 1012)))
		if clean {
			continue
		}
		what := fmt.Sprintf("%s (open %.1f s)", c.Err, c.Lived.Seconds())
		if c.Connect {
			what = "connect failed: " + c.Err
		}
		out = append(out, StreamSample{T: secs(c.At.Sub(d.t0)), Event: windowOf(d.windows, c.At), Kind: c.Kind, Backend: c.Backend, What: what})
	}
	return out
}

// writeMarkdown renders the report.
func writeMarkdown(w io.Writer, rep *Report) {
	m := rep.Meta
	fmt.Fprintf(w, "# %s\n\n", rep.Title)
	fmt.Fprintf(w, "Command: `%s`\n\n", rep.Command)
	fmt.Fprintf(w, "Machine: %d cores (%s), %s, %s, commit %s; %s; PostgreSQL %s; Redis %s.\n\n",
		m.Nproc, m.CPU, m.Kernel, m.Go, m.Commit, m.LBVersion, m.Postgres, m.Redis)
	fmt.Fprintf(w, "The harness itself (load, streams, monitors) used %.1f s of CPU.\n\n", m.HarnessCPUS)
	fmt.Fprintf(w, "Load: %d clients (%d signed in, each its own session, cookies, connections and X-Forwarded-For), "+
		"open loop at %g requests/s (latency from the scheduled time; 10 s timeout), %d SSE streams and %d WebSockets "+
		"through the load balancer; %d instances of examples/web behind %s; baseline %s, then each event and %s to settle. "+
		"%.0f s of load in all.\n\n", m.Clients, m.SignedIn, m.Rate, m.Streams, m.Streams, m.Instances, m.LB, m.Baseline, m.Settle, m.LoadS)

	fmt.Fprintln(w, "## Requests")
	fmt.Fprintln(w)
	head := []string{"#", "event", "requests", "failed"}
	head = append(head, causeOrder...)
	head = append(head, "p50 ms", "p99 ms", "max ms", "start lag p99 ms", "recover s", "result")
	row := func(s EventStats) []string {
		r := []string{idx(s.Index), s.Name, itoa(s.Requests), itoa(s.Failed)}
		for _, c := range causeOrder {
			r = append(r, itoa(s.Causes[c]))
		}
		return append(r, f1(s.P50Ms), f1(s.P99Ms), f1(s.MaxMs), f1(s.LagP99Ms), f1(s.RecoverS), s.Result)
	}
	table(w, head, rows(rep, row), 2)
	fmt.Fprintln(w, "Failed requests by cause; latency is from each request's scheduled time, so a stall shows as latency. "+
		"Start lag is the load generator's own delay in starting a request (the harness shares the 2 cores). "+
		"Recover is the time from the event's start to the end of the last failed request in its window (0: none failed).")
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## Sessions, jobs, streams, memory")
	fmt.Fprintln(w)
	head2 := []string{"#", "event", "signed-out clients", "503 + Retry-After (expected)", "jobs enqueued", "lost", "run twice",
		"SSE closed: shutdown / without", "SSE connects failed", "WS closed by code", "WS connects failed",
		"down s", "in flight at kill, failed", "peak RSS MiB " + strings.Join(instNames(m.Instances), " / ")}
	row2 := func(s EventStats) []string {
		down, kill := "", ""
		if s.DownS > 0 {
			down = fmt.Sprintf("%.3f", s.DownS)
		}
		if s.Kind == "sigkill" || (s.Kind == "total" && s.InFlightFailed+s.LateFailed > 0) {
			kill = fmt.Sprintf("%d (%d after)", s.InFlightFailed, s.LateFailed)
		}
		var rss []string
		for _, n := range instNames(m.Instances) {
			rss = append(rss, f1(s.PeakRSSMiB[n]))
		}
		return []string{idx(s.Index), s.Name, itoa(s.SignedOut), itoa(s.Expected503), itoa(s.JobsEnqueued), itoa(s.JobsLost),
			itoa(s.JobsDuplicated), fmt.Sprintf("%d / %d", s.SSEWithShutdown, s.SSEWithout), itoa(s.SSEConnectFailed),
			codes(s.WSByCode), itoa(s.WSConnectFailed), down, kill, strings.Join(rss, " / ")}
	}
	table(w, head2, rows(rep, row2), 2)

	fmt.Fprintln(w, "## Targets")
	fmt.Fprintln(w)
	for _, s := range rep.Events {
		fmt.Fprintf(w, "- %d %s: **%s**%s\n", s.Index, s.Name, s.Result, because(s.Why))
	}
	fmt.Fprintf(w, "- overall: **%s**\n\n", rep.Totals.Result)
	fmt.Fprintln(w, "Targets: rolling upgrade, SIGTERM and load balancer reload: no failed request, every WebSocket closed "+
		"1001 or 1012 and every SSE stream ended by `event: shutdown`. SIGKILL: only requests in flight at the kill may fail. "+
		"Redis restart: no client signed out, no request failed before the session store timeout (5 s). PostgreSQL restart: "+
		"no failure on /, /hello, /api/version; other routes succeed (late) or answer 503 with Retry-After (counted apart, "+
		"as expected); the last failure within 5 s of the database's return. Every event: no job lost. Peak RSS per window is "+
		"the largest VmRSS sampled every 250 ms over every process that served as the instance; the total row is their VmHWM.")
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## What happened")
	fmt.Fprintln(w)
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "- %s\n", c)
	}
	fmt.Fprintf(w, "- quotes' X-Cache: %s; sign-ins after a sign-out: %d; jobs: %s; jobs that ran without a 202: %d\n",
		codes(rep.Cache), rep.SignIns, rep.JobsWait, rep.JobsRanUnacknowledged)
	for _, s := range rep.Events {
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- %d %s: %s\n", s.Index, s.Kind, n)
		}
		if s.Error != "" {
			fmt.Fprintf(w, "- %d %s: error: %s\n", s.Index, s.Kind, s.Error)
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "## By route, whole run")
	fmt.Fprintln(w)
	var routes [][]string
	for _, x := range rep.Routes {
		routes = append(routes, []string{x.Route, itoa(x.Requests), itoa(x.Failed), itoa(x.Expected503), f1(x.P50Ms), f1(x.P99Ms), f1(x.MaxMs)})
	}
	table(w, []string{"route", "requests", "failed", "503 + Retry-After (expected)", "p50 ms", "p99 ms", "max ms"}, routes, 1)
	for _, part := range []struct {
		title string
		list  []Sample
	}{{"First %d failed requests", rep.Samples}, {"First %d expected answers (503 + Retry-After during the PostgreSQL restart)", rep.ExpectedSamples}} {
		if len(part.list) == 0 {
			continue
		}
		fmt.Fprintf(w, "## "+part.title+"\n\n", len(part.list))
		var rs [][]string
		for _, x := range part.list {
			rs = append(rs, []string{fmt.Sprintf("%.3f", x.T), itoa(x.Event), x.Route, x.Path, orDash(x.Backend), x.Cause,
				itoa(x.Status), f1(x.LatMs), mdEscape(x.Err)})
		}
		table(w, []string{"t s", "event", "route", "path", "instance", "cause", "status", "latency ms", "error"}, rs, 9)
	}
	if len(rep.StreamSamples) > 0 {
		fmt.Fprintf(w, "## Stream ends other than a clean close (first %d)\n\n", len(rep.StreamSamples))
		var rs [][]string
		for _, x := range rep.StreamSamples {
			rs = append(rs, []string{fmt.Sprintf("%.3f", x.T), itoa(x.Event), x.Kind, orDash(x.Backend), mdEscape(x.What)})
		}
		table(w, []string{"t s", "event", "stream", "instance", "what"}, rs, 5)
	}

	fmt.Fprintln(w, "## Configuration")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each instance's environment (PLINTH_ADDR and PLINTH_PID_FILE per instance):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "```sh")
	for _, e := range rep.Config.InstanceEnv {
		fmt.Fprintln(w, e)
	}
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "The load balancer's configuration (from bench/scaleout/%s):\n\n", map[string]string{"haproxy": "haproxy.cfg.tmpl", "nginx": "nginx.conf.tmpl"}[m.LB])
	fmt.Fprintln(w, "```")
	fmt.Fprint(w, strings.TrimRight(rep.Config.LBConfig, "\n")+"\n")
	fmt.Fprintln(w, "```")
}

// rows renders every event's row and the totals'.
func rows(rep *Report, row func(EventStats) []string) [][]string {
	var rs [][]string
	for _, s := range rep.Events {
		rs = append(rs, row(s))
	}
	return append(rs, row(rep.Totals))
}

// table writes a Markdown table, its first left columns aligned left and
// the others (figures) right.
func table(w io.Writer, head []string, rs [][]string, left int) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
		if i >= left {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rs {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

// because formats the reasons of a FAIL.
func because(why []string) string {
	if len(why) == 0 {
		return ""
	}
	return ": " + strings.Join(why, "; ")
}

// codes formats counts by key: "1001: 3, 1006: 1", "–" when empty.
func codes(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		if m[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", orDash(k), m[k]))
		}
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// instNames is web1..webN.
func instNames(n int) []string {
	var s []string
	for i := 1; i <= n; i++ {
		s = append(s, fmt.Sprintf("web%d", i))
	}
	return s
}

func idx(i int) string {
	if i < 0 {
		return ""
	}
	return itoa(i)
}

func itoa(i int) string { return fmt.Sprint(i) }

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

// mdEscape keeps a value inside its table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// writeResults writes the JSON and the Markdown to dir as
// scaleout-<lb>-<date>.json and .md, and returns their paths.
func writeResults(dir string, rep *Report) ([]string, error) {
	base := filepath.Join(dir, fmt.Sprintf("scaleout-%s-%s", rep.Meta.LB, rep.Date))
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	var md strings.Builder
	writeMarkdown(&md, rep)
	if err := os.WriteFile(base+".md", []byte(md.String()), 0o644); err != nil {
		return nil, err
	}
	return []string{base + ".json", base + ".md"}, nil
}
