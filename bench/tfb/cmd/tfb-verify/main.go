// Command tfb-verify checks a running server against the TechEmpower
// Framework Benchmarks rules and prints one line per check:
//
//	PASS|WARN|FAIL test check [URL]: detail
//
// It exits 1 if any check fails, 2 on bad usage.
//
//	go run ./cmd/tfb-verify -url http://127.0.0.1:8080 \
//		-db 'postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable' \
//		[-tests json,db,queries,fortunes,updates,plaintext,cached-queries] [-concurrency 512]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/plinth-go/plinth/bench/tfb/internal/verify"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tfb-verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", "http://127.0.0.1:8080", "server base URL")
	db := fs.String("db", "", "benchmark database URL (pgx/libpq); without it the updates persistence and query-count checks are skipped")
	tests := fs.String("tests", strings.Join(verify.AllTests(), ","), "comma-separated test types to verify")
	conc := fs.Int("concurrency", 512, "requests sent at once by the query-count check")
	fortunes := fs.String("fortunes", "testdata/fortunes.tsv", "the fortune table's rows (id<TAB>message), relative to the working directory")
	statsWait := fs.Duration("stats-timeout", 12*time.Second, "longest wait for table statistics when pg_stat_statements is unavailable")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tfb-verify: unexpected arguments %q\n", fs.Args())
		return 2
	}

	cfg := verify.Config{
		BaseURL:      *base,
		DatabaseURL:  *db,
		Concurrency:  *conc,
		StatsTimeout: *statsWait,
		Report:       func(r verify.Result) { fmt.Fprintln(stdout, r) },
	}
	for _, t := range strings.Split(*tests, ",") {
		if t = strings.TrimSpace(t); t != "" {
			cfg.Tests = append(cfg.Tests, t)
		}
	}
	if runtime.NumCPU() <= 2 {
		cfg.LowMargin = 0.015 // TFB's allowance for small hosts
	}
	if contains(cfg.Tests, "fortunes") || len(cfg.Tests) == 0 {
		rows, err := readFortunes(*fortunes)
		if err != nil {
			fmt.Fprintf(stderr, "tfb-verify: %v\n", err)
			return 2
		}
		cfg.Fortunes = rows
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	results, err := verify.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "tfb-verify: %v\n", err)
		return 2
	}
	var pass, warn, fail int
	for _, r := range results {
		switch r.Status {
		case verify.Pass:
			pass++
		case verify.Warn:
			warn++
		case verify.Fail:
			fail++
		}
	}
	fmt.Fprintf(stdout, "tfb-verify: %d passed, %d warnings, %d failed in %.1fs\n", pass, warn, fail, time.Since(start).Seconds())
	if verify.Failed(results) {
		return 1
	}
	return 0
}

func readFortunes(path string) ([]verify.Fortune, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s not found: run from bench/tfb or pass -fortunes", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return verify.ParseFortunes(f)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
