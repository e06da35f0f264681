package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

const devUsage = `Usage: plinth dev [PKG]

Builds the program in PKG (default .), runs it, and rebuilds and restarts it
when a source, template or static file of its module changes. The old
process is stopped gracefully (SIGTERM, then SIGKILL after 10s) once the
new build succeeds; a failed build is reported once and the old process
keeps running. Stop with Ctrl-C.
`

// The dev loop's timing.
const (
	devPoll        = 300 * time.Millisecond // how often the files are checked
	devMaxSettle   = 5 * time.Second        // longest wait for saving to stop
	devStopTimeout = 10 * time.Second       // SIGTERM to SIGKILL
)

// watchedExt are the extensions of the files whose changes rebuild and
// restart the program: Go sources (not tests), templates and static
// assets (read at run time or embedded), and SQL (embedded migrations).
var watchedExt = []string{
	".go", ".html", ".htm", ".tmpl", ".gohtml", ".tpl",
	".css", ".js", ".mjs", ".map", ".json", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico",
	".woff", ".woff2", ".txt", ".sql", ".yaml", ".yml", ".toml",
}

// cmdDev is `plinth dev`.
func cmdDev(env *environment, args []string) error {
	fl := flag.NewFlagSet("dev", flag.ContinueOnError)
	fl.Usage = func() { fmt.Fprint(fl.Output(), devUsage) }
	pos, err := parseFlags(fl, args, env.stderr)
	if err != nil {
		return err
	}
	pkg, err := onePackage("dev", pos)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return devLoop(ctx, env, pkg)
}

// devLoop builds and runs pkg, and again after every settled change to
// its module's files, until ctx ends; it then stops the program and
// returns nil.
func devLoop(ctx context.Context, env *environment, pkg string) error {
	root, err := moduleDir(env, pkg)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "plinth-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logf := func(format string, args ...any) { fmt.Fprintf(env.stderr, "plinth dev: "+format+"\n", args...) }
	logf("watching %s (every %v)", root, devPoll)

	var proc *devProcess
	defer func() { proc.stop(devStopTimeout) }()
	builds := 0
	rebuild := func() {
		builds++
		bin := filepath.Join(tmp, fmt.Sprintf("app-%d", builds))
		var out bytes.Buffer
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Env, cmd.Dir = env.environ(), env.dir
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			keeps := ""
			if proc.running() {
				keeps = "; the previous build keeps running"
			}
			logf("build failed%s. Fix it and save: nothing is rebuilt until a file changes.\n%s", keeps, strings.TrimRight(out.String(), "\n"))
			return
		}
		if proc.running() {
			logf("built in %v; stopping the old process", time.Since(start).Round(time.Millisecond))
			proc.stop(devStopTimeout)
		} else {
			logf("built in %v; starting", time.Since(start).Round(time.Millisecond))
		}
		if proc != nil {
			os.Remove(proc.bin)
		}
		proc, err = startProcess(env, bin)
		if err != nil {
			logf("cannot start the program: %v", err)
		}
	}

	snap := snapshot(root)
	rebuild()
	tick := time.NewTicker(devPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			logf("stopping")
			return nil
		case <-proc.exited():
			logf("the program exited (%s); waiting for a change to rebuild", proc.status())
			os.Remove(proc.bin)
			proc = nil
		case <-tick.C:
			cur := snapshot(root)
			changed := diff(snap, cur)
			if len(changed) == 0 {
				continue
			}
			// Settle: wait until a whole poll interval passes without a
			// change, so that saving many files gives one rebuild.
			for deadline := time.Now().Add(devMaxSettle); time.Now().Before(deadline); {
				select {
				case <-ctx.Done():
					logf("stopping")
					return nil
				case <-time.After(devPoll):
				}
				next := snapshot(root)
				more := diff(cur, next)
				cur = next
				if len(more) == 0 {
					break
				}
				changed = append(changed, more...)
			}
			snap = cur
			logf("changed: %s", summary(root, changed))
			rebuild()
		}
	}
}

// moduleDir returns the root directory of the module of package pkg (the
// package's own directory outside a module).
func moduleDir(env *environment, pkg string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command("go", "list", "-e", "-f", "{{.Dir}}\t{{with .Module}}{{.Dir}}{{end}}\t{{.Name}}", pkg)
	cmd.Env, cmd.Dir = env.environ(), env.dir
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go list %s: %v\n%s", pkg, err, errOut.String())
	}
	f := strings.Split(strings.TrimSpace(out.String()), "\t")
	if len(f) != 3 || f[0] == "" {
		return "", fmt.Errorf("go list %s: no package directory (%q)", pkg, out.String())
	}
	if f[2] != "" && f[2] != "main" {
		return "", usagef("dev: %s is package %s, not a program (package main)", pkg, f[2])
	}
	if f[1] != "" {
		return f[1], nil
	}
	return f[0], nil
}

// fileState is what the dev loop compares to notice a change.
type fileState struct {
	mod  time.Time
	size int64
}

// snapshot returns the state of every watched file below root, skipping
// hidden and underscore directories, testdata, vendor and node_modules.
func snapshot(root string) map[string]fileState {
	files := map[string]fileState{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed while walking
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !watched(name) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files[p] = fileState{mod: info.ModTime(), size: info.Size()}
		}
		return nil
	})
	return files
}

// watched reports whether a file named name is one whose change rebuilds.
func watched(name string) bool {
	if name == "go.mod" || name == "go.sum" {
		return true
	}
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "_test.go") {
		return false
	}
	return slices.Contains(watchedExt, strings.ToLower(filepath.Ext(name)))
}

// diff returns the files added, removed or changed from a to b.
func diff(a, b map[string]fileState) []string {
	var out []string
	for p, st := range b {
		if old, ok := a[p]; !ok || !old.mod.Equal(st.mod) || old.size != st.size {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// summary names up to three of the changed files, relative to root.
func summary(root string, changed []string) string {
	set := map[string]bool{}
	for _, p := range changed {
		if rel, err := filepath.Rel(root, p); err == nil {
			p = rel
		}
		set[p] = true
	}
	names := slices.Sorted(maps.Keys(set))
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// devProcess is the running program. Its methods accept a nil receiver:
// no program.
type devProcess struct {
	bin  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, once done
}

// startProcess starts bin with env's environment, directory and output.
func startProcess(env *environment, bin string) (*devProcess, error) {
	cmd := exec.Command(bin)
	cmd.Env, cmd.Dir = env.environ(), env.dir
	cmd.Stdout, cmd.Stderr = env.stdout, env.stderr
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &devProcess{bin: bin, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited returns a channel closed when the process exits; nil (never
// ready) without a process.
func (p *devProcess) exited() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.done
}

func (p *devProcess) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// status describes how the process ended.
func (p *devProcess) status() string {
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return "status 0"
	case errors.As(p.err, &ee):
		return ee.ProcessState.String()
	}
	return p.err.Error()
}

// stop asks the process to drain and exit (SIGTERM: Plinth's Run drains
// on it), waits up to timeout, then kills it, and waits for it.
func (p *devProcess) stop(timeout time.Duration) {
	if !p.running() {
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.cmd.Process.Kill() // no SIGTERM on this system
	}
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
	}
}
