// Command scaleout rehearses a scale-out deployment of the example app
// examples/web: three instances behind haproxy (or nginx), sharing their
// own PostgreSQL and Redis, under an open-loop load of signed-in and
// anonymous clients with SSE streams and WebSockets open, through a series
// of events, and prints a table of what the clients saw in each.
//
//	cd bench && go run ./scaleout              # haproxy in front; under 3 minutes
//	cd bench && LB=nginx go run ./scaleout     # nginx in front
//	cd bench && go run ./scaleout -smoke       # under 90 s; exits 1 when a target fails
//
// The full run is by hand; .ci/run runs -smoke. It needs haproxy, nginx (nginx-light),
// redis-server and PostgreSQL 15 (apt-get install -y haproxy nginx-light
// redis-server postgresql-15) and runs as root: PostgreSQL runs as the
// postgres user (runuser). It never touches the machine's own PostgreSQL
// or Redis: everything runs on free ports from one temporary directory,
// removed at the end (-keep keeps it, with every process's log).
//
// The events, one after another under the load, each followed by a settle
// period (-settle) so that the recovery falls inside its window:
//
//	0 baseline (-baseline)
//	1 rolling upgrade: web-v2 renamed over the instances' binary, then each
//	  instance in turn gets SIGHUP (in-place upgrade, docs/deploy.md) and
//	  the next waits until its PID file changed, its /readyz is 200 and its
//	  /api/version says v2
//	2 SIGTERM web2, wait for its exit, start it again
//	3 SIGKILL web3, start it again after 1 s
//	4 Redis restart (redis-cli shutdown, 1 s stopped (-redis-down), start; append-only file)
//	5 PostgreSQL restart (pg_ctl restart -m fast)
//	6 load balancer reload (haproxy: SIGUSR2 to the master; nginx: SIGHUP)
//
// -smoke runs the baseline, the SIGTERM and the Redis restart at a lower
// rate, writes no results file and exits 1 when a target fails. The full
// run writes results/scaleout-<lb>-<date>.json and .md. Flags (and the
// environment variables they default from): -lb (LB), -rate (RATE),
// -clients (CLIENTS), -smoke (SMOKE=1), -streams, -baseline, -settle,
// -redis-down, -keep, -results, -write. README.md in this directory describes the
// load, the targets and the configuration.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	lb       string
	rate     float64
	clients  int
	streams  int
	smoke    bool
	keep     bool
	write    bool
	results  string
	baseline time.Duration
	settle   time.Duration
	// redisDown is how long Redis stays stopped in the Redis event
	// before it is started again.
	redisDown time.Duration
	repo      string
	events    []event
}

// rehearsal is one run: its processes and what the events act on.
type rehearsal struct {
	opts  options
	dir   string // the temporary directory
	procs *procs
	pg    *postgres
	redis *redisServer
	fleet *fleet
	lb    *loadBalancer
}

// started is when the command started, for the log's timestamps.
var started = time.Now()

// logf prints a progress line on standard error.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%6.1fs] %s\n", time.Since(started).Seconds(), fmt.Sprintf(format, args...))
}

func main() {
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleout:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, opts)
	stop()
	os.Exit(code)
}

