package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"
)

// EventStats is one row of the report: what the clients saw in one event's
// window, or in the whole run (the totals).
type EventStats struct {
	Index  int     `json:"index"`
	Kind   string  `json:"kind"`
	Name   string  `json:"name"`
	StartS float64 `json:"start_s"` // seconds since the load started
	EndS   float64 `json:"end_s"`

	Requests    int            `json:"requests"`
	Failed      int            `json:"failed"`
	Causes      map[string]int `json:"failed_by_cause"`
	Expected503 int            `json:"expected_503_retry_after"` // PostgreSQL restart: 503 + Retry-After on a route that needs the database
	P50Ms       float64        `json:"p50_ms"`
	P99Ms       float64        `json:"p99_ms"`
	MaxMs       float64        `json:"max_ms"`
	LagP99Ms    float64        `json:"lag_p99_ms"` // the load generator's own delay in starting requests
	SignedOut   int            `json:"signed_out_clients"`

	JobsEnqueued   int `json:"jobs_enqueued"`
	JobsLost       int `json:"jobs_lost"`
	JobsDuplicated int `json:"jobs_duplicated"`

	SSEClosed        int            `json:"sse_closed"`
	SSEWithShutdown  int            `json:"sse_closed_with_shutdown"`
	SSEWithout       int            `json:"sse_closed_without_shutdown"`
	SSEConnectFailed int            `json:"sse_connect_failed"`
	WSClosed         int            `json:"ws_closed"`
	WSByCode         map[string]int `json:"ws_closed_by_code"`
	WSConnectFailed  int            `json:"ws_connect_failed"`

	RecoverS   float64            `json:"recover_s"` // event start to the end of its window's last failure
	PeakRSSMiB map[string]float64 `json:"peak_rss_mib"`
	DownS      float64            `json:"down_s,omitempty"` // Redis or PostgreSQL down time
	UpS        float64            `json:"up_s,omitempty"`   // when it answered again, since the event's start

	InFlightFailed int `json:"in_flight_failed,omitempty"` // SIGKILL: failed requests sent before the kill
	LateFailed     int `json:"late_failed,omitempty"`      // SIGKILL: failed requests sent after it

	Result string   `json:"result"` // PASS, FAIL
	Why    []string `json:"why,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// runData is what a rehearsal observed, for aggregate.
type runData struct {
	t0       time.Time
	windows  []*window
	results  []result
	closes   []streamClose
	signOuts []signOut
	jobs     []jobRecord
	runs     map[string]int // job_effects: token -> runs
	rss      []rssSample
	peakHWM  map[string]int
}

// dbFreeRoutes answer without the database: a failure of theirs during
// the PostgreSQL restart is a failure, never "expected".
var dbFreeRoutes = map[string]bool{"GET /": true, "GET /hello": true, "GET /api/version": true}

// sessionStoreTimeout is the sessions' store timeout (web's default): a
// request may fail during the Redis restart only once it waited this long.
const sessionStoreTimeout = 5 * time.Second

// expected reports whether a failed request is an expected answer in
// window w: a 503 with Retry-After, during the PostgreSQL restart, on a
// route that needs the database.
func expected(w *window, r *result) bool {
	return w.Kind == "postgres" && r.Status == 503 && r.RetryAfter && !dbFreeRoutes[r.Route]
}

// windowOf returns the index of the window t falls in: the last that
// started at or before t (the first for earlier times). A request counts
// for the window its answer (or error) came in: one sent just before an
// event and cut by it counts for the event.
func windowOf(ws []*window, t time.Time) int {
	i := sort.Search(len(ws), func(i int) bool { return ws[i].Start.After(t) })
	return max(i-1, 0)
}

// aggregate computes a row per window, judged against its targets, and
// the totals.
func aggregate(d *runData) ([]EventStats, EventStats) {
	n := len(d.windows)
	res := make([][]result, n)
	for _, r := range d.results {
		i := windowOf(d.windows, r.end())
		res[i] = append(res[i], r)
	}
	closes := make([][]streamClose, n)
	for _, c := range d.closes {
		i := windowOf(d.windows, c.At)
		closes[i] = append(closes[i], c)
	}
	rows := make([]EventStats, n)
	for i, w := range d.windows {
		s := &rows[i]
		*s = EventStats{Index: w.Index, Kind: w.Kind, Name: w.Name,
			StartS: secs(w.Start.Sub(d.t0)), EndS: secs(w.End.Sub(d.t0)), Error: w.Err}
		w.mu.Lock()
		s.Notes = slices.Clone(w.Notes)
		w.mu.Unlock()
		countRequests(s, w, res[i])
		countStreams(s, closes[i])
		if !w.DownFrom.IsZero() {
			s.DownS = secs(w.DownTo.Sub(w.DownFrom))
			s.UpS = secs(w.DownTo.Sub(w.Start))
		}
	}
	for _, so := range d.signOuts {
		rows[windowOf(d.windows, so.At)].SignedOut++
	}
	for _, j := range d.jobs {
		s := &rows[windowOf(d.windows, j.Sched)]
		s.JobsEnqueued++
		switch runs := d.runs[j.Token]; {
		case runs == 0:
			s.JobsLost++
		case runs > 1:
			s.JobsDuplicated++
		}
	}
	for _, x := range d.rss {
		s := &rows[windowOf(d.windows, x.At)]
		if s.PeakRSSMiB == nil {
			s.PeakRSSMiB = map[string]float64{}
		}
		s.PeakRSSMiB[x.Inst] = max(s.PeakRSSMiB[x.Inst], mib(x.KB))
	}
	for i, w := range d.windows {
		judge(&rows[i], w, res[i], closes[i])
	}
	return rows, totals(d, rows)
}

// countRequests fills the request columns of s from the window's requests.
func countRequests(s *EventStats, w *window, rs []result) {
	s.Requests = len(rs)
	s.Causes = map[string]int{}
	var last time.Time
	for i := range rs {
		r := &rs[i]
		if !r.failed() {
			continue
		}
		if r.end().After(last) {
			last = r.end()
		}
		if expected(w, r) {
			s.Expected503++
			continue
		}
		s.Failed++
		s.Causes[r.Cause]++
		if !w.KillAt.IsZero() {
			if r.Sched.Before(w.KillAt) {
				s.InFlightFailed++
			} else {
				s.LateFailed++
			}
		}
	}
	if !last.IsZero() {
		s.RecoverS = secs(last.Sub(w.Start))
	}
	s.P50Ms, s.P99Ms, s.MaxMs, s.LagP99Ms = latencyFigures(rs)
}

// latencyFigures returns the p50, p99 and largest latency of rs, and the
// p99 of their start lag, in milliseconds.
func latencyFigures(rs []result) (p50, p99, most, lag99 float64) {
	l := latencies(rs)
	if len(l) == 0 {
		return 0, 0, 0, 0
	}
	lags := make([]time.Duration, len(rs))
	for i := range rs {
		lags[i] = rs[i].Lag
	}
	slices.Sort(lags)
	return ms(percentile(l, 50)), ms(percentile(l, 99)), ms(l[len(l)-1]), ms(percentile(lags, 99))
}

// RouteStats is the load's figures for one route, over the whole run.
type RouteStats struct {
	Route       string  `json:"route"`
	Requests    int     `json:"requests"`
	Failed      int     `json:"failed"`
	Expected503 int     `json:"expected_503_retry_after"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	MaxMs       float64 `json:"max_ms"`
}

