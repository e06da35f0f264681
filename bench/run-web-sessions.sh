#!/usr/bin/env bash
# Runs the web layer's session and CSRF benchmarks (web_sessions_test.go,
# web_csrf_test.go: Plinth against scs, gorilla/sessions, gorilla/csrf, nosurf
# and http.CrossOriginProtection) and writes
#   results/web-sessions-<date>.txt            raw `go test -bench` output, the run's
#                                              command, machine and commit on top
#   results/web-sessions-<date>.benchstat.txt  benchstat's tables of it, frameworks
#                                              side by side (when benchstat is installed)
# BENCHMARKS.md's table is made from the .txt by `go run ./cmd/report`.
#
# Usage: ./run-web-sessions.sh [count]       (count defaults to 6)
# BENCHTIME=500ms ./run-web-sessions.sh 10   (-benchtime, default 200ms)
# The Redis store's benchmarks need PLINTH_TEST_REDIS (redis://127.0.0.1:6379/0);
# without it they skip. The benchmarks run with GOMAXPROCS=1 pinned to the last
# CPU (taskset, when installed; CPU=n picks another), the whole suite count
# times so that frameworks alternate round by round.
set -euo pipefail

count=${1:-6}
case $count in '' | *[!0-9]*)
	echo "usage: $0 [count]" >&2
	exit 2
	;;
esac
benchtime=${BENCHTIME:-200ms}

cd "$(dirname "$0")"
mkdir -p results
out=results/web-sessions-$(date -u +%Y-%m-%d)

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)
if [ -n "$(git status --porcelain -- .. 2>/dev/null || true)" ]; then
	commit="$commit-dirty"
fi
cpu_model=$(grep -m1 -E '^(model name|Model|cpu model)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
pin=()
if command -v taskset >/dev/null 2>&1; then
	pin=(taskset -c "${CPU:-$(($(nproc) - 1))}")
fi

{
	echo "command: PLINTH_TEST_REDIS=${PLINTH_TEST_REDIS:-} BENCHTIME=$benchtime bench/run-web-sessions.sh $count"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $commit"
	echo "go: $(go env GOVERSION)"
	echo "kernel: $(uname -r)"
	echo "nproc: $(nproc)"
	echo "cpu-model: ${cpu_model:-unknown}"
	echo "count: $count"
	echo "benchtime: $benchtime"
	echo "pinned: ${pin[*]:-no (taskset not installed)}, GOMAXPROCS=1"
	echo "redis: ${PLINTH_TEST_REDIS:-not set, the Redis benchmarks skipped}"
} >"$out.txt"

echo "writing $out.txt" >&2
go test -c -o results/.web.test .
trap 'rm -f results/.web.test results/.web-round.txt' EXIT
suite='^Benchmark(Session|SessionUntouched|CSRF)$'
for round in $(seq 1 "$count"); do
	echo "round $round of $count" >&2
	if ! "${pin[@]}" ./results/.web.test -test.run '^$' -test.bench "$suite" -test.benchmem -test.cpu 1 \
		-test.benchtime "$benchtime" >results/.web-round.txt; then
		cat results/.web-round.txt >&2
		echo "benchmarks failed in round $round" >&2
		exit 1
	fi
	if [ "$round" = 1 ]; then
		grep -v -E '^(PASS|ok )' results/.web-round.txt >>"$out.txt"
	else
		grep '^Benchmark' results/.web-round.txt >>"$out.txt"
	fi
done

benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
if [ -x "$benchstat" ]; then
	{
		for args in "-filter .name:Session -col /fw -row /store,/op" "-filter .name:SessionUntouched -col /fw" \
			"-filter .name:CSRF -col /fw -row /case"; do
			echo "## benchstat $args $out.txt"
			echo
			# shellcheck disable=SC2086 # args holds several words
			"$benchstat" $args "$out.txt" | grep -v -E '^[a-z-]+: '
			echo
		done
	} >"$out.benchstat.txt"
	echo "wrote $out.txt and $out.benchstat.txt" >&2
else
	echo "wrote $out.txt (benchstat not installed: cd /tmp && go install golang.org/x/perf/cmd/benchstat@latest)" >&2
fi
