package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The timed steps of one run of one app, in the order they run.
const (
	stepCold      = "cold build"
	stepVet       = "vet"
	stepRebuild   = "rebuild"
	stepVetEdited = "vet after edit"
)

var steps = []string{stepCold, stepVet, stepRebuild, stepVetEdited}

// timing is one timed command: wall clock and CPU (user+system of the go
// command and of the processes it waited for), in seconds.
type timing struct {
	Wall, CPU float64
}

// loadStep keys, in a run's map, the 1-minute load average when the run
// started (in Wall), for the record of every run.
const loadStep = "load"

// appResult is everything measured for one app.
type appResult struct {
	Name, Framework, Template string
	Runs                      []map[string]timing // per run, per step
	Size, Stripped            int64               // bytes
	ModulesListed             int                 // lines of `go list -m all` (the app's own module included)
	ModulesLinked             int                 // dep lines of `go version -m` on the binary
	PackagesStd, PackagesMore int                 // packages linked: standard library, others (the app's own included)
}

// measurement is a whole run of the benchmark.
type measurement struct {
	Started, Finished time.Time
	Apps              []*appResult
	LoadBefore        string
	LoadAfter         string
	Rounds            int // the rounds completed, of config.runs
}

// measure collects the static facts, then runs the timed rounds, writing
// the results after each round (so that a run cut short leaves the rounds
// it completed, saying so).
func measure(c *config, apps []*app) (*measurement, error) {
	res := &measurement{Started: time.Now().UTC(), LoadBefore: loadavg()}
	byName := map[string]*appResult{}
	for _, a := range apps {
		r := &appResult{Name: a.name, Framework: a.framework, Template: a.template}
		byName[a.name] = r
		res.Apps = append(res.Apps, r)
	}
	bin := filepath.Join(c.work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	// The static facts, once per app, with the default (warm) build cache.
	for _, a := range apps {
		if err := facts(a, byName[a.name], bin); err != nil {
			return nil, fmt.Errorf("%s: %w", a.name, err)
		}
	}
	for run := 1; run <= c.runs; run++ {
		for _, a := range apps {
			r := byName[a.name]
			t, err := measureRun(c, a, run, filepath.Join(bin, a.name))
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", a.name, run, err)
			}
			r.Runs = append(r.Runs, t)
			logf("run %d/%d %-15s cold %5.1fs wall %5.1fs CPU | vet %5.1fs / %5.1fs | rebuild %4.1fs / %4.1fs | vet after edit %4.1fs / %4.1fs",
				run, c.runs, a.name, t[stepCold].Wall, t[stepCold].CPU, t[stepVet].Wall, t[stepVet].CPU,
				t[stepRebuild].Wall, t[stepRebuild].CPU, t[stepVetEdited].Wall, t[stepVetEdited].CPU)
		}
		res.Rounds = run
		res.Finished = time.Now().UTC()
		res.LoadAfter = loadavg()
		if run < c.runs && c.out != "-" {
			if err := writeResults(c, res); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// measureRun is one run of one app: a cold build in a fresh GOCACHE, vet,
// an edit and a rebuild, vet again, all in that cache, which is removed
// after.
func measureRun(c *config, a *app, run int, binary string) (map[string]timing, error) {
	if err := a.restore(); err != nil {
		return nil, err
	}
	cache, err := os.MkdirTemp(c.work, "gocache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	env := []string{"GOCACHE=" + cache, "GOPROXY=off"}
	out := map[string]timing{loadStep: {Wall: load1()}}
	if out[stepCold], err = timed(a.dir, env, "build", "-o", binary, "."); err != nil {
		return nil, err
	}
	if out[stepVet], err = timed(a.dir, env, "vet", "./..."); err != nil {
		return nil, err
	}
	if err := a.edit(run); err != nil {
		return nil, err
	}
	if out[stepRebuild], err = timed(a.dir, env, "build", "-o", binary, "."); err != nil {
		return nil, err
	}
	if out[stepVetEdited], err = timed(a.dir, env, "vet", "./..."); err != nil {
		return nil, err
	}
	return out, a.restore()
}

// timed runs one go command and returns its wall clock and CPU time.
func timed(dir string, env []string, args ...string) (timing, error) {
	cmd := goCmd(dir, env, args...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return timing{}, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, output.Bytes())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return timing{Wall: wall.Seconds(), CPU: cpu.Seconds()}, nil
}

// facts records the sizes, the module counts and the packages linked.
func facts(a *app, r *appResult, bin string) error {
	if err := a.restore(); err != nil {
		return err
	}
	env := []string{"GOPROXY=off"}
	plain, stripped := filepath.Join(bin, a.name+"-facts"), filepath.Join(bin, a.name+"-stripped")
	for _, b := range []struct {
		file  string
		flags []string
	}{{plain, nil}, {stripped, []string{"-ldflags=-s -w"}}} {
		args := append(append([]string{"build"}, b.flags...), "-o", b.file, ".")
		if out, err := goCmd(a.dir, env, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var err error
	if r.Size, err = fileSize(plain); err != nil {
		return err
	}
	if r.Stripped, err = fileSize(stripped); err != nil {
		return err
	}
	out, err := goCmd(a.dir, env, "list", "-m", "all").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go list -m all: %v\n%s", err, out)
	}
	r.ModulesListed = countLines(out, func(string) bool { return true })
	if out, err = goCmd(a.dir, env, "version", "-m", plain).Output(); err != nil {
		return fmt.Errorf("go version -m: %w", err)
	}
	r.ModulesLinked = countLines(out, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "dep\t") })
	if out, err = goCmd(a.dir, env, "list", "-deps", "-f", "{{.Standard}}", ".").Output(); err != nil {
		return fmt.Errorf("go list -deps: %w", err)
	}
	r.PackagesStd = countLines(out, func(l string) bool { return l == "true" })
	r.PackagesMore = countLines(out, func(l string) bool { return l == "false" })
	return nil
}

func countLines(b []byte, keep func(string) bool) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" && keep(l) {
			n++
		}
	}
	return n
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// load1 is the 1-minute load average, -1 when unknown.
func load1() float64 {
	var v float64
	if _, err := fmt.Sscan(loadavg(), &v); err != nil {
		return -1
	}
	return v
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
