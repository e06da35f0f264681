package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests cover the pure parts: no service is started (the rehearsal
// itself is the by-hand command).

func TestPercentile(t *testing.T) {
	var l []time.Duration
	for i := 1; i <= 100; i++ {
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := percentile(l, p); got != want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", p, got, want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v", got)
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("percentile of one = %v", got)
	}
}

func TestClassifyErr(t *testing.T) {
	opErr := func(err error) error {
		return &url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{opErr(syscall.ECONNREFUSED), causeRefused},
		{opErr(syscall.ECONNRESET), causeReset},
		{&url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, causeReset},
		{fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), causeReset},
		{&url.Error{Op: "Get", URL: "http://x", Err: context.DeadlineExceeded}, causeTimeout},
		{errors.New("http: server closed idle connection"), causeReset},
		{errors.New("something else"), causeOther},
	} {
		if got := classifyErr(c.err); got != c.want {
			t.Errorf("classifyErr(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestClassifyStatus(t *testing.T) {
	for status, want := range map[int]string{502: cause502, 503: cause503, 504: cause504, 500: cause5xx, 403: cause4xx, 404: cause4xx, 200: causeWrong, 303: causeWrong} {
		if got := classifyStatus(status); got != want {
			t.Errorf("classifyStatus(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestParseStat(t *testing.T) {
	st, ok := parseStat("4242 (a (b) c) Z 17 4242 4242 0 -1 4194560")
	if !ok || st.ppid != 17 || st.state != 'Z' || st.comm != "a (b) c" {
		t.Errorf("parseStat = %+v, %v", st, ok)
	}
	if _, ok := parseStat("garbage"); ok {
		t.Error("parseStat accepted garbage")
	}
}

func TestParseStatusKB(t *testing.T) {
	status := "Name:\tweb\nVmHWM:\t  104204 kB\nVmRSS:\t   36112 kB\n"
	if rss, hwm := parseStatusKB(status, "VmRSS:"), parseStatusKB(status, "VmHWM:"); rss != 36112 || hwm != 104204 {
		t.Errorf("VmRSS %d, VmHWM %d", rss, hwm)
	}
}

func TestBackendName(t *testing.T) {
	servers := []lbServer{{"web1", "127.0.0.1:1001"}, {"web2", "127.0.0.1:1002"}}
	for header, want := range map[string]string{
		"web2":                           "web2", // haproxy: the server's name
		"127.0.0.1:1001":                 "web1", // nginx: $upstream_addr
		"127.0.0.1:1001, 127.0.0.1:1002": "web2", // nginx after a retry: the last answered
		"":                               "",
		"<NOSRV>":                        "<NOSRV>",
	} {
		if got := backendName(header, servers); got != want {
			t.Errorf("backendName(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestCSRFToken(t *testing.T) {
	for page, want := range map[string]string{
		`<form><input type="hidden" name="csrf_token" value="a&#43;b"></form>`:             "a+b",
		`<input value="xyz" type="hidden" name="csrf_token">`:                              "xyz",
		`<head><meta name="csrf-token" content="m1"></head><input name="email" value="e">`: "m1",
		`<p>no form</p>`: "",
	} {
		if got := csrfToken([]byte(page)); got != want {
			t.Errorf("csrfToken(%q) = %q, want %q", page, got, want)
		}
	}
}

func TestRenderLB(t *testing.T) {
	cfg := lbConfig{Dir: "/tmp/x", Port: 8000, Workers: 2, Servers: []lbServer{{"web1", "127.0.0.1:1001"}, {"web2", "127.0.0.1:1002"}}}
	h, err := renderLB("haproxy", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bind 127.0.0.1:8000", "server web1 127.0.0.1:1001 check", "server web2 127.0.0.1:1002 check",
		"option httpchk GET /readyz", "retry-on conn-failure empty-response response-timeout", "expose-fd listeners", "timeout tunnel 1h"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, h)
		}
	}
	n, err := renderLB("nginx", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listen 127.0.0.1:8000", "server 127.0.0.1:1001 max_fails=1 fail_timeout=2s", "keepalive 32",
		"proxy_next_upstream error timeout http_502;", "proxy_next_upstream error timeout http_502 http_503;",
		"pid /tmp/x/nginx.pid", "proxy_buffering off"} {
		if !strings.Contains(string(n), want) {
			t.Errorf("nginx.conf lacks %q:\n%s", want, n)
		}
	}
	for _, l := range strings.Split(string(n), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "proxy_next_upstream ") && strings.Contains(l, "non_idempotent") {
			t.Errorf("nginx retries non-idempotent requests: %s", l)
		}
	}
	if _, err := renderLB("traefik", cfg); err == nil {
		t.Error("renderLB accepted an unknown load balancer")
	}
}

func TestSelectEvents(t *testing.T) {
	evs, err := selectEvents("baseline, postgres")
	if err != nil || len(evs) != 2 || evs[1].kind != "postgres" {
		t.Errorf("selectEvents = %v, %v", evs, err)
	}
	if _, err := selectEvents("baseline,reboot"); err == nil {
		t.Error("selectEvents accepted an unknown event")
	}
}

// testRun is a run of three windows (baseline, SIGKILL, PostgreSQL
// restart) with a few requests, stream ends and jobs in each.
func testRun() *runData {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ws := []*window{
		{Index: 0, Kind: "baseline", Name: "baseline", Start: at(0), End: at(10)},
		{Index: 1, Kind: "sigkill", Name: "SIGKILL web3", Start: at(10), End: at(20), KillAt: at(10.5)},
		{Index: 2, Kind: "postgres", Name: "PostgreSQL restart", Start: at(20), End: at(30), DownFrom: at(20.1), DownTo: at(21.1)},
	}
	ok := func(s float64, route string, lat time.Duration) result {
		return result{Sched: at(s), Lat: lat, Route: route, Status: 200}
	}
	d := &runData{t0: t0, windows: ws,
		results: []result{
			ok(1, "GET /", 2*time.Millisecond), ok(2, "GET /hello", 4*time.Millisecond),
			ok(11, "GET /", 3*time.Millisecond),
			{Sched: at(10.4), Lat: 200 * time.Millisecond, Route: "POST /jobs", Path: "/jobs", Status: 502, Cause: cause502, Backend: "web3"},
			{Sched: at(12), Lat: time.Millisecond, Route: "GET /", Cause: causeRefused, Err: "connect: connection refused"},
			{Sched: at(20.5), Lat: 400 * time.Millisecond, Route: "GET /api/me", Status: 503, RetryAfter: true, Cause: cause503},
			{Sched: at(20.6), Lat: 10 * time.Millisecond, Route: "GET /hello", Status: 503, Cause: cause503},
			ok(25, "GET /api/me", 5*time.Millisecond),
		},
		closes: []streamClose{
			{At: at(10.6), Kind: "ws", Code: 1006},
			{At: at(10.6), Kind: "sse"},
			{At: at(20.2), Kind: "sse", Shutdown: true},
		},
		jobs:    []jobRecord{{"a", at(1)}, {"b", at(11)}, {"c", at(21)}},
		runs:    map[string]int{"a": 1, "b": 2},
		rss:     []rssSample{{at(1), "web1", 10240}, {at(11), "web1", 20480}},
		peakHWM: map[string]int{"web1": 30720},
	}
	return d
}

func TestAggregate(t *testing.T) {
	d := testRun()
	rows, tot := aggregate(d)
	base, kill, pg := rows[0], rows[1], rows[2]
	if base.Requests != 2 || base.Failed != 0 || base.Result != "PASS" || base.P50Ms != 2 || base.MaxMs != 4 {
		t.Errorf("baseline row %+v", base)
	}
	if kill.Failed != 2 || kill.InFlightFailed != 1 || kill.LateFailed != 1 || kill.Result != "FAIL" {
		t.Errorf("SIGKILL row: failed %d, in flight %d, late %d, %s", kill.Failed, kill.InFlightFailed, kill.LateFailed, kill.Result)
	}
	if kill.Causes[cause502] != 1 || kill.Causes[causeRefused] != 1 || kill.JobsDuplicated != 1 || kill.WSByCode["1006"] != 1 || kill.SSEWithout != 1 {
		t.Errorf("SIGKILL row: %+v", kill)
	}
	if kill.RecoverS != 2.001 {
		t.Errorf("SIGKILL recover %v s, want 2.001", kill.RecoverS)
	}
	if pg.Expected503 != 1 || pg.Failed != 1 || pg.JobsLost != 1 || pg.DownS != 1 || pg.Result != "FAIL" {
		t.Errorf("PostgreSQL row: %+v", pg)
	}
	if !strings.Contains(strings.Join(pg.Why, ";"), "routes without the database") || !strings.Contains(strings.Join(pg.Why, ";"), "1 jobs lost") {
		t.Errorf("PostgreSQL row's reasons: %q", pg.Why)
	}
	if tot.Requests != 8 || tot.Failed != 3 || tot.Expected503 != 1 || tot.Result != "FAIL" || tot.PeakRSSMiB["web1"] != 30 {
		t.Errorf("totals %+v", tot)
	}
	if base.PeakRSSMiB["web1"] != 10 || kill.PeakRSSMiB["web1"] != 20 {
		t.Errorf("peak RSS per window: %v, %v", base.PeakRSSMiB, kill.PeakRSSMiB)
	}
	routes := routeStats(d)
	if routes[0].Route != "GET /" || routes[0].Requests != 3 || routes[0].Failed != 1 {
		t.Errorf("routes %+v", routes)
	}
}

func TestJudgeStreams(t *testing.T) {
	w := &window{Kind: "upgrade"}
	s := EventStats{}
	cs := []streamClose{{Kind: "sse", Shutdown: true}, {Kind: "ws", Code: 1001}, {Kind: "ws", Code: 1012}, {Kind: "ws", Connect: true, Status: 503}}
	countStreams(&s, cs)
	judge(&s, w, nil, cs)
	if s.Result != "PASS" || s.WSConnectFailed != 1 {
		t.Errorf("clean closes: %s %q", s.Result, s.Why)
	}
	cs = append(cs, streamClose{Kind: "ws", Code: 1006, Err: "EOF"}, streamClose{Kind: "sse", Err: "ended"})
	s = EventStats{}
	countStreams(&s, cs)
	judge(&s, w, nil, cs)
	if s.Result != "FAIL" || len(s.Why) != 2 {
		t.Errorf("abnormal closes: %s %q", s.Result, s.Why)
	}
}

func TestRedisJudge(t *testing.T) {
	w := &window{Kind: "redis"}
	rs := []result{{Lat: 6 * time.Second, Cause: causeTimeout}}
	s := EventStats{}
	judge(&s, w, rs, nil)
	if s.Result != "PASS" {
		t.Errorf("a request failing after the store timeout: %s %q", s.Result, s.Why)
	}
	rs = append(rs, result{Lat: time.Second, Cause: cause503})
	s = EventStats{SignedOut: 1}
	judge(&s, w, rs, nil)
	if s.Result != "FAIL" || len(s.Why) != 2 {
		t.Errorf("a quick failure and a sign-out: %s %q", s.Result, s.Why)
	}
}

func TestWriteMarkdown(t *testing.T) {
	d := testRun()
	rows, tot := aggregate(d)
	rep := &Report{Title: "Scale-out rehearsal: test", Command: "go run ./scaleout", Meta: Meta{LB: "haproxy", Instances: 3, Rate: 320, Clients: 64},
		Events: rows, Totals: tot, Samples: samples(d, 20, false), ExpectedSamples: samples(d, 5, true), Routes: routeStats(d),
		Cache: map[string]int{"hit": 9, "miss": 1}, Config: Config{InstanceEnv: []string{"PLINTH_DRAIN_DELAY=2s"}, LBConfig: "global\n"}}
	var b strings.Builder
	writeMarkdown(&b, rep)
	md := b.String()
	for _, want := range []string{
		"# Scale-out rehearsal: test\n",
		"| # | event | requests | failed | refused | reset/EOF |",
		"| 0 | baseline | 2 | 0 |",
		"| 1 | SIGKILL web3 | 3 | 2 | 1 | 0 | 0 | 1 |",
		"|  | total | 8 | 3 |",
		"| 1 | SIGKILL web3 | 0 | 0 | 1 | 0 | 1 | 0 / 1 | 0 | 1006: 1 | 0 |  | 1 (1 after) | 20.0 / 0.0 / 0.0 |",
		"- 2 PostgreSQL restart: **FAIL**: ",
		"- overall: **FAIL**",
		"## First 3 failed requests",
		"| 10.400 | 1 | POST /jobs | /jobs | web3 | 502 | 502 |",
		"## First 1 expected answers",
		"| GET /api/me | 2 | 0 | 1 |",
		"hit: 9, miss: 1",
		"PLINTH_DRAIN_DELAY=2s",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestParseFlags(t *testing.T) {
	t.Setenv("LB", "nginx")
	t.Setenv("RATE", "")
	t.Setenv("SMOKE", "1")
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.lb != "nginx" || !o.smoke || o.rate != 128 || o.clients != 64 || o.write || len(o.events) != 3 || o.settle != 8*time.Second {
		t.Errorf("smoke options %+v", o)
	}
	t.Setenv("SMOKE", "")
	t.Setenv("LB", "")
	o, err = parseFlags([]string{"-rate", "100", "-events", "baseline,lbreload"})
	if err != nil {
		t.Fatal(err)
	}
	if o.lb != "haproxy" || o.smoke || o.rate != 100 || !o.write || len(o.events) != 2 || o.baseline != 15*time.Second {
		t.Errorf("options %+v", o)
	}
	if _, err := parseFlags([]string{"-lb", "traefik"}); err == nil {
		t.Error("parseFlags accepted -lb traefik")
	}
}