// parseFlags reads the flags, defaulting from the environment.
func parseFlags(args []string) (options, error) {
	env := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("scaleout", flag.ContinueOnError)
	var o options
	var rate float64
	var clients int
	fs.StringVar(&o.lb, "lb", env("LB", "haproxy"), "load balancer: haproxy or nginx (LB)")
	fs.Float64Var(&rate, "rate", 0, "requests per second, all clients together (RATE; default 320, 128 with -smoke)")
	fs.IntVar(&clients, "clients", 0, "HTTP clients (CLIENTS; default 64)")
	fs.IntVar(&o.streams, "streams", 8, "SSE streams, and as many WebSockets, kept open")
	fs.BoolVar(&o.smoke, "smoke", env("SMOKE", "") == "1", "short run: baseline, SIGTERM, Redis restart; exit 1 on a FAIL (SMOKE=1)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, configurations)")
	fs.BoolVar(&o.write, "write", true, "write results/scaleout-<lb>-<date>.json and .md (never with -smoke)")
	fs.StringVar(&o.results, "results", "results", "the results directory")
	fs.DurationVar(&o.baseline, "baseline", 0, "baseline period (default 15s, 10s with -smoke)")
	fs.DurationVar(&o.settle, "settle", 0, "settle period after each event (default 12s, 8s with -smoke)")
	fs.DurationVar(&o.redisDown, "redis-down", time.Second, "how long Redis stays stopped in the Redis event (the issue's restart: about a second)")
	fs.StringVar(&o.repo, "repo", "", "the repository's root (default: the directory holding go.work above this one)")
	evs := fs.String("events", "", "the events to run, comma-separated kinds (default all; with -smoke baseline,sigterm,redis): "+kindList())
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if rate == 0 {
		def := "320"
		if o.smoke {
			def = "128"
		}
		if rate, err = strconv.ParseFloat(env("RATE", def), 64); err != nil {
			return o, fmt.Errorf("RATE: %w", err)
		}
	}
	if clients == 0 {
		if clients, err = strconv.Atoi(env("CLIENTS", "64")); err != nil {
			return o, fmt.Errorf("CLIENTS: %w", err)
		}
	}
	o.rate, o.clients = rate, clients
	if o.baseline == 0 {
		o.baseline = map[bool]time.Duration{false: 15 * time.Second, true: 10 * time.Second}[o.smoke]
	}
	if o.settle == 0 {
		o.settle = map[bool]time.Duration{false: 12 * time.Second, true: 8 * time.Second}[o.smoke]
	}
	if o.smoke {
		o.write = false
	}
	switch {
	case o.lb != "haproxy" && o.lb != "nginx":
		return o, fmt.Errorf("-lb (LB) %q: want haproxy or nginx", o.lb)
	case o.rate <= 0 || o.clients < 2 || o.streams < 0:
		return o, fmt.Errorf("-rate must be positive, -clients at least 2")
	}
	if o.repo == "" {
		if o.repo, err = findRepo(); err != nil {
			return o, err
		}
	}
	o.events = allEvents
	if o.smoke {
		o.events = smokeEvents
	}
	if *evs != "" {
		if o.events, err = selectEvents(*evs); err != nil {
			return o, err
		}
	}
	return o, nil
}

// findRepo returns the nearest directory above the working directory that
// holds go.work.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.work above %s: run from the repository's bench directory or give -repo", dir)
		}
	}
}

