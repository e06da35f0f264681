#!/usr/bin/env bash
# The measurements behind the middleware catalogue's defaults
# (docs/middleware.md): compression levels and codings on three bodies
# (BenchmarkCompressLevels), the ETag hash (BenchmarkETagHash), and the
# rate limiter's memory at its default bound (BenchmarkRateLimitFootprint).
# Pinned to one CPU, GOMAXPROCS=1.
#
# Usage: ./run-catalogue.sh [count]   (default 5; BENCHTIME default 200ms)
# Writes results/catalogue-<date>.txt (read it with benchstat).
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-5}
benchtime=${BENCHTIME:-200ms}
cpu=${CPU:-1}
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .
out=results/catalogue-$(date -u +%F).txt
run() { GOMAXPROCS=1 taskset -c "$cpu" "$tmp/bench.test" -test.run '^$' -test.benchmem -test.cpu 1 "$@"; }
{
	echo "command: bench/run-catalogue.sh $count (BENCHTIME=$benchtime, taskset -c $cpu, GOMAXPROCS=1)"
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo none)"
	run -test.bench '^Benchmark(CompressLevels|ETagHash)$' -test.count "$count" -test.benchtime "$benchtime"
	run -test.bench '^BenchmarkRateLimitFootprint$' -test.count 1 -test.benchtime 1x | grep '^Benchmark'
} >"$out"
echo "wrote $out" >&2
