// Command loadgen is a closed-loop HTTP/1.1 load generator: -c keep-alive
// connections, each sending a request (or -pipeline requests at once) and
// waiting for the answer before the next, for -d after a -warmup whose
// requests are not counted. It speaks HTTP over raw TCP with a minimal
// response parser (Content-Length and chunked bodies), allocating nothing
// per request, so that the generator costs as little CPU as possible next to
// the server it measures. On Linux each -workers thread runs its share of
// the connections from one epoll loop over raw non-blocking sockets (one
// read per response, one write per request, as wrk does); -engine go uses a
// goroutine per connection instead (portable, dearer per request).
//
//	loadgen -c 64 -d 5s http://127.0.0.1:8080/
//	loadgen -c 1 -d 5s -json http://127.0.0.1:8080/   # single-connection latency
//	loadgen -c 64 -d 5s -wrk http://127.0.0.1:8080/   # then wrk with the same parameters, as a cross-check
//
// What the latency means: in a closed loop a connection sends its next
// request only when the previous answer is in, so the percentiles are the
// service time under this concurrency (queueing inside the server
// included), not the latency users would see under open-loop arrivals,
// where requests keep coming while the server is slow (coordinated
// omission). With -c 1 there is no queueing: the time is the work of one
// request plus the loopback round trip.
//
// With -server-pid, the server's CPU time (user+system, from
// /proc/PID/stat) over the measured window and its peak RSS (VmHWM from
// /proc/PID/status) are reported too. The exit status is 1 when no request
// succeeded.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

type options struct {
	target   *url.URL
	method   string
	conns    int
	workers  int
	duration time.Duration
	warmup   time.Duration
	pipeline int
	timeout  time.Duration
	headers  []string
	pid      int
	tags     map[string]string
	json     bool
	wrk      bool
	tool     string
	engine   string
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var o options
	var headers, tags listFlag
	flag.IntVar(&o.conns, "c", 64, "connections, each a closed loop")
	flag.IntVar(&o.workers, "workers", runtime.NumCPU(), "OS threads running the connections (GOMAXPROCS)")
	flag.DurationVar(&o.duration, "d", 5*time.Second, "measured duration")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "warm-up before measuring (requests not counted)")
	flag.IntVar(&o.pipeline, "pipeline", 1, "requests written at once per connection before reading the answers")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Second, "per-request read timeout; a timed-out connection is counted as an error and reopened")
	flag.StringVar(&o.method, "method", "GET", "request method")
	flag.Var(&headers, "H", "extra request header \"Name: value\" (repeatable)")
	flag.IntVar(&o.pid, "server-pid", 0, "PID of the server process: report its CPU% over the window and peak RSS")
	flag.Var(&tags, "tag", "key=value copied into the JSON output (repeatable)")
	flag.BoolVar(&o.json, "json", false, "print the result as one JSON object")
	flag.BoolVar(&o.wrk, "wrk", false, "then run wrk with the same parameters and print both (cross-check)")
	flag.StringVar(&o.engine, "engine", defaultEngine, "epoll (Linux: one event loop per worker thread, raw non-blocking sockets, the cheapest) or go (a goroutine per connection)")
	flag.StringVar(&o.tool, "tool", "loadgen", "who makes the load: loadgen, or wrk alone (same parameters and output, wrk's figures: p95 and p99.9 are 0, wrk reports p90)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: loadgen [flags] http://host:port/path\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	u, err := url.Parse(flag.Arg(0))
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fmt.Fprintf(os.Stderr, "loadgen: want an http:// URL, got %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if o.engine != "epoll" && o.engine != "go" || o.engine == "epoll" && defaultEngine != "epoll" {
		fmt.Fprintf(os.Stderr, "loadgen: -engine %q: want go%s\n", o.engine, map[bool]string{true: " or epoll"}[defaultEngine == "epoll"])
		os.Exit(2)
	}
	if o.tool != "loadgen" && o.tool != "wrk" {
		fmt.Fprintf(os.Stderr, "loadgen: -tool %q: want loadgen or wrk\n", o.tool)
		os.Exit(2)
	}
	if o.conns < 1 || o.pipeline < 1 || o.workers < 1 || o.duration <= 0 || o.warmup < 0 {
		fmt.Fprintln(os.Stderr, "loadgen: -c, -pipeline, -workers and -d must be positive, -warmup not negative")
		os.Exit(2)
	}
	o.target, o.headers = u, headers
	o.tags = map[string]string{}
	for _, t := range tags {
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "loadgen: -tag %q: want key=value\n", t)
			os.Exit(2)
		}
		o.tags[k] = v
	}
	runtime.GOMAXPROCS(o.workers)

	var res *Result
	if o.tool == "wrk" {
		res, err = runWrkOnly(o)
	} else {
		res, err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	if o.wrk {
		w, err := runWrk(o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen: wrk:", err)
		} else {
			res.Wrk = w
		}
	}
	if o.json {
		enc := json.NewEncoder(os.Stdout)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
	} else {
		res.print(os.Stdout)
	}
	if res.Requests == 0 {
		os.Exit(1)
	}
}

