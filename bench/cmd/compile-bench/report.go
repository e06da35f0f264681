package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/plinth-go/plinth/bench/internal/results"
)

// EveryRunHeading starts the part of a results file that bench/cmd/report
// leaves out of BENCHMARKS.md: the figures of every run.
const EveryRunHeading = "## Every run"

func writeResults(c *config, res *measurement) error {
	var w io.Writer = os.Stdout
	var f *os.File
	if c.out != "-" {
		var err error
		if f, err = os.Create(c.out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	writeMarkdown(bw, c, res, machine(c.root))
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		logf("wrote %s", c.out)
	}
	return nil
}

// machineInfo describes where and with what the figures were taken.
type machineInfo struct {
	CPUs, CPUModel, Kernel, Memory, GoVersion, CGO, GOFLAGS, Commit string
}

func machine(root string) machineInfo {
	m := machineInfo{CPUs: fmt.Sprint(runtime.NumCPU()), CPUModel: "unknown", Kernel: "unknown", Memory: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.Memory = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
		}
	}
	m.GoVersion = output(root, "go", "env", "GOVERSION") + " " + output(root, "go", "env", "GOOS") + "/" + output(root, "go", "env", "GOARCH")
	m.CGO = output(root, "go", "env", "CGO_ENABLED")
	m.GOFLAGS = output(root, "go", "env", "GOFLAGS")
	m.Commit = output(root, "git", "rev-parse", "--short=12", "HEAD")
	if output(root, "git", "status", "--porcelain") != "" {
		m.Commit += "-dirty"
	}
	return m
}

