#!/usr/bin/env bash
# Runs the cache benchmarks (cache_bench_test.go): Memory and otter hits
# beside hashicorp/golang-lru and otter itself, serial and parallel
# (RunParallel on GOMAXPROCS goroutines), Remember hits, the stampede, and
# Redis hits beside raw go-redis. Writes
#   results/cache-<date>.txt   raw `go test -bench` output, the command, machine and commit on top
# in bench/results/, and bench/results/cache-<date>.md, BENCHMARKS.md's "Cache" section (medians of
# the rounds; ratios computed within the run; `cd bench && go run ./cmd/report` copies it in).
#
# Usage: ./run-cache.sh [rounds]     (default 10; each round runs every benchmark once, so the
#                                     libraries alternate round by round)
# BENCHTIME=200ms (default) sets -benchtime. The Redis benchmarks need PLINTH_TEST_REDIS
# (redis://127.0.0.1:6379/0); without it they skip. Wall clock: the run holds
# /tmp/plinth-wallclock.lock (flock) so that other measurements on the machine wait.
set -euo pipefail
rounds=${1:-10}
benchtime=${BENCHTIME:-200ms}
cd "$(dirname "$0")"
results=../results
out=$results/cache-$(date -u +%Y-%m-%d).txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/services.test" .
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)
if [ -n "$(git status --porcelain -- ../.. 2>/dev/null || true)" ]; then commit="$commit-dirty"; fi
{
	echo "# PLINTH_TEST_REDIS=${PLINTH_TEST_REDIS:-} BENCHTIME=$benchtime bench/services/run-cache.sh $rounds"
	echo "# commit $commit, $(go env GOVERSION), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, GOMAXPROCS default"
} >"$out"
run() { "$tmp/services.test" -test.run '^$' -test.bench "$1" -test.benchtime "$benchtime" -test.benchmem; }
flock /tmp/plinth-wallclock.lock bash -c "
	for i in \$(seq 1 $rounds); do
		$(declare -f run)
		tmp=$tmp benchtime=$benchtime
		run '^BenchmarkCache(Hit|HitParallel|RedisHit|Clock)\$'
	done
	tmp=$tmp benchtime=1x
	$(declare -f run)
	\"$tmp/services.test\" -test.run '^\$' -test.bench '^BenchmarkCacheStampede\$' -test.benchtime 200x
" | grep -E '^Benchmark' >>"$out"
./report-cache.sh "$out" >"${out%.txt}.md"
echo "wrote $out and ${out%.txt}.md" >&2