// Result is loadgen's report; its JSON form is what run-http.sh collects.
type Result struct {
	Tags        map[string]string `json:"tags,omitempty"`
	URL         string            `json:"url"`
	Connections int               `json:"connections"`
	Workers     int               `json:"workers"`
	Pipeline    int               `json:"pipeline"`
	WarmupSec   float64           `json:"warmup_s"`
	Seconds     float64           `json:"seconds"` // the measured window
	Requests    uint64            `json:"requests"`
	RPS         float64           `json:"rps"`
	Latency     Latency           `json:"latency_us"`
	Errors      uint64            `json:"errors"` // failed connects, reads, writes, timeouts, bad responses
	Non2xx      uint64            `json:"non_2xx"`
	Reconnects  uint64            `json:"reconnects"`
	Statuses    map[string]uint64 `json:"statuses"`
	FirstError  string            `json:"first_error,omitempty"`
	ServerCPU   *float64          `json:"server_cpu_pct,omitempty"` // % of one CPU, user+system, over the window
	ServerRSS   *float64          `json:"server_rss_mib,omitempty"` // peak resident set (VmHWM) at the end
	Wrk         *WrkResult        `json:"wrk,omitempty"`
	Meaning     string            `json:"latency_meaning"`
}

// Latency holds percentiles in microseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

const meaning = "closed loop: time from writing a request to reading its whole response, each connection waiting for an answer before its next request; service time under this concurrency, not user latency under open-loop arrivals"

// connStats is one connection's tally; merged when the run ends.
type connStats struct {
	hist       histogram
	requests   uint64
	errors     uint64
	non2xx     uint64
	reconnects uint64
	statuses   [600]uint64
	firstErr   error
}

