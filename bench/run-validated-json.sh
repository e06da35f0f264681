#!/usr/bin/env bash
# Typed handlers against their peers (the validated-json scenario): POST a
# 5-field JSON body with validation, answer 201 with JSON, for Plinth's api
# package, Plinth native (the price of typing), huma on net/http, gin with
# binding tags and echo with go-playground/validator; and the validators
# alone on the same struct. Pinned to one CPU, GOMAXPROCS=1.
#
# Usage: ./run-validated-json.sh [count]   (default 8; BENCHTIME default 200ms)
# Writes results/validated-json-<date>.txt (benchstat reads it; cmd/report
# summarises it in BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")"
count=${1:-8}
benchtime=${BENCHTIME:-200ms}
cpu=${CPU:-1}
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .
out=results/validated-json-$(date -u +%F).txt
{
	echo "command: bench/run-validated-json.sh $count (BENCHTIME=$benchtime, taskset -c $cpu, GOMAXPROCS=1)"
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo none)"
	GOMAXPROCS=1 taskset -c "$cpu" "$tmp/bench.test" -test.run '^$' -test.bench '^Benchmark(ValidatedJSON|Validator)$' \
		-test.benchmem -test.cpu 1 -test.count "$count" -test.benchtime "$benchtime"
} >"$out"
echo "wrote $out" >&2
