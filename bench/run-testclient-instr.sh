#!/usr/bin/env bash
# Instructions per request of plinthtest's in-process client against
# httptest.NewRequest + httptest.NewRecorder + app.ServeHTTP, and of its
# OpenAPI check (BenchmarkTestClient in plinthtest_test.go), counted by
# callgrind: wall-clock benchmarks on a shared machine are too noisy for a
# 10 % bound, instruction counts are not. Each client runs n and 1
# iterations; the difference over n-1 is its cost per request (setup and
# the benchmark harness cancel out).
#
# Writes results/testclient-instr-<date>.md.
# Usage: ./run-testclient-instr.sh [n]     (n defaults to 5000; CLIENTS="httptest plinthtest" picks rows,
# the first one is the ratio's base)
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-5000}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p bin
go test -c -o bin/bench.test .
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # client iterations -> instructions
	local out=$tmp/cg.$1.$2
	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
		bin/bench.test -test.run '^$' -test.bench "^BenchmarkTestClient/client=$1\$" -test.benchtime "${2}x" >/dev/null 2>"$out.log"
	grep -m1 '^summary:' "$out" | awk '{print $2}'
}
out=results/testclient-instr-$(date -u +%F).md
mkdir -p results
exec > >(tee "$out")
echo "# plinthtest's in-process client: instructions per request"
echo
echo "Command: \`bench/run-testclient-instr.sh $n\`. callgrind (valgrind $(valgrind --version | sed 's/valgrind-//')), GOMAXPROCS=1,"
echo "BenchmarkTestClient's sub-benchmarks, $n iterations less 1; commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo none),"
echo "$(go env GOVERSION), $(uname -r). client=plinthtest-skip and plinthtest-openapi serve a typed api operation"
echo "(a different App from the first two rows): their difference is the OpenAPI check's cost per response."
echo
echo "| client | instructions per request | ratio to the first row |"
echo "|---|---:|---:|"
base=
for c in ${CLIENTS:-httptest plinthtest plinthtest-skip plinthtest-openapi}; do
	a=$(count "$c" 1)
	b=$(count "$c" "$n")
	per=$(((b - a) / (n - 1)))
	[ -n "$base" ] || base=$per
	echo "| $c | $per | $(awk -v p="$per" -v b="$base" 'BEGIN { printf "%.3f", p / b }') |"
done
