package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The causes a request fails by, in the order the table shows them.
const (
	causeRefused   = "refused"      // connection refused
	causeReset     = "reset/EOF"    // connection reset or closed without an answer
	causeTimeout   = "timeout"      // no answer within the request timeout (10 s)
	cause502       = "502"          // bad gateway (the load balancer)
	cause503       = "503"          // service unavailable
	cause504       = "504"          // gateway timeout
	cause5xx       = "other 5xx"    // 500, ...
	causeWrong     = "wrong answer" // the status or the content is not what the route promises
	cause4xx       = "other 4xx"    // 403 (CSRF), 404, 429, ...
	causeSignedOut = "signed out"   // a signed-in client found itself signed out (401, or 303 to /login)
	causeOther     = "other"        // any other error
)

// causeOrder is the order of the causes in tables and JSON.
var causeOrder = []string{causeRefused, causeReset, causeTimeout, cause502, cause503, cause504, cause5xx,
	causeWrong, cause4xx, causeSignedOut, causeOther}

// result is one request of the load.
type result struct {
	Sched      time.Time     // when it was scheduled (open loop)
	Lat        time.Duration // from Sched to the end of its answer or its error
	Lag        time.Duration // from Sched to the moment its goroutine ran: the load generator's own delay
	Route      string        // "GET /api/quotes/{n}"
	Path       string
	Client     int
	Cause      string // "" when it succeeded
	Status     int
	RetryAfter bool   // the answer had Retry-After
	Backend    string // the instance that answered, when the load balancer said
	Err        string
}

// failed reports whether the request failed.
func (r *result) failed() bool { return r.Cause != "" }

// end is when the answer or the error came.
func (r *result) end() time.Time { return r.Sched.Add(r.Lat) }

// streamClose is the end of an SSE stream or a WebSocket, or a failed
// attempt to open one.
type streamClose struct {
	At       time.Time
	Kind     string // "sse" or "ws"
	Stream   int
	Connect  bool // the stream never opened: Status or Err says why
	Status   int
	Shutdown bool // SSE: `event: shutdown` came before the end
	Code     int  // WebSocket: the close code, 1006 when the connection ended without a close frame
	Wrong    bool // WebSocket: an echo differed from the message
	Backend  string
	Err      string
	Lived    time.Duration
}

// signOut is a signed-in client found signed out.
type signOut struct {
	At     time.Time
	Client int
}

// jobRecord is a job enqueued (POST /jobs answered 202).
type jobRecord struct {
	Token string
	Sched time.Time
}

// rssSample is the resident memory of an instance's processes at a time:
// the largest of them.
type rssSample struct {
	At   time.Time
	Inst string
	KB   int
}

// recorder collects everything the load and the monitors observe.
type recorder struct {
	mu       sync.Mutex
	results  []result
	closes   []streamClose
	signOuts []signOut
	signIns  int // sign-ins after the first (after a sign-out)
	jobs     []jobRecord
	rss      []rssSample
	peakHWM  map[string]int // instance -> largest VmHWM of its processes, KiB
	cache    map[string]int // X-Cache of quotes: hit, miss, other
}

func newRecorder() *recorder {
	return &recorder{peakHWM: map[string]int{}, cache: map[string]int{}}
}

func (rec *recorder) addResult(r result) {
	rec.mu.Lock()
	rec.results = append(rec.results, r)
	rec.mu.Unlock()
}

func (rec *recorder) addClose(c streamClose) {
	rec.mu.Lock()
	rec.closes = append(rec.closes, c)
	rec.mu.Unlock()
}

func (rec *recorder) addSignOut(s signOut) {
	rec.mu.Lock()
	rec.signOuts = append(rec.signOuts, s)
	rec.mu.Unlock()
}

func (rec *recorder) addSignIn() {
	rec.mu.Lock()
	rec.signIns++
	rec.mu.Unlock()
}

func (rec *recorder) addJob(j jobRecord) {
	rec.mu.Lock()
	rec.jobs = append(rec.jobs, j)
	rec.mu.Unlock()
}

func (rec *recorder) addCache(v string) {
	rec.mu.Lock()
	rec.cache[v]++
	rec.mu.Unlock()
}

func (rec *recorder) addRSS(s rssSample, hwmKB int) {
	rec.mu.Lock()
	rec.rss = append(rec.rss, s)
	rec.peakHWM[s.Inst] = max(rec.peakHWM[s.Inst], hwmKB)
	rec.mu.Unlock()
}

// classifyErr names the cause of a transport error.
func classifyErr(err error) string {
	if err == nil {
		return ""
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return causeRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return causeTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return causeReset
	}
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "EOF", "server closed idle connection", "closed network connection"} {
		if strings.Contains(msg, s) {
			return causeReset
		}
	}
	if strings.Contains(msg, "connection refused") {
		return causeRefused
	}
	if strings.Contains(msg, "timeout") || strings.Contains(msg, "deadline exceeded") {
		return causeTimeout
	}
	return causeOther
}

// classifyStatus names the cause of an answer whose status the route does
// not promise.
func classifyStatus(status int) string {
	switch {
	case status == http.StatusBadGateway:
		return cause502
	case status == http.StatusServiceUnavailable:
		return cause503
	case status == http.StatusGatewayTimeout:
		return cause504
	case status >= 500:
		return cause5xx
	case status >= 400:
		return cause4xx
	}
	return causeWrong
}

// percentile returns the p-th percentile (nearest rank) of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// latencies returns the sorted latencies of rs.
func latencies(rs []result) []time.Duration {
	l := make([]time.Duration, len(rs))
	for i := range rs {
		l[i] = rs[i].Lat
	}
	slices.Sort(l)
	return l
}

// writeCSV writes every request, for a look at the raw figures (kept in
// the temporary directory with -keep).
func writeCSV(name string, t0 time.Time, rs []result) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"sched_s", "lag_ms", "latency_ms", "route", "path", "client", "instance", "status", "retry_after", "cause", "error"})
	for _, r := range rs {
		_ = w.Write([]string{fmt.Sprintf("%.4f", r.Sched.Sub(t0).Seconds()), fmt.Sprintf("%.2f", ms(r.Lag)), fmt.Sprintf("%.2f", ms(r.Lat)),
			r.Route, r.Path, strconv.Itoa(r.Client), r.Backend, strconv.Itoa(r.Status), strconv.FormatBool(r.RetryAfter), r.Cause, r.Err})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
