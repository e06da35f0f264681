package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// WrkResult is what wrk reported for the same parameters.
type WrkResult struct {
	Command string  `json:"command"`
	RPS     float64 `json:"rps"`
	P50     float64 `json:"p50_us"`
	P90     float64 `json:"p90_us"`
	P99     float64 `json:"p99_us"`
	Errors  int64   `json:"errors"` // socket errors and non-2xx/3xx responses
	// The server's CPU% and peak RSS over wrk's measured run (-server-pid).
	ServerCPU *float64 `json:"server_cpu_pct,omitempty"`
	ServerRSS *float64 `json:"server_rss_mib,omitempty"`
}

// runWrk runs wrk with -workers threads (at most the connections), -c
// connections and -d, after a silent warm-up of -warmup, and parses its
// report. wrk does not pipeline; -pipeline is not passed on.
func runWrk(o options) (*WrkResult, error) {
	path, err := exec.LookPath("wrk")
	if err != nil {
		return nil, fmt.Errorf("not installed (Debian: apt-get install wrk)")
	}
	threads := min(o.workers, o.conns)
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(o.conns)}
	for _, h := range o.headers {
		args = append(args, "-H", h)
	}
	if o.warmup > 0 {
		warm := append(append([]string(nil), args...), "-d"+wrkSeconds(o.warmup), o.target.String())
		if out, err := exec.Command(path, warm...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("warm-up: %v: %s", err, out)
		}
	}
	args = append(args, "-d"+wrkSeconds(o.duration), "--latency", o.target.String())
	var p0, p1 procSample
	if o.pid > 0 {
		if p0, err = sampleProc(o.pid); err != nil {
			return nil, fmt.Errorf("server-pid %d: %v", o.pid, err)
		}
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	if o.pid > 0 {
		p1, _ = sampleProc(o.pid)
	}
	res, err := parseWrk(out)
	if err != nil {
		return nil, err
	}
	if p1.at.After(p0.at) {
		pct := 100 * (p1.cpu - p0.cpu).Seconds() / p1.at.Sub(p0.at).Seconds()
		rss := float64(p1.hwmKiB) / 1024
		res.ServerCPU, res.ServerRSS = &pct, &rss
	}
	res.Command = "wrk " + strings.Join(args, " ")
	return res, nil
}

func wrkSeconds(d time.Duration) string {
	return strconv.Itoa(max(int(d.Round(time.Second)/time.Second), 1)) + "s"
}

// parseWrk reads "Requests/sec:", the --latency distribution and the error
// lines of wrk's report.
func parseWrk(out []byte) (*WrkResult, error) {
	res := &WrkResult{}
	found := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return nil, fmt.Errorf("wrk Requests/sec %q", f[1])
			}
			res.RPS, found = v, true
		case len(f) == 2 && (f[0] == "50%" || f[0] == "90%" || f[0] == "99%"):
			us, err := wrkDuration(f[1])
			if err != nil {
				return nil, err
			}
			switch f[0] {
			case "50%":
				res.P50 = us
			case "90%":
				res.P90 = us
			default:
				res.P99 = us
			}
		case len(f) >= 2 && f[0] == "Socket" && f[1] == "errors:":
			// "Socket errors: connect 0, read 0, write 0, timeout 0"
			for i := 2; i+1 < len(f); i += 2 {
				n, _ := strconv.ParseInt(strings.TrimSuffix(f[i+1], ","), 10, 64)
				res.Errors += n
			}
		case len(f) == 5 && f[0] == "Non-2xx":
			n, _ := strconv.ParseInt(f[4], 10, 64)
			res.Errors += n
		}
	}
	if !found {
		return nil, fmt.Errorf("no Requests/sec in wrk's output: %s", out)
	}
	return res, nil
}

// wrkDuration converts wrk's "812.00us", "1.23ms", "2.00s" to microseconds.
func wrkDuration(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		us     float64
	}{{"us", 1}, {"ms", 1e3}, {"m", 60e6}, {"s", 1e6}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("wrk latency %q", s)
			}
			return f * u.us, nil
		}
	}
	return 0, fmt.Errorf("wrk latency %q", s)
}