// run runs the rehearsal and returns the exit status.
func run(ctx context.Context, o options) int {
	for _, tool := range []string{"go", "runuser", "redis-server", "redis-cli", o.lb, filepath.Join(pgBin, "pg_ctl")} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "scaleout: %s not found (apt-get install -y haproxy nginx-light redis-server postgresql-15): %v\n", tool, err)
			return 2
		}
	}
	dir, err := os.MkdirTemp("", "scaleout-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleout:", err)
		return 1
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user reaches its cluster inside
		fmt.Fprintln(os.Stderr, "scaleout:", err)
		return 1
	}
	p, err := newProcs(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleout:", err)
		return 1
	}
	r := &rehearsal{opts: o, dir: dir, procs: p}
	defer r.cleanup()
	logf("temporary directory %s", dir)
	rep, err := r.rehearse(ctx)
	if err != nil {
		logf("scaleout: %v", err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	if o.smoke && rep.Totals.Result != "PASS" {
		return 1
	}
	return 0
}

// cleanup stops every process in order and removes the temporary
// directory (unless -keep).
func (r *rehearsal) cleanup() {
	logf("stopping everything")
	if r.lb != nil {
		r.lb.stop()
	}
	if r.fleet != nil {
		r.fleet.stopAll()
	}
	if r.redis != nil {
		_ = r.redis.procs.run(exec.Command("redis-cli", "-p", strconv.Itoa(r.redis.port), "shutdown", "nosave"), "")
	}
	if r.pg != nil {
		_ = r.pg.stop()
	}
	r.procs.killChildren(5 * time.Second)
	r.procs.close()
	if r.opts.keep {
		logf("kept %s", r.dir)
		return
	}
	_ = os.RemoveAll(r.dir)
}

// rehearse sets everything up, runs the load through the events and
// reports.
func (r *rehearsal) rehearse(ctx context.Context) (*Report, error) {
	o := r.opts
	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	pgPort, redisPort, lbPort, instPorts := ports[0], ports[1], ports[2], ports[3:]

	if err := r.build(); err != nil {
		return nil, err
	}
	logf("PostgreSQL on %d, Redis on %d", pgPort, redisPort)
	if r.pg, err = startPostgres(ctx, r.procs, r.dir, pgPort); err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	if r.redis, err = startRedis(r.procs, r.dir, redisPort); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.dir,
		"PLINTH_DATABASE_URL=" + r.pg.url("web"),
		"PLINTH_SESSION_STORE=" + r.redis.url(0),
		"PLINTH_CACHE_URL=" + r.redis.url(1),
		"PLINTH_RATE_LIMIT_STORE=" + r.redis.url(2),
		"PLINTH_TRUSTED_PROXIES=127.0.0.1/32",
		"PLINTH_UPGRADE=on",
		"PLINTH_DRAIN_DELAY=2s",
		"PLINTH_SHUTDOWN_TIMEOUT=10s",
		"PLINTH_CSRF_KEYS=" + base64.StdEncoding.EncodeToString(key),
	}
	r.fleet = newFleet(r.procs, r.dir, r.binPath(), env, instPorts)
	if err := r.startFleet(); err != nil {
		return nil, err
	}
	r.lb, err = startLB(r.procs, o.lb, lbConfig{Dir: r.dir, Port: lbPort, Workers: 2, Servers: r.fleet.servers()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.lb, err)
	}
	base := r.lb.url("")
	logf("%s on %s in front of %d instances", o.lb, base, len(r.fleet.inst))
	if err := r.waitBalanced(base); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	rec := newRecorder()
	sh := &shared{rec: rec, servers: r.fleet.servers(), quotes: map[int]string{}, runID: runID()}
	clients := make([]*client, o.clients)
	signed := 0
	for i := range clients {
		clients[i] = newClient(i, i%2 == 0, base, sh)
		if clients[i].signed {
			signed++
		}
	}
	t := time.Now()
	if err := signInAll(ctx, clients); err != nil {
		return nil, err
	}
	logf("%d clients signed in, %d anonymous with a CSRF token, in %.1f s", signed, len(clients)-signed, time.Since(t).Seconds())
	checks := []string{r.checkForwardedFor(ctx)}
	logf("%s", checks[0])

	monCtx, monStop := context.WithCancel(context.Background())
	monDone := make(chan struct{})
	go func() { watchInstances(monCtx, r.fleet, rec); close(monDone) }()
	rtCtx, rtStop := context.WithCancel(context.Background())
	rt := &realtime{base: base, servers: sh.servers, rec: rec}
	rt.start(rtCtx, o.streams)
	time.Sleep(1500 * time.Millisecond) // the streams open before the baseline starts
	l := newLoad(clients, o.rate)
	t0 := time.Now()
	l.start(t0)
	logf("load: %d clients at %g requests/s, %d SSE streams and %d WebSockets", len(clients), o.rate, o.streams, o.streams)

	windows := r.runEvents(ctx, o.events)
	if len(windows) > 0 {
		windows[0].Start = t0
	}
	logf("stopping the load")
	if err := l.stop(); err != nil {
		logf("%v", err)
	}
	loadEnd := time.Now()
	rtStop()
	rt.wait()

	jobsWait, runs := "no job enqueued", map[string]int{}
	if len(rec.jobs) > 0 && ctx.Err() == nil {
		jobsWait, runs = r.waitJobs(ctx, rec.jobs)
		logf("jobs: %s", jobsWait)
	}
	monStop()
	<-monDone
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	d := &runData{t0: t0, windows: windows, results: rec.results, closes: rec.closes, signOuts: rec.signOuts,
		jobs: rec.jobs, runs: runs, rss: rec.rss, peakHWM: rec.peakHWM}
	events, tot := aggregate(d)
	rep := &Report{
		Title:   fmt.Sprintf("Scale-out rehearsal: examples/web behind %s (%s)", o.lb, time.Now().UTC().Format("2006-01-02")),
		Date:    time.Now().UTC().Format("2006-01-02"),
		Command: command(o),
		Meta: Meta{LB: o.lb, Smoke: o.smoke, Rate: o.rate, Clients: o.clients, SignedIn: signed, Streams: o.streams,
			Instances: len(r.fleet.inst), Baseline: o.baseline.String(), Settle: o.settle.String(), LoadS: secs(loadEnd.Sub(t0))},
		Events: events, Totals: tot,
		Samples: samples(d, 20, false), ExpectedSamples: samples(d, 5, true), StreamSamples: streamSamples(d, 20),
		Routes: routeStats(d),
		Checks: checks, Cache: rec.cache, SignIns: rec.signIns, JobsWait: jobsWait,
		JobsRanUnacknowledged: ranUnacknowledged(runs, rec.jobs, sh.runID),
		Config:                Config{InstanceEnv: publicEnv(env), LBConfig: readFile(r.lb.cfgFile)},
	}
	machineFacts(&rep.Meta, o)
	if err := writeCSV(filepath.Join(r.dir, "requests.csv"), t0, rec.results); err != nil {
		logf("requests.csv: %v", err)
	}
	var md strings.Builder
	writeMarkdown(&md, rep)
	fmt.Print(md.String())
	if o.write {
		files, err := writeResults(filepath.Join(o.repo, "bench", o.results), rep)
		if err != nil {
			return rep, err
		}
		logf("wrote %s", strings.Join(files, ", "))
	}
	logf("overall: %s", tot.Result)
	return rep, nil
}

