#!/usr/bin/env bash
# Runs the in-process router benchmarks and writes
#   results/inprocess-<date>.txt  raw `go test -bench` output, with the run's
#                                 machine, kernel, Go version and commit as
#                                 benchstat configuration lines on top
#   results/inprocess-<date>.md   the table made from it by cmd/benchtable
#
# Usage: ./run-inprocess.sh [count]      (count defaults to 5)
# BENCHTIME=500ms ./run-inprocess.sh 10  passes -benchtime as well.
# The benchmarks run with GOMAXPROCS=1 pinned to the last CPU (taskset, when
# installed) so that every framework meets the same conditions; CPU=n picks
# another CPU.
set -euo pipefail

count=${1:-5}
case $count in '' | *[!0-9]*)
	echo "usage: $0 [count]" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")"
mkdir -p results
out=results/inprocess-$(date -u +%Y-%m-%d)

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)
if [ -n "$(git status --porcelain -- .. 2>/dev/null || true)" ]; then
	commit="$commit-dirty"
fi
cpu_model=$(grep -m1 -E '^(model name|Model|cpu model)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)

benchtime=()
if [ -n "${BENCHTIME:-}" ]; then
	benchtime=(-test.benchtime "$BENCHTIME")
fi

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $commit"
	echo "go: $(go env GOVERSION)"
	echo "kernel: $(uname -r)"
	echo "nproc: $(nproc)"
	echo "cpu-model: ${cpu_model:-unknown}"
	echo "count: $count"
	echo "benchtime: ${BENCHTIME:-1s}"
} >"$out.txt"

pin=()
if command -v taskset >/dev/null 2>&1; then
	pin=(taskset -c "${CPU:-$(($(nproc) - 1))}")
fi
echo "pinned: ${pin[*]:-no (taskset not installed)}" >>"$out.txt"

echo "writing $out.txt" >&2
go test -c -o results/.bench.test .
trap 'rm -f results/.bench.test results/.round.txt' EXIT
# -count would run each framework's repetitions back to back, so a burst of
# noise from another tenant could land on one framework only: run the whole
# suite count times instead, so that frameworks alternate round by round.
# The framework suite only (bench_test.go); the catalogue's and the typed
# API's benchmarks (mw_*_test.go, validated_json_test.go) are not per framework.
suite='^Benchmark(Minimal|JSON|Routes50|GithubAll|GithubStatic|GithubParam|NotFound|MethodNotAllowed|Middleware|MiddlewareFused|DefaultStack)$'
for round in $(seq 1 "$count"); do
	echo "round $round of $count" >&2
	if ! "${pin[@]}" ./results/.bench.test -test.run '^$' -test.bench "$suite" -test.benchmem -test.cpu 1 \
		"${benchtime[@]}" >results/.round.txt; then
		cat results/.round.txt >&2
		echo "benchmarks failed in round $round; no table written" >&2
		exit 1
	fi
	if [ "$round" = 1 ]; then
		grep -v -E '^(PASS|ok )' results/.round.txt >>"$out.txt"
	else
		grep '^Benchmark' results/.round.txt >>"$out.txt"
	fi
done
rm -f results/.round.txt

go run ./cmd/benchtable "$out.txt" >"$out.md"
echo "wrote $out.txt and $out.md" >&2
