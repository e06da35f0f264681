// Command instr-gate measures instructions per request of the server process
// over real HTTP with valgrind's callgrind and compares them with the
// committed baseline, bench/instr-baseline.json: the regression gate of
// .ci/run. Run it through bench/instr-gate.sh, which builds it and
// cmd/instr and checks for valgrind (its header says why it measures so):
//
//	bench/instr-gate.sh              # measure, compare, fail when a pair grew by more than 3 %
//	bench/instr-gate.sh -update      # measure and rewrite the baseline (on purpose: commit it with the reason)
//	bench/instr-gate.sh -measure -frameworks std -scenarios headers-0,headers-4 -md out.md   # measure only
//
// For each framework one cmd/instr process serves every scenario (one
// listener each) under callgrind --dump-before=main.mark, with serverEnv;
// the frameworks run side by side. This process is the client. Per
// scenario, on one keep-alive connection: pipelined warm-up requests and
// then paced ones, with callgrind's instrumentation off (amd64: cmd/instr
// switches it with client requests); instrumentation on and a mark
// (callgrind writes its counts and zeroes them); the measured requests,
// paced; a mark; instrumentation off. The dump between the two marks holds
// the server's instructions for the measured requests alone (plus a
// constant few per request for reading the "mark" line), so nothing is
// subtracted. Paced means each request is sent only once the server process
// is idle (waitIdle), so that every request finds the runtime in the same
// state whatever the machine's load.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plinth-go/plinth/bench/internal/httpserve"
)

// Settings are how the counts were made; a comparison needs the same.
type Settings struct {
	Requests int    `json:"requests"`           // measured requests per scenario, paced (rounded up to a multiple of the scenario's requests)
	Warmup   int    `json:"warmup"`             // pipelined warm-up requests per scenario, uninstrumented
	Settle   int    `json:"settle"`             // then paced warm-up requests, uninstrumented
	Env      string `json:"env"`                // the server's environment under valgrind
	Pipeline int    `json:"pipeline,omitempty"` // measured requests sent pipelined, this many in flight (0: paced, the gate's way)
}

// Result is one framework on one scenario.
type Result struct {
	Scenario     string `json:"scenario"`
	Framework    string `json:"framework"`
	Instructions int64  `json:"instructions"` // per request, the server process in user space
}

// Ratio is a framework's count over its yardstick's on one scenario, both
// measured in the same run: Plinth's engine (plinth-fast, plinth-new-fast)
// over fasthttp's native server. A ratio moves less with the
// toolchain and the machine than either count.
type Ratio struct {
	Scenario  string  `json:"scenario"`
	Framework string  `json:"framework"`
	Over      string  `json:"over"`
	Ratio     float64 `json:"ratio"`
}

// ratioPairs are the ratios the gate computes when both frameworks were
// measured on a scenario: framework, yardstick.
var ratioPairs = [][2]string{{"plinth-fast", "fasthttp"}, {"plinth-new-fast", "fasthttp"}}

// ratios computes ratioPairs from results.
func ratios(results []Result) []Ratio {
	count := map[[2]string]int64{}
	var scs []string
	for _, r := range results {
		if !slices.Contains(scs, r.Scenario) {
			scs = append(scs, r.Scenario)
		}
		count[[2]string{r.Scenario, r.Framework}] = r.Instructions
	}
	var out []Ratio
	for _, sc := range scs {
		for _, p := range ratioPairs {
			a, okA := count[[2]string{sc, p[0]}]
			b, okB := count[[2]string{sc, p[1]}]
			if okA && okB && b > 0 {
				out = append(out, Ratio{Scenario: sc, Framework: p[0], Over: p[1], Ratio: math.Round(float64(a)/float64(b)*1000) / 1000})
			}
		}
	}
	return out
}

// Baseline is bench/instr-baseline.json.
type Baseline struct {
	Comment   string   `json:"_comment"`
	Command   string   `json:"command"`
	Commit    string   `json:"commit"`
	Date      string   `json:"date"`
	Go        string   `json:"go"`
	Arch      string   `json:"arch"`
	Valgrind  string   `json:"valgrind"`
	Threshold float64  `json:"threshold"`
	Settings  Settings `json:"settings"`
	Results   []Result `json:"results"`
	Ratios    []Ratio  `json:"ratios,omitempty"`
}