// build builds web-v1 (and web-v2 when the rolling upgrade is to run) from the repository's
// examples/web, with main.version set, and copies web-v1 to the path the
// instances start from.
func (r *rehearsal) build() error {
	versions := []string{"v1"}
	if slices.ContainsFunc(r.opts.events, func(e event) bool { return e.kind == "upgrade" }) {
		versions = append(versions, "v2")
	}
	for _, v := range versions {
		t := time.Now()
		cmd := exec.Command("go", "build", "-o", filepath.Join(r.dir, "web-"+v), "-ldflags", "-X main.version="+v, "./examples/web")
		cmd.Dir = r.opts.repo
		if err := r.procs.run(cmd, "build.log"); err != nil {
			return fmt.Errorf("build %s: %w", v, err)
		}
		logf("built web-%s in %.1f s", v, time.Since(t).Seconds())
	}
	return copyFile(filepath.Join(r.dir, "web-v1"), r.binPath())
}

// binPath is the path the instances are started from: a copy of web-v1,
// over which the rolling upgrade renames web-v2.
func (r *rehearsal) binPath() string { return filepath.Join(r.dir, "web") }

// startFleet starts the first instance alone (it runs the migrations),
// then the others together.
func (r *rehearsal) startFleet() error {
	t := time.Now()
	if _, err := r.fleet.start(0, 60*time.Second); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(r.fleet.inst))
	for i := 1; i < len(r.fleet.inst); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.fleet.start(i, 60*time.Second)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	logf("%d instances ready in %.1f s", len(r.fleet.inst), time.Since(t).Seconds())
	return nil
}

// waitBalanced waits until the load balancer reaches every instance
// (their health checks passed): /api/version through it names each PID.
func (r *rehearsal) waitBalanced(base string) error {
	want := map[int]bool{}
	for _, in := range r.fleet.inst {
		want[in.pid()] = true
	}
	seen := map[int]bool{}
	return waitFor(20*time.Second, 100*time.Millisecond, func() error {
		resp, err := r.fleet.probe.Get(base + "/api/version")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var v versionAnswer
		if err := jsonDecode(resp.Body, &v); err != nil {
			return fmt.Errorf("GET /api/version through %s: %d: %w", r.opts.lb, resp.StatusCode, err)
		}
		seen[v.PID] = true
		for pid := range want {
			if !seen[pid] {
				return fmt.Errorf("%s has not yet reached pid %d (seen %v)", r.opts.lb, pid, seen)
			}
		}
		return nil
	})
}

// runID is a random prefix for this run's job tokens.
func runID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// command is the command line that reproduces the run.
func command(o options) string {
	var b strings.Builder
	b.WriteString("cd bench && ")
	if o.lb != "haproxy" {
		b.WriteString("LB=" + o.lb + " ")
	}
	b.WriteString("go run ./scaleout")
	for _, a := range os.Args[1:] {
		if !strings.HasPrefix(a, "-lb") {
			b.WriteString(" " + a)
		}
	}
	for _, v := range []string{"RATE", "CLIENTS"} {
		if os.Getenv(v) != "" {
			return v + "=" + os.Getenv(v) + " " + b.String()
		}
	}
	return b.String()
}

// publicEnv is the instances' environment with the CSRF key elided.
func publicEnv(env []string) []string {
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "PATH", "HOME":
			continue
		case "PLINTH_CSRF_KEYS":
			e = k + "=<one random 32-byte key, base64, shared by every instance>"
		}
		out = append(out, e)
	}
	return append(out, "PLINTH_ADDR=127.0.0.1:<port of the instance>", "PLINTH_PID_FILE=<dir>/web-<n>.pid")
}

// readFile returns a file's text, "" when it cannot be read.
func readFile(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}