func output(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// median is the median of one step's figure over an app's runs.
func (r *appResult) median(step string, cpu bool) float64 {
	var v []float64
	for _, run := range r.Runs {
		t := run[step]
		if cpu {
			v = append(v, t.CPU)
		} else {
			v = append(v, t.Wall)
		}
	}
	return results.Median(v)
}

func mib(b int64) string { return fmt.Sprintf("%.2f", float64(b)/(1<<20)) }

func secs(v float64) string { return fmt.Sprintf("%.2f", v) }

func writeMarkdown(w io.Writer, c *config, res *measurement, m machineInfo) {
	fmt.Fprintf(w, "# Build time and binary size (%s)\n\n", res.Started.Format("2006-01-02"))
	fmt.Fprintf(w, "Command: `%s` (%s to %s UTC).\n\n", c.command, res.Started.Format("2006-01-02 15:04"), res.Finished.Format("15:04"))
	fmt.Fprintf(w, "- machine: %s CPUs (%s), Linux %s, %s RAM, shared with other tenants; load average %s before the timed runs, %s after\n",
		m.CPUs, m.CPUModel, m.Kernel, m.Memory, res.LoadBefore, res.LoadAfter)
	fmt.Fprintf(w, "- %s, CGO_ENABLED=%s, GOFLAGS=%s; `go build` runs as many jobs as there are CPUs\n", m.GoVersion, m.CGO, orNone(m.GOFLAGS))
	fmt.Fprintf(w, "- commit: %s\n", m.Commit)
	fmt.Fprintf(w, "- apps: Plinth's written at run time by `go run ./cmd/plinth new DIR --template minimal|api --replace CHECKOUT`, CHECKOUT being a copy "+
		"of the working tree taken at the start (the commit above, with its uncommitted changes); the peers' in "+
		"`bench/compile/apps/` (std: net/http alone; huma v2 on its net/http adapter humago; fiber v2); every `api` app keeps its tasks in SQLite "+
		"through modernc.org/sqlite (pure Go)\n")
	rounds := fmt.Sprintf("median of %d run(s) per app", res.Rounds)
	if res.Rounds < c.runs {
		rounds = fmt.Sprintf("INCOMPLETE: %d of %d rounds so far; median of those", res.Rounds, c.runs)
	}
	fmt.Fprintf(w, "- %s, in rounds (run 1 of every app, then run 2, ...); every go command with GOWORK=off, and GOPROXY=off while timed\n\n", rounds)

	fmt.Fprint(w, `Columns: **cold** is `+"`go build`"+` with an empty GOCACHE (the standard library is compiled too), modules already
downloaded; **vet** is `+"`go vet ./...`"+` right after it (build cache warm, vet's facts about the dependencies still to compute);
**rebuild** is `+"`go build`"+` after changing one handler's response string; **vet after edit** is `+"`go vet ./...`"+` after that
edit. Times in seconds, wall clock / CPU (user+system of the go command and of the compiler, linker and vet processes it
ran). CPU time is the stable figure: the machine is shared, and wall time moves with the other tenants' load.
**binary** and **stripped** (`+"`-ldflags='-s -w'`"+`) in MiB; **go list -m all**: lines of that command (the app's own
module included); **modules linked**: the `+"`dep`"+` lines of `+"`go version -m`"+` on the binary; **packages**: the packages
linked (`+"`go list -deps`"+`), standard library + others (the app's own included).

`)
	fmt.Fprintln(w, "| app | cold wall | cold CPU | vet wall | vet CPU | rebuild wall | rebuild CPU | vet after edit wall | vet after edit CPU | binary MiB | stripped MiB | go list -m all | modules linked | packages (std + other) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range res.Apps {
		fmt.Fprintf(w, "| %s |", r.Name)
		for _, s := range steps {
			fmt.Fprintf(w, " %s | %s |", secs(r.median(s, false)), secs(r.median(s, true)))
		}
		fmt.Fprintf(w, " %s | %s | %d | %d | %d + %d |\n", mib(r.Size), mib(r.Stripped), r.ModulesListed, r.ModulesLinked, r.PackagesStd, r.PackagesMore)
	}
	fmt.Fprintln(w)
	for _, t := range templates {
		if line := comparison(res, t); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "%s\n\n", EveryRunHeading)
	fmt.Fprintln(w, "Load: the machine's 1-minute load average when the run started.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| app | run | load | cold wall | cold CPU | vet wall | vet CPU | rebuild wall | rebuild CPU | vet after edit wall | vet after edit CPU |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range res.Apps {
		for i, run := range r.Runs {
			fmt.Fprintf(w, "| %s | %d | %.1f |", r.Name, i+1, run[loadStep].Wall)
			for _, s := range steps {
				fmt.Fprintf(w, " %s | %s |", secs(run[s].Wall), secs(run[s].CPU))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| app | binary bytes | stripped bytes |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, r := range res.Apps {
		fmt.Fprintf(w, "| %s | %d | %d |\n", r.Name, r.Size, r.Stripped)
	}
}

// comparison says, for one template, where Plinth's app stands against
// each peer on cold-build CPU time and stripped size; "" without Plinth's.
func comparison(res *measurement, template string) string {
	var p *appResult
	var peers []*appResult
	for _, r := range res.Apps {
		if r.Template != template {
			continue
		}
		if r.Framework == "plinth" {
			p = r
		} else {
			peers = append(peers, r)
		}
	}
	if p == nil || len(peers) == 0 {
		return ""
	}
	var faster, slower, smaller, larger []string
	pc := p.median(stepCold, true)
	for _, r := range peers {
		if c := r.median(stepCold, true); pc < c {
			faster = append(faster, fmt.Sprintf("%s (%.2f×)", r.Framework, pc/c))
		} else {
			slower = append(slower, fmt.Sprintf("%s (%.2f×)", r.Framework, pc/c))
		}
		if p.Stripped < r.Stripped {
			smaller = append(smaller, fmt.Sprintf("%s (%.2f×)", r.Framework, float64(p.Stripped)/float64(r.Stripped)))
		} else {
			larger = append(larger, fmt.Sprintf("%s (%.2f×)", r.Framework, float64(p.Stripped)/float64(r.Stripped)))
		}
	}
	return fmt.Sprintf("- `%s`, Plinth's figure over each peer's: cold-build CPU lower than %s; not lower than %s. Stripped binary smaller than %s; not smaller than %s.",
		template, list(faster), list(slower), list(smaller), list(larger))
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	s = slices.Clone(s)
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
