package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// machineFacts fills in the machine, the toolchain, the commit and the
// services' versions.
func machineFacts(m *Meta, o options) {
	m.Nproc = runtime.NumCPU()
	m.Go = runtime.Version()
	m.Commit = firstLine(output("git", "-C", o.repo, "rev-parse", "--short", "HEAD"))
	if strings.TrimSpace(output("git", "-C", o.repo, "status", "--porcelain")) != "" {
		m.Commit += "-dirty"
	}
	m.Kernel = "Linux " + firstLine(output("uname", "-r"))
	m.CPU = cpuModel()
	switch o.lb {
	case "haproxy":
		m.LBVersion = firstLine(output("haproxy", "-v"))
	case "nginx":
		m.LBVersion = firstLine(output("nginx", "-v"))
	}
	m.Postgres = strings.TrimPrefix(firstLine(output(filepath.Join(pgBin, "postgres"), "--version")), "postgres (PostgreSQL) ")
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		m.HarnessCPUS = round(float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9, 1)
	}
	m.Redis = firstLine(output("redis-server", "--version"))
	if f := strings.Fields(m.Redis); len(f) > 2 {
		m.Redis = strings.TrimPrefix(f[2], "v=")
	}
}

// output runs a command and returns its output, standard error included
// ("" when it fails to start).
func output(name string, args ...string) string {
	b, _ := exec.Command(name, args...).CombinedOutput()
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// cpuModel is /proc/cpuinfo's first model name.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// checkForwardedFor checks that the app sees each client's address
// (X-Forwarded-For, appended to by the load balancer, read through
// PLINTH_TRUSTED_PROXIES) and not the load balancer's: after the sign-ins,
// the rate-limit store (Redis database 2) holds keys naming the clients'
// 10.1.x.x addresses.
func (r *rehearsal) checkForwardedFor(ctx context.Context) string {
	clientKeys, err := r.redis.keys(ctx, 2, "*10.1.*")
	if err != nil {
		return fmt.Sprintf("X-Forwarded-For: could not read the rate-limit store: %v", err)
	}
	proxyKeys, _ := r.redis.keys(ctx, 2, "*127.0.0.1*")
	all, _ := r.redis.keys(ctx, 2, "*")
	switch {
	case len(clientKeys) > 0 && len(proxyKeys) == 0:
		return fmt.Sprintf("X-Forwarded-For: the app keys its rate limits by the client's address (%d of %d keys in Redis db 2 name a 10.1.x.x client, e.g. %q; none names 127.0.0.1)",
			len(clientKeys), len(all), clientKeys[0])
	case len(proxyKeys) > 0:
		return fmt.Sprintf("X-Forwarded-For: WARNING: %d keys in Redis db 2 name 127.0.0.1 (the load balancer), e.g. %q: the app does not see the clients' addresses", len(proxyKeys), proxyKeys[0])
	}
	return fmt.Sprintf("X-Forwarded-For: not checked: no key of Redis db 2 names an address (%d keys)", len(all))
}

// jsonDecode decodes one JSON value from r.
func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