// serverEnv is the environment of the server under valgrind; each setting
// takes out something that makes the counts depend on timing or chance:
//   - GOGC=off: the garbage collector's timing moved the counts by ±1.5 %
//     (allocations are gated exactly by budgets.json instead);
//   - memprofilerate=0: no allocation sampled for the memory profile (at
//     random, each with a stack walk);
//   - schedtrace=3600000 (one trace line an hour, so none after start-up):
//     sysmon, the runtime's monitor thread, never sleeps deeply, so it stays
//     at its slowest pace (every 10 ms) instead of waking at every request
//     and checking every 20 µs, when it would take the P from a thread in a
//     system call that valgrind happens to keep waiting (1-2 % more, and
//     more on a loaded machine);
//   - GOMAXPROCS=1: no thread spinning to steal work; asyncpreemptoff=1: no
//     preemption signals; cpu.rdtscp=off: valgrind 3.19 lacks RDTSCP.
const serverEnv = "GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,memprofilerate=0,schedtrace=3600000 GOMAXPROCS=1"

const updateCommand = "bench/instr-gate.sh -update"

// defaultFrameworks are the gate's: plinth.Bare() and plinth.New() on
// net/http on every scenario; on Plinth's own engine (Config.Engine = "fast") and
// fasthttp's native server, its yardstick, on minimal only, to keep
// the gate short (the engine runs the same App: the other scenarios differ
// from these in the App, which plinth and plinth-new already gate).
const defaultFrameworks = "plinth,plinth-new,plinth-fast:minimal,plinth-new-fast:minimal,fasthttp:minimal"