// routeStats computes the figures of each route, in the mix's order.
func routeStats(d *runData) []RouteStats {
	by := map[string][]result{}
	for _, r := range d.results {
		by[r.Route] = append(by[r.Route], r)
	}
	var out []RouteStats
	for _, a := range mix {
		rs := by[a.name]
		if len(rs) == 0 {
			continue
		}
		s := RouteStats{Route: a.name, Requests: len(rs)}
		for i := range rs {
			switch {
			case !rs[i].failed():
			case expected(d.windows[windowOf(d.windows, rs[i].end())], &rs[i]):
				s.Expected503++
			default:
				s.Failed++
			}
		}
		s.P50Ms, s.P99Ms, s.MaxMs, _ = latencyFigures(rs)
		out = append(out, s)
	}
	return out
}

// countStreams fills the SSE and WebSocket columns.
func countStreams(s *EventStats, cs []streamClose) {
	s.WSByCode = map[string]int{}
	for _, c := range cs {
		switch {
		case c.Kind == "sse" && c.Connect:
			s.SSEConnectFailed++
		case c.Kind == "sse":
			s.SSEClosed++
			if c.Shutdown {
				s.SSEWithShutdown++
			} else {
				s.SSEWithout++
			}
		case c.Connect:
			s.WSConnectFailed++
		default:
			s.WSClosed++
			s.WSByCode[wsCloseLabel(c)]++
		}
	}
}

// wsCloseLabel names how a WebSocket ended: its close code, "wrong echo"
// or "stalled".
func wsCloseLabel(c streamClose) string {
	switch {
	case c.Wrong:
		return "wrong echo"
	case c.Code == 0:
		return "stalled"
	}
	return strconv.Itoa(c.Code)
}