func run(o options) (*Result, error) {
	addr := o.target.Host
	if o.target.Port() == "" {
		addr = net.JoinHostPort(o.target.Hostname(), "80")
	}
	req := buildRequest(o)
	// Fail fast when nothing listens.
	if c, err := net.DialTimeout("tcp", addr, o.timeout); err != nil {
		return nil, err
	} else {
		c.Close()
	}

	start := time.Now()
	measureFrom := start.Add(o.warmup)
	end := measureFrom.Add(o.duration)
	stats := make([]*connStats, o.conns)
	var wg sync.WaitGroup
	var cpu0 procSample
	var cpuErr error
	sampled := make(chan struct{})
	if o.pid > 0 {
		go func() {
			time.Sleep(time.Until(measureFrom))
			cpu0, cpuErr = sampleProc(o.pid)
			close(sampled)
		}()
	} else {
		close(sampled)
	}
	for i := range stats {
		stats[i] = new(connStats)
	}
	rc := &runCtx{addr: addr, req: req, o: o, measureFrom: measureFrom, end: end}
	engine := runGoroutines
	if o.engine == "epoll" {
		engine = runEpoll
	}
	wg.Go(func() { engine(rc, stats) })
	// Sample the server right at the end of the window, before the
	// connections close (closing makes the server work too).
	var cpu1 procSample
	if o.pid > 0 {
		time.Sleep(time.Until(end))
		cpu1, _ = sampleProc(o.pid)
	}
	wg.Wait()
	<-sampled

	total := &connStats{}
	for _, st := range stats {
		total.hist.merge(&st.hist)
		total.requests += st.requests
		total.errors += st.errors
		total.non2xx += st.non2xx
		total.reconnects += st.reconnects
		for i, n := range st.statuses {
			total.statuses[i] += n
		}
		if total.firstErr == nil {
			total.firstErr = st.firstErr
		}
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	res := &Result{
		Tags: o.tags, URL: o.target.String(), Connections: o.conns, Workers: o.workers, Pipeline: o.pipeline,
		WarmupSec: o.warmup.Seconds(), Seconds: o.duration.Seconds(),
		Requests: total.requests, RPS: float64(total.requests) / o.duration.Seconds(),
		Latency: Latency{
			P50: us(total.hist.quantile(0.50)), P95: us(total.hist.quantile(0.95)),
			P99: us(total.hist.quantile(0.99)), P999: us(total.hist.quantile(0.999)),
			Max: us(time.Duration(total.hist.max)), Mean: us(total.hist.mean()),
		},
		Errors: total.errors, Non2xx: total.non2xx, Reconnects: total.reconnects,
		Statuses: map[string]uint64{}, Meaning: meaning,
	}
	for code, n := range total.statuses {
		if n > 0 {
			res.Statuses[fmt.Sprint(code)] = n
		}
	}
	if total.firstErr != nil {
		res.FirstError = total.firstErr.Error()
	}
	if o.pid > 0 {
		if cpuErr != nil {
			return nil, fmt.Errorf("server-pid %d: %v", o.pid, cpuErr)
		}
		if cpu1.at.After(cpu0.at) {
			pct := 100 * (cpu1.cpu - cpu0.cpu).Seconds() / cpu1.at.Sub(cpu0.at).Seconds()
			rss := float64(cpu1.hwmKiB) / 1024
			res.ServerCPU, res.ServerRSS = &pct, &rss
		}
	}
	return res, nil
}

// runWrkOnly makes the load with wrk and reports its figures in Result's
// shape (p90 stands in no column: wrk has no p95 or p99.9).
func runWrkOnly(o options) (*Result, error) {
	if o.pipeline != 1 {
		return nil, fmt.Errorf("-tool wrk does not pipeline")
	}
	w, err := runWrk(o)
	if err != nil {
		return nil, fmt.Errorf("wrk: %v", err)
	}
	return &Result{
		Tags: o.tags, URL: o.target.String(), Connections: o.conns, Workers: min(o.workers, o.conns), Pipeline: 1,
		WarmupSec: o.warmup.Seconds(), Seconds: o.duration.Seconds(),
		Requests: uint64(w.RPS * o.duration.Seconds()), RPS: w.RPS,
		Latency: Latency{P50: w.P50, P99: w.P99},
		Errors:  uint64(w.Errors), Statuses: map[string]uint64{}, ServerCPU: w.ServerCPU, ServerRSS: w.ServerRSS,
		Meaning: "wrk: " + meaning, Wrk: w,
	}, nil
}

func buildRequest(o options) []byte {
	path := o.target.RequestURI()
	var b strings.Builder
	for range o.pipeline {
		fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: plinth-loadgen\r\n", o.method, path, o.target.Host)
		for _, h := range o.headers {
			b.WriteString(h + "\r\n")
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

func (r *Result) print(w io.Writer) {
	fmt.Fprintf(w, "loadgen: %s %s, %d connections, %d workers, pipeline %d, %.1fs after %.1fs warm-up\n",
		"GET", r.URL, r.Connections, r.Workers, r.Pipeline, r.Seconds, r.WarmupSec)
	fmt.Fprintf(w, "  requests    %d, %.0f req/s\n", r.Requests, r.RPS)
	fmt.Fprintf(w, "  latency     p50 %s  p95 %s  p99 %s  p99.9 %s  max %s  mean %s\n",
		fmtUS(r.Latency.P50), fmtUS(r.Latency.P95), fmtUS(r.Latency.P99), fmtUS(r.Latency.P999), fmtUS(r.Latency.Max), fmtUS(r.Latency.Mean))
	fmt.Fprintf(w, "              (%s)\n", meaning)
	codes := make([]string, 0, len(r.Statuses))
	for c := range r.Statuses {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var sts []string
	for _, c := range codes {
		sts = append(sts, fmt.Sprintf("%s: %d", c, r.Statuses[c]))
	}
	fmt.Fprintf(w, "  statuses    %s; non-2xx %d; errors %d; reconnects %d\n", strings.Join(sts, ", "), r.Non2xx, r.Errors, r.Reconnects)
	if r.FirstError != "" {
		fmt.Fprintf(w, "  first error %s\n", r.FirstError)
	}
	if r.ServerCPU != nil {
		fmt.Fprintf(w, "  server      CPU %.0f%% of one core over the window, peak RSS %.1f MiB\n", *r.ServerCPU, *r.ServerRSS)
	}
	if r.Wrk != nil {
		fmt.Fprintf(w, "wrk (same parameters):\n  requests    %.0f req/s\n  latency     p50 %s  p90 %s  p99 %s (wrk: %s)\n",
			r.Wrk.RPS, fmtUS(r.Wrk.P50), fmtUS(r.Wrk.P90), fmtUS(r.Wrk.P99), r.Wrk.Command)
		if r.RPS > 0 {
			fmt.Fprintf(w, "  wrk/loadgen req/s: %.3f\n", r.Wrk.RPS/r.RPS)
		}
	}
}

func fmtUS(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2fs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.2fms", us/1e3)
	}
	return fmt.Sprintf("%.0fµs", us)
}