func main() {
	baselineFile := flag.String("baseline", "instr-baseline.json", "baseline file")
	update := flag.Bool("update", false, "measure and rewrite the baseline")
	measure := flag.Bool("measure", false, "measure and print, no baseline")
	md := flag.String("md", "", "with -measure: also write a markdown table here")
	instr := flag.String("instr", "bin/instr", "the cmd/instr binary")
	frameworks := flag.String("frameworks", defaultFrameworks, "frameworks, comma-separated; FRAMEWORK:SC1+SC2 measures that framework on those scenarios only, instead of -scenarios")
	scenarios := flag.String("scenarios", "minimal,json,routes-50,github-all,middleware,default-stack,validated-json,module-route", "scenarios, comma-separated")
	n := flag.Int("n", 1000, "measured requests per scenario (a gate run takes the baseline's)")
	warmup := flag.Int("warmup", 5000, "pipelined warm-up requests per scenario (a gate run takes the baseline's)")
	settle := flag.Int("settle", 100, "paced warm-up requests per scenario (a gate run takes the baseline's)")
	threshold := flag.Float64("threshold", 0.03, "the growth that fails the gate (a gate run takes the baseline's)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	keep := flag.String("keep", "", "keep callgrind's files in this directory (part 2i+2 is scenario i's measured requests)")
	pipeline := flag.Int("pipeline", 0, "with -measure: send the measured requests pipelined, this many in flight, instead of paced (what pipelining costs per request)")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })

	settings := Settings{Requests: *n, Warmup: *warmup, Settle: *settle, Env: serverEnv}
	if *pipeline > 0 {
		if !*measure {
			fail(errors.New("-pipeline goes with -measure: the gate and its baseline pace their requests"))
		}
		settings.Pipeline = *pipeline
	}
	var base *Baseline
	if !*update && !*measure {
		b, err := readBaseline(*baselineFile)
		if err != nil {
			fail(fmt.Errorf("%v\n\tmake one with: %s", err, updateCommand))
		}
		for _, f := range []string{"n", "warmup", "settle", "threshold"} {
			if set[f] {
				fail(fmt.Errorf("-%s: a gate run measures as the baseline was measured (%+v); change it with -update", f, b.Settings))
			}
		}
		base, settings, *threshold = b, b.Settings, b.Threshold
		if b.Settings.Env != serverEnv {
			fail(fmt.Errorf("the baseline was measured with %q, this command measures with %q: run %s", b.Settings.Env, serverEnv, updateCommand))
		}
	}
	fws, scs := split(*frameworks), split(*scenarios)
	for _, fw := range fws {
		for _, sc := range scenariosOf(fw, scs) {
			if !httpserve.KnownScenario(sc) {
				fail(fmt.Errorf("unknown scenario %q", sc))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	run := func() []Result {
		start := time.Now()
		results, err := measureAll(ctx, *instr, fws, scs, settings, *keep)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "instr-gate: measured %d pairs in %s (%s; per scenario %d pipelined and %d paced warm-up requests, then %d measured)\n",
			len(results), time.Since(start).Round(time.Second), serverEnv, settings.Warmup, settings.Settle, settings.Requests)
		return results
	}
	results := run()
	// What is left of timing in the counts only ever adds instructions (the
	// sysmon thread wakes on a clock: a few hundred per request more on a
	// heavily loaded machine), so a second run is taken where one could be
	// high: for a baseline, and before failing. The lower count of each pair
	// counts.
	if *update || !*measure && !compare(io.Discard, base, results, *threshold) {
		fmt.Fprintln(os.Stderr, "instr-gate: measuring again (the lower count of each pair counts)")
		results = lower(results, run())
	}

	switch {
	case *measure:
		printTable(os.Stdout, results)
		if *md != "" {
			if err := writeMarkdown(*md, results, settings); err != nil {
				fail(err)
			}
		}
	case *update:
		b := Baseline{
			Ratios: ratios(results),
			Comment: "Instructions per request of the server process over real HTTP (callgrind), the baseline of the gate in .ci/run " +
				"(bench/instr-gate.sh). The gate fails when a pair grows by more than threshold. Regenerate on purpose with `" +
				updateCommand + "` and commit it with the reason; counts depend on the Go version, valgrind and the architecture.",
			Command: updateCommand, Commit: commit(), Date: time.Now().UTC().Format(time.RFC3339),
			Go: runtime.Version(), Arch: runtime.GOARCH, Valgrind: valgrindVersion(),
			Threshold: *threshold, Settings: settings, Results: results,
		}
		raw, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(*baselineFile, append(raw, '\n'), 0o644); err != nil {
			fail(err)
		}
		printTable(os.Stdout, results)
		fmt.Printf("wrote %s (commit %s)\n", *baselineFile, b.Commit)
	default:
		if !compare(os.Stdout, base, results, *threshold) {
			os.Exit(1)
		}
	}
}

// lower returns, pair by pair, the lower count of a and b (same pairs, same
// order).
func lower(a, b []Result) []Result {
	out := slices.Clone(a)
	for i := range out {
		out[i].Instructions = min(a[i].Instructions, b[i].Instructions)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "instr-gate:", err)
	os.Exit(1)
}

// frameworkName is the framework of a -frameworks entry (FRAMEWORK or
// FRAMEWORK:SC1+SC2).
func frameworkName(spec string) string {
	fw, _, _ := strings.Cut(spec, ":")
	return fw
}

// scenariosOf returns the scenarios of a -frameworks entry: its own list
// after the colon, else all.
func scenariosOf(spec string, all []string) []string {
	_, own, ok := strings.Cut(spec, ":")
	if !ok {
		return all
	}
	var out []string
	for sc := range strings.SplitSeq(own, "+") {
		if sc = strings.TrimSpace(sc); sc != "" {
			out = append(out, sc)
		}
	}
	return out
}

func split(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func readBaseline(file string) (*Baseline, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(b.Results) == 0 || b.Settings.Requests <= 0 || b.Threshold <= 0 {
		return nil, fmt.Errorf("%s: no results, settings or threshold", file)
	}
	return &b, nil
}

// compare prints every pair against the baseline and reports whether none
// grew by more than threshold and none is missing.
func compare(w io.Writer, base *Baseline, results []Result, threshold float64) bool {
	old := map[[2]string]int64{}
	for _, r := range base.Results {
		old[[2]string{r.Scenario, r.Framework}] = r.Instructions
	}
	ok := true
	var failed, improved []string
	fmt.Fprintf(w, "%-16s %-11s %10s %10s %8s\n", "scenario", "framework", "baseline", "now", "ratio")
	for _, r := range results {
		b, found := old[[2]string{r.Scenario, r.Framework}]
		if !found {
			fmt.Fprintf(w, "%-16s %-11s %10s %10d %8s  no baseline\n", r.Scenario, r.Framework, "-", r.Instructions, "-")
			failed = append(failed, fmt.Sprintf("%s/%s has no baseline", r.Scenario, r.Framework))
			ok = false
			continue
		}
		ratio := float64(r.Instructions) / float64(b)
		note := ""
		switch {
		case ratio > 1+threshold:
			note = fmt.Sprintf("  FAIL: +%.1f %% (limit +%.0f %%)", (ratio-1)*100, threshold*100)
			failed = append(failed, fmt.Sprintf("%s/%s: %d -> %d instructions per request, ratio %.3f (+%.1f %%)",
				r.Scenario, r.Framework, b, r.Instructions, ratio, (ratio-1)*100))
			ok = false
		case ratio < 1-threshold:
			note = fmt.Sprintf("  improved: %.1f %%", (ratio-1)*100)
			improved = append(improved, fmt.Sprintf("%s/%s: %d -> %d (%.1f %%)", r.Scenario, r.Framework, b, r.Instructions, (ratio-1)*100))
		}
		fmt.Fprintf(w, "%-16s %-11s %10d %10d %8.3f%s\n", r.Scenario, r.Framework, b, r.Instructions, ratio, note)
	}
	if now := ratios(results); len(now) > 0 {
		oldRatio := map[[3]string]float64{}
		for _, r := range base.Ratios {
			oldRatio[[3]string{r.Scenario, r.Framework, r.Over}] = r.Ratio
		}
		fmt.Fprintf(w, "%-16s %-28s %10s %10s %8s\n", "scenario", "ratio (same run)", "baseline", "now", "ratio")
		for _, r := range now {
			name := r.Framework + "/" + r.Over
			b, found := oldRatio[[3]string{r.Scenario, r.Framework, r.Over}]
			if !found {
				fmt.Fprintf(w, "%-16s %-28s %10s %10.3f %8s  no baseline\n", r.Scenario, name, "-", r.Ratio, "-")
				failed = append(failed, fmt.Sprintf("%s %s has no baseline", r.Scenario, name))
				ok = false
				continue
			}
			g := r.Ratio / b
			note := ""
			switch {
			case g > 1+threshold:
				note = fmt.Sprintf("  FAIL: +%.1f %% (limit +%.0f %%)", (g-1)*100, threshold*100)
				failed = append(failed, fmt.Sprintf("%s %s: %.3f -> %.3f (+%.1f %%)", r.Scenario, name, b, r.Ratio, (g-1)*100))
				ok = false
			case g < 1-threshold:
				note = fmt.Sprintf("  improved: %.1f %%", (g-1)*100)
				improved = append(improved, fmt.Sprintf("%s %s: %.3f -> %.3f (%.1f %%)", r.Scenario, name, b, r.Ratio, (g-1)*100))
			}
			fmt.Fprintf(w, "%-16s %-28s %10.3f %10.3f %8.3f%s\n", r.Scenario, name, b, r.Ratio, g, note)
		}
	}
	fmt.Fprintf(w, "baseline: commit %s, %s, %s, %s\n", base.Commit, base.Go, base.Valgrind, base.Date)
	drift := ""
	if base.Go != runtime.Version() || base.Arch != runtime.GOARCH || base.Valgrind != valgrindVersion() {
		drift = fmt.Sprintf("\nnote: the baseline was made with %s/%s and %s, this run with %s/%s and %s: counts move with the toolchain.",
			base.Go, base.Arch, base.Valgrind, runtime.Version(), runtime.GOARCH, valgrindVersion())
		fmt.Fprintln(w, strings.TrimSpace(drift))
	}
	if len(improved) > 0 {
		fmt.Fprintf(w, "improved by more than %.0f %%: %s\n(lock the gain in: %s, and commit bench/instr-baseline.json)\n",
			threshold*100, strings.Join(improved, "; "), updateCommand)
	}
	if !ok {
		fmt.Fprintf(w, "\nINSTRUCTION GATE FAILED: %d pair(s) or ratio(s) over +%.0f %% or without a baseline:\n", len(failed), threshold*100)
		for _, f := range failed {
			fmt.Fprintln(w, "  "+f)
		}
		fmt.Fprintf(w, "If the growth is intended, update the baseline on purpose and commit it with the reason:\n  %s%s\n", updateCommand, drift)
		return false
	}
	fmt.Fprintf(w, "instruction gate passed: %d pairs within +%.0f %% of the baseline\n", len(results), threshold*100)
	return true
}

// measureAll measures every framework on every scenario, the frameworks side
// by side.
func measureAll(ctx context.Context, instr string, fws, scs []string, s Settings, keep string) ([]Result, error) {
	tmp := keep
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "instr-gate"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
	} else if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	per := make([][]Result, len(fws))
	errs := make([]error, len(fws))
	var wg sync.WaitGroup
	order := slices.Clone(scs)
	for i, spec := range fws {
		fw, own := frameworkName(spec), scenariosOf(spec, scs)
		for _, sc := range own {
			if !slices.Contains(order, sc) {
				order = append(order, sc)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			per[i], errs[i] = measure(ctx, instr, fw, own, s, filepath.Join(tmp, "cg."+fw))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []Result
	for _, sc := range order { // report order: scenario, then framework
		for i := range fws {
			for _, r := range per[i] {
				if r.Scenario == sc {
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}

// measure runs one server process for fw under callgrind and loads each
// scenario in turn.
func measure(ctx context.Context, instr, fw string, scs []string, s Settings, out string) ([]Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"--tool=callgrind", "--dump-before=main.mark", "--dump-line=no", "--callgrind-out-file=" + out}
	switchable := runtime.GOARCH == "amd64" // cmd/instr has callgrind's client requests there
	if switchable {
		args = append(args, "--instr-atstart=no")
	}
	args = append(args, instr, "-framework", fw, "-scenarios", strings.Join(scs, ","))
	cmd := exec.CommandContext(ctx, "valgrind", args...)
	cmd.Env = append(os.Environ(), strings.Fields(serverEnv)...)
	var log strings.Builder
	cmd.Stderr = &log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	failed := func(err error) ([]Result, error) {
		cancel()
		cmd.Wait()
		return nil, fmt.Errorf("%s: %v\n%s", fw, err, lastLines(log.String(), 20))
	}
	lines := bufio.NewScanner(stdout)
	var addrs []string // in the order of scs
	for lines.Scan() && lines.Text() != "ready" {
		if f := strings.Fields(lines.Text()); len(f) == 3 && f[0] == "addr" && len(addrs) < len(scs) && f[1] == scs[len(addrs)] {
			addrs = append(addrs, f[2])
		}
	}
	if len(addrs) != len(scs) {
		return failed(errors.New("the server did not start"))
	}
	do := func(command string) error {
		if (command == "instrument" || command == "uninstrument") && !switchable {
			return nil
		}
		if _, err := io.WriteString(stdin, command+"\n"); err != nil {
			return err
		}
		if !lines.Scan() || lines.Text() != "ok" {
			return fmt.Errorf("no answer to %s: %v", command, cmp.Or(lines.Err(), io.ErrUnexpectedEOF))
		}
		return nil
	}
	pid := cmd.Process.Pid // valgrind runs the tool in the process it was started as
	paced := func(c *httpserve.Client, n int) error {
		return c.SendPaced(n, func() error { return waitIdle(pid) })
	}
	counts := make([]int, len(scs))
	for i, sc := range scs {
		reqs, err := httpserve.Requests(sc)
		if err != nil {
			return failed(err)
		}
		per := len(reqs) // github-all: 203, each route in turn
		counts[i] = roundUp(s.Requests, per)
		c, err := httpserve.Dial(addrs[i], reqs, 1)
		if err != nil {
			return failed(err)
		}
		if err := c.SendPipelined(roundUp(max(s.Warmup, per), per), pipelineWindow); err != nil {
			return failed(fmt.Errorf("%s warm-up: %v", sc, err))
		}
		if err := paced(c, roundUp(s.Settle, per)); err != nil {
			return failed(fmt.Errorf("%s warm-up: %v", sc, err))
		}
		for _, step := range []string{"instrument", "mark"} {
			if err := do(step); err != nil {
				return failed(err)
			}
		}
		if s.Pipeline > 0 {
			err = c.SendPipelined(counts[i], s.Pipeline)
		} else {
			err = paced(c, counts[i])
		}
		if err != nil {
			return failed(fmt.Errorf("%s: %v", sc, err))
		}
		for _, step := range []string{"mark", "uninstrument"} {
			if err := do(step); err != nil {
				return failed(err)
			}
		}
		c.Close()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("%s: valgrind: %v\n%s", fw, err, lastLines(log.String(), 20))
	}
	parts, err := readParts(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", fw, err)
	}
	var res []Result
	for i, sc := range scs {
		total, ok := parts[2*i+2] // part 2i+1 is the set-up or the warm-up, 2i+2 the measured requests
		if !ok {
			return nil, fmt.Errorf("%s: callgrind wrote no part %d (of %d)", fw, 2*i+2, len(parts))
		}
		res = append(res, Result{Scenario: sc, Framework: fw, Instructions: int64(math.Round(float64(total) / float64(counts[i])))})
	}
	return res, nil
}

// pipelineWindow is how many requests the pipelined sends keep in flight.
const pipelineWindow = 64

// waitIdle returns once the server process is idle, twice in a row: every
// thread blocked in futex (parked) or nanosleep (sysmon) but one in
// epoll_wait (the poller, waiting for the next request). Sent then, every
// request finds the server in the same state and takes the same path
// through the runtime; sent at once, it would race the end of the previous
// one (net/http's background read, the poller), and how that race goes
// depends on timing.
func waitIdle(pid int) error {
	deadline := time.Now().Add(20 * time.Second)
	for settled := 0; settled < 2; {
		idle, err := processIdle(pid)
		if err != nil {
			return err
		}
		if idle {
			settled++
		} else {
			settled = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not go idle (every thread in futex or nanosleep but one in epoll_wait) within 20 s")
		}
		time.Sleep(20 * time.Microsecond)
	}
	return nil
}

// processIdle reads the system call every thread of pid is blocked in.
func processIdle(pid int) (bool, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	polling := 0
	for _, t := range tasks {
		raw, err := os.ReadFile(filepath.Join(dir, t.Name(), "syscall"))
		if err != nil {
			return false, fmt.Errorf("%v (the paced mode reads which system call each server thread is in)", err)
		}
		nr, _, _ := strings.Cut(string(raw), " ")
		switch nr {
		case sysFutex, sysNanosleep:
		case sysEpollWait, sysEpollPwait, sysEpollPwait2:
			polling++
		default: // running, or in another call (such as read, waiting for valgrind's lock)
			return false, nil
		}
	}
	return polling == 1, nil
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

var partLine = regexp.MustCompile(`(?m)^part: (\d+)$`)
var summaryLine = regexp.MustCompile(`(?m)^summary: (\d+)$`)

// readParts reads the dumps callgrind wrote at each mark (out.1, out.2, ...)
// and at exit (out): part number -> instructions.
func readParts(out string) (map[int]uint64, error) {
	files, err := filepath.Glob(out + ".*")
	if err != nil {
		return nil, err
	}
	parts := map[int]uint64{}
	for _, f := range append(files, out) {
		if _, err := strconv.Atoi(strings.TrimPrefix(f, out+".")); f != out && err != nil {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, s := partLine.FindSubmatch(raw), summaryLine.FindSubmatch(raw)
		if p == nil || s == nil {
			return nil, fmt.Errorf("%s: no part or summary line", f)
		}
		part, _ := strconv.Atoi(string(p[1]))
		parts[part], _ = strconv.ParseUint(string(s[1]), 10, 64)
	}
	return parts, nil
}

func printTable(w io.Writer, results []Result) {
	fmt.Fprintf(w, "%-16s %-11s %12s\n", "scenario", "framework", "instr/req")
	for _, r := range results {
		fmt.Fprintf(w, "%-16s %-11s %12d\n", r.Scenario, r.Framework, r.Instructions)
	}
	for _, r := range ratios(results) {
		fmt.Fprintf(w, "ratio %-16s %s/%s %.3f\n", r.Scenario, r.Framework, r.Over, r.Ratio)
	}
}

// writeMarkdown writes the results as a table with what made them; for the
// headers-N scenarios it adds the cost per header line over headers-0.
func writeMarkdown(file string, results []Result, s Settings) error {
	zero := map[string]int64{}
	for _, r := range results {
		if r.Scenario == httpserve.HeadersPrefix+"0" {
			zero[r.Framework] = r.Instructions
		}
	}
	var b strings.Builder
	if len(zero) > 0 {
		fmt.Fprintf(&b, "# What net/http costs per response header line\n\n")
	} else {
		fmt.Fprintf(&b, "# Instructions per request over real HTTP\n\n")
	}
	fmt.Fprintf(&b, "Command: `bench/instr-gate.sh %s`. callgrind (%s) on the server process only (user space), with %s; "+
		"per scenario %d pipelined and %d paced warm-up requests, then %d measured requests on one keep-alive connection, "+
		"each sent once the server is idle (bench/instr-gate.sh explains why); "+
		"commit %s, %s/%s, %s.\n\n", shownArgs(), valgrindVersion(), serverEnv, s.Warmup, s.Settle, s.Requests,
		commit(), runtime.Version(), runtime.GOARCH, kernel())
	fmt.Fprintf(&b, "| scenario | framework | instructions per request |")
	if len(zero) > 0 {
		fmt.Fprintf(&b, " over headers-0 | per header line |")
	}
	fmt.Fprintf(&b, "\n|---|---|---:|")
	if len(zero) > 0 {
		fmt.Fprintf(&b, "---:|---:|")
	}
	b.WriteString("\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %d |", r.Scenario, r.Framework, r.Instructions)
		if z, ok := zero[r.Framework]; ok {
			n, ok := httpserve.HeaderLineCount(r.Scenario)
			if !ok || n == 0 {
				fmt.Fprintf(&b, " %+d | - |", r.Instructions-z)
			} else {
				fmt.Fprintf(&b, " %+d | %d |", r.Instructions-z, int64(math.Round(float64(r.Instructions-z)/float64(n))))
			}
		}
		b.WriteString("\n")
	}
	if len(zero) > 0 {
		var lines []string
		for _, kv := range httpserve.HeaderLines {
			lines = append(lines, "`"+kv[0]+"`")
		}
		fmt.Fprintf(&b, "\nheaders-N: a plain `http.HandlerFunc` on the zero-value `http.Server` (no router, no Plinth) answers `GET /` "+
			"with `Hello, World!` as `text/plain`, after putting the first N of these header lines into its header map "+
			"(pre-built values, no allocation of its own): %s. headers-4 is the middleware scenario's four; "+
			"headers-10 is helmet's set without HSTS, with helmet's long CSP (bench/internal/httpserve/scenarios.go). "+
			"headers-default is the same response with the %d lines `plinth.New()` adds to a response that is not a document: %s. "+
			"net/http writes Date, Content-Length and Content-Type besides.\n", strings.Join(lines, ", "), len(httpserve.DefaultLayerLines), defaultLines())
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "wrote", file)
	return nil
}

// defaultLines lists httpserve.DefaultLayerLines for the table's note.
func defaultLines() string {
	var lines []string
	for _, kv := range httpserve.DefaultLayerLines {
		lines = append(lines, "`"+kv[0]+": "+kv[1]+"`")
	}
	return strings.Join(lines, ", ")
}

// shownArgs are the arguments as given to instr-gate.sh (less the -instr it
// adds).
func shownArgs() string {
	var out []string
	for i := 1; i < len(os.Args); i++ {
		if a := os.Args[i]; a == "-instr" || a == "--instr" {
			i++
		} else if !strings.HasPrefix(a, "-instr=") && !strings.HasPrefix(a, "--instr=") {
			out = append(out, a)
		}
	}
	return strings.Join(out, " ")
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "none"
	}
	c := strings.TrimSpace(string(out))
	// Tracked changes only (untracked results do not change the code); no
	// index refresh, so that nothing is written to the repository.
	if st, err := exec.Command("git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "-dirty"
	}
	return c
}

func valgrindVersion() string {
	out, err := exec.Command("valgrind", "--version").Output()
	if err != nil {
		return "valgrind?"
	}
	return strings.TrimSpace(string(out))
}

func kernel() string {
	raw, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return runtime.GOOS + " " + strings.TrimSpace(string(raw))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