// judge checks the row against its event's targets.
func judge(s *EventStats, w *window, rs []result, cs []streamClose) {
	why := func(format string, args ...any) { s.Why = append(s.Why, fmt.Sprintf(format, args...)) }
	if w.Err != "" {
		why("the event's action failed: %s", w.Err)
	}
	if s.JobsLost > 0 {
		why("%d jobs lost", s.JobsLost)
	}
	streamsClean := func() {
		for _, c := range cs {
			switch {
			case c.Connect:
			case c.Kind == "sse" && !c.Shutdown:
				why("an SSE stream (%s) ended without event: shutdown: %s", orDash(c.Backend), c.Err)
			case c.Kind == "ws" && c.Code != 1001 && c.Code != 1012:
				why("a WebSocket (%s) ended with %s: %s", orDash(c.Backend), wsCloseLabel(c), c.Err)
			}
		}
	}
	switch w.Kind {
	case "baseline":
		if s.Failed > 0 {
			why("%d failed requests", s.Failed)
		}
		if s.SSEClosed+s.WSClosed > 0 {
			why("%d streams ended with nothing happening", s.SSEClosed+s.WSClosed)
		}
	case "upgrade", "sigterm", "lbreload":
		if s.Failed > 0 {
			why("%d failed requests", s.Failed)
		}
		streamsClean()
	case "sigkill":
		if s.LateFailed > 0 {
			why("%d requests sent after the kill failed (only those in flight may)", s.LateFailed)
		}
	case "redis":
		if s.SignedOut > 0 {
			why("%d clients signed out", s.SignedOut)
		}
		quick := 0
		for i := range rs {
			if rs[i].failed() && rs[i].Lat < sessionStoreTimeout {
				quick++
			}
		}
		if quick > 0 {
			why("%d requests failed before the session store timeout (%v)", quick, sessionStoreTimeout)
		}
	case "postgres":
		free, other := 0, 0
		var last time.Time
		for i := range rs {
			r := &rs[i]
			if !r.failed() {
				continue
			}
			if r.end().After(last) {
				last = r.end()
			}
			switch {
			case dbFreeRoutes[r.Route]:
				free++
			case !expected(w, r):
				other++
			}
		}
		if free > 0 {
			why("%d failures on routes without the database (/, /hello, /api/version)", free)
		}
		if other > 0 {
			why("%d failures other than 503 + Retry-After on routes with the database", other)
		}
		if !w.DownTo.IsZero() && last.After(w.DownTo.Add(5*time.Second)) {
			why("last failure %.1f s after the database was back (target 5 s)", secs(last.Sub(w.DownTo)))
		}
	}
	s.Result = "PASS"
	if len(s.Why) > 0 {
		s.Result = "FAIL"
	}
}

// totals sums the rows; latency is over every request, the memory peak is
// each instance's largest VmHWM.
func totals(d *runData, rows []EventStats) EventStats {
	t := EventStats{Index: -1, Kind: "total", Name: "total", Causes: map[string]int{}, WSByCode: map[string]int{},
		PeakRSSMiB: map[string]float64{}}
	if len(d.windows) > 0 {
		t.EndS = secs(d.windows[len(d.windows)-1].End.Sub(d.t0))
	}
	for _, s := range rows {
		t.Requests += s.Requests
		t.Failed += s.Failed
		t.Expected503 += s.Expected503
		for k, v := range s.Causes {
			t.Causes[k] += v
		}
		t.SignedOut += s.SignedOut
		t.JobsEnqueued += s.JobsEnqueued
		t.JobsLost += s.JobsLost
		t.JobsDuplicated += s.JobsDuplicated
		t.SSEClosed += s.SSEClosed
		t.SSEWithShutdown += s.SSEWithShutdown
		t.SSEWithout += s.SSEWithout
		t.SSEConnectFailed += s.SSEConnectFailed
		t.WSClosed += s.WSClosed
		t.WSConnectFailed += s.WSConnectFailed
		for k, v := range s.WSByCode {
			t.WSByCode[k] += v
		}
		t.RecoverS = max(t.RecoverS, s.RecoverS)
		t.InFlightFailed += s.InFlightFailed
		t.LateFailed += s.LateFailed
		if s.Result == "FAIL" {
			t.Why = append(t.Why, fmt.Sprintf("event %d (%s)", s.Index, s.Name))
		}
	}
	for k, v := range d.peakHWM {
		t.PeakRSSMiB[k] = mib(v)
	}
	t.P50Ms, t.P99Ms, t.MaxMs, t.LagP99Ms = latencyFigures(d.results)
	t.Result = "PASS"
	if len(t.Why) > 0 {
		t.Result = "FAIL"
	}
	return t
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func secs(d time.Duration) float64 { return round(d.Seconds(), 3) }
func ms(d time.Duration) float64   { return round(float64(d)/float64(time.Millisecond), 2) }
func mib(kb int) float64           { return round(float64(kb)/1024, 1) }

// round rounds v to n decimals.
func round(v float64, n int) float64 {
	p, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', n, 64), 64)
	return p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
