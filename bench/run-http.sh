#!/usr/bin/env bash
# The real-HTTP benchmark suite: every framework of cmd/bench-server serving
# the scenarios over loopback, loaded by cmd/loadgen (or wrk), server and
# client pinned to disjoint CPU sets.
#
# Usage: ./run-http.sh [runs] [secs] [conns] [server cpus] [client cpus]
#   defaults: 3 runs, 5 s measured after a WARMUP (1 s) warm-up, 64 connections,
#   server on CPU 0, client on CPU 1 (taskset -c lists: "0", "0-3", "0,2")
#
# Environment:
#   FRAMEWORKS="plinth-new std-limits"  frameworks for every scenario (default: the set below)
#   SCENARIOS="minimal json"            scenarios (default: minimal json middleware middleware-fused default-stack;
#                                       fullstack, served by plinth-new chi gin echo, sends Accept-Encoding: gzip)
#   WARMUP=1                            warm-up seconds per run
#   TOOL=wrk                            make the load with wrk instead of cmd/loadgen (the cross-check;
#                                       written to results/http-wrk-<date>.*)
#   KIND=http                           results/<KIND>-<date>.{json,md} (run-latency.sh sets latency;
#                                       SCENARIOS=fullstack alone: http-fullstack, http-wrk-fullstack)
#
# Default set, chosen to finish `./run-http.sh 3 5 64 0 1` in under 10 minutes
# on 2 cores: every framework on minimal (plus std-defaults: net/http doing
# the default layer's work by hand) and json; plinth-new, plinth, std-limits
# and std on middleware; plinth on middleware-fused (Plinth's fused layer;
# net/http's stack is the same as in middleware). default-stack is left out:
# over HTTP it is minimal's requests, and minimal's plinth-new, plinth and
# std-defaults rows are that comparison (SCENARIOS=default-stack runs it).
#
# Each run starts a fresh server, waits until it accepts, warms up, measures;
# the order of the (framework, scenario) pairs is rotated every round so that
# a burst of noise cannot land on one framework's runs only. The report gives
# the median of the runs with ratios to net/http (std, and std-limits: the
# same limits as Plinth's App.Run), latency percentiles, the server's CPU%
# over the measured window and its peak RSS. Writes results/http-<date>.json
# (every run and the medians) and results/http-<date>.md.
set -euo pipefail

runs=${1:-3}
secs=${2:-5}
conns=${3:-64}
server_cpus=${4:-0}
client_cpus=${5:-1}
warmup=${WARMUP:-1}
tool=${TOOL:-loadgen}
kind=${KIND:-http}
if [ "$tool" = wrk ] && [ -z "${KIND:-}" ]; then kind=http-wrk; fi
# The fullstack scenario alone is a table of its own (results/http-fullstack-
# <date>.*): it must not become the newest http-<date> run that
# cmd/report takes for the main real-HTTP table.
if [ -z "${KIND:-}" ] && [ "$(echo ${SCENARIOS:-})" = fullstack ]; then kind=$kind-fullstack; fi
for n in "$runs" "$secs" "$conns" "$warmup"; do
	case $n in '' | *[!0-9]*)
		echo "usage: $0 [runs] [secs] [conns] [server cpus] [client cpus] (whole numbers)" >&2
		exit 2
		;;
	esac
done
command -v taskset >/dev/null || { echo "taskset is needed (Debian: util-linux)" >&2; exit 1; }
if [ "$tool" = wrk ]; then
	command -v wrk >/dev/null || { echo "TOOL=wrk: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
fi

cd "$(dirname "$0")"
mkdir -p results bin
echo "building bench-server, loadgen, httptable" >&2
go build -o bin/ ./cmd/bench-server ./cmd/loadgen ./cmd/httptable

# The pairs to run.
pairs=()
add() { # scenario framework...
	local sc=$1
	shift
	for fw in "$@"; do pairs+=("$sc:$fw"); done
}
all_fw="plinth-new plinth std-limits std httprouter chi gin echo fiber"
if [ -n "${SCENARIOS:-}" ] || [ -n "${FRAMEWORKS:-}" ]; then
	for sc in ${SCENARIOS:-minimal json middleware middleware-fused default-stack}; do
		# shellcheck disable=SC2086
		add "$sc" ${FRAMEWORKS:-$all_fw}
	done
else
	# shellcheck disable=SC2086
	add minimal $all_fw std-defaults
	# shellcheck disable=SC2086
	add json $all_fw
	add middleware plinth-new plinth std-limits std
	add middleware-fused plinth
fi

client_workers=$(taskset -c "$client_cpus" nproc)
port=$((18000 + RANDOM % 1000))
date=$(date -u +%Y-%m-%d)
out=results/$kind-$date
raw=$(mktemp)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; fi
	rm -f "$raw"
}
trap cleanup EXIT

# wait_ready: until the port accepts connections (5 s at most).
wait_ready() {
	for _ in $(seq 1 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
		if ! kill -0 "$server_pid" 2>/dev/null; then return 1; fi
		sleep 0.05
	done
	return 1
}

one_run() { # round scenario framework
	local round=$1 sc=$2 fw=$3 path hdr
	path=$(bin/bench-server -scenario "$sc" -print-path)
	# The scenario's request headers (fullstack: Accept-Encoding: gzip).
	local hflags=()
	while IFS= read -r hdr; do
		if [ -n "$hdr" ]; then hflags+=(-H "$hdr"); fi
	done < <(bin/bench-server -scenario "$sc" -print-headers)
	PLINTH_ADDR= taskset -c "$server_cpus" bin/bench-server -framework "$fw" -scenario "$sc" -addr "127.0.0.1:$port" 2>/dev/null &
	server_pid=$!
	if ! wait_ready; then
		echo "$fw on $sc: the server did not start (try: bin/bench-server -framework $fw -scenario $sc)" >&2
		exit 1
	fi
	if ! taskset -c "$client_cpus" bin/loadgen -tool "$tool" -c "$conns" -workers "$client_workers" -d "${secs}s" -warmup "${warmup}s" \
		-server-pid "$server_pid" -json -tag "framework=$fw" -tag "scenario=$sc" -tag "round=$round" "${hflags[@]}" \
		"http://127.0.0.1:$port$path" >>"$raw"; then
		echo "$fw on $sc: the load generator failed" >&2
		exit 1
	fi
	kill -TERM "$server_pid"
	wait "$server_pid" 2>/dev/null || true
	server_pid=
	local rps
	rps=$(tail -n1 "$raw" | sed -E 's/.*"rps":([0-9.]+).*/\1/')
	printf '  round %s  %-16s %-11s %8.0f req/s\n' "$round" "$sc" "$fw" "$rps" >&2
}

n=${#pairs[@]}
per_run=$((secs + warmup))
echo "$n framework-scenario pairs x $runs runs, about $((n * runs * per_run + n * runs / 2)) s; server on CPUs $server_cpus, $tool on CPUs $client_cpus" >&2
step=$(((n + runs - 1) / runs))
for round in $(seq 1 "$runs"); do
	off=$((((round - 1) * step) % n))
	for i in $(seq 0 $((n - 1))); do
		pair=${pairs[$(((i + off) % n))]}
		one_run "$round" "${pair%%:*}" "${pair#*:}"
	done
done

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo none)
if [ -n "$(git status --porcelain -- .. 2>/dev/null || true)" ]; then
	commit="$commit-dirty"
fi
cpu_model=$(grep -m1 -E '^(model name|Model|cpu model)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
cmdline="bench/run-http.sh $runs $secs $conns $server_cpus $client_cpus"
for v in FRAMEWORKS SCENARIOS TOOL WARMUP; do
	if [ -n "${!v:-}" ]; then cmdline="$v=\"${!v}\" $cmdline"; fi
done
if [ "$kind" = latency ]; then cmdline="bench/run-latency.sh $runs $secs $server_cpus $client_cpus"; fi
latency_flag=()
if [ "$kind" = latency ]; then latency_flag=(-latency); fi
bin/httptable -json "$out.json" -md "$out.md" "${latency_flag[@]}" \
	-meta "command=$cmdline" \
	-meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	-meta "commit=$commit" \
	-meta "go=$(go env GOVERSION)" \
	-meta "kernel=$(uname -r)" \
	-meta "cpu=${cpu_model:-unknown} ($(nproc) CPUs)" \
	-meta "server=pinned to CPUs $server_cpus (taskset), a fresh process per run" \
	-meta "load=$tool, $conns connections, $client_workers workers, pinned to CPUs $client_cpus, ${secs} s after ${warmup} s warm-up, $runs runs" \
	"$raw"
echo "wrote $out.json and $out.md" >&2
cat "$out.md"
