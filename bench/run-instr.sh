#!/usr/bin/env bash
# Instructions per request over real HTTP, counted by valgrind's callgrind:
# repeatable within a percent or two whatever else the machine does, unlike
# req/s. For each framework, cmd/instr serves the scenario on loopback under callgrind while
# a second cmd/instr process (not counted) sends it N keep-alive requests
# over 4 connections; a run whose client connects and closes without a
# request is subtracted. What is counted is the server process in user space:
# reading, routing, middleware, handler, writing, the runtime and the garbage
# collector; not the kernel.
#
# Usage: ./run-instr.sh [requests] [scenario]     (defaults: 20000 minimal)
#   scenario: the suite's, validated-json or headers-N (std only); the
#   client sends the scenario's requests in turn (github-all: each route)
#   FRAMEWORKS (default "plinth-new plinth std-limits std-defaults std")
# The regression gate (instr-gate.sh) measures with the GC off instead.
# Writes results/instr-<date>.md. Needs valgrind (Debian: valgrind).
set -euo pipefail
cd "$(dirname "$0")"
n=${1:-20000}
sc=${2:-minimal}
frameworks=${FRAMEWORKS:-plinth-new plinth std-limits std-defaults std}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p results bin
go build -o bin/ ./cmd/instr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # framework requests -> server instructions
	local out=$tmp/cg.$1.$2 addr=$tmp/addr.$1.$2
	rm -f "$addr"
	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$out" \
		bin/instr -framework "$1" -scenario "$sc" -addr-file "$addr" -conns 4 >/dev/null 2>"$out.log" &
	local pid=$!
	for _ in $(seq 1 600); do [ -s "$addr" ] && break; sleep 0.1; done
	[ -s "$addr" ] || { cat "$out.log" >&2; echo "$1: the server did not start" >&2; exit 1; }
	bin/instr -client -addr "$(cat "$addr")" -scenario "$sc" -n "$2" -c 4 || { kill "$pid"; exit 1; }
	wait "$pid" || { cat "$out.log" >&2; exit 1; }
	grep -m1 '^summary:' "$out" | awk '{print $2}'
}

date=$(date -u +%F)
md=results/instr-$date.md
{
	echo "# Instructions per request over real HTTP ($sc)"
	echo
	echo "Command: \`bench/run-instr.sh $n $sc\` (FRAMEWORKS=\"$frameworks\"). callgrind (valgrind $(valgrind --version | sed 's/valgrind-//')),"
	echo "$n keep-alive requests over 4 connections on loopback, less a run with none; commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo none),"
	echo "$(go env GOVERSION), $(uname -r). The server process only (user space: net/http, the framework, the runtime, the GC), not the client or the kernel."
	echo
	echo "| framework | instructions per request | ratio to std-limits | ratio to std-defaults |"
	echo "|---|---:|---:|---:|"
} >"$md"
declare -A per
for fw in $frameworks; do
	s0=$(count "$fw" 0)
	s1=$(count "$fw" "$n")
	per[$fw]=$(((s1 - s0) / n))
	echo "$fw: ${per[$fw]} instructions per request" >&2
done
ratio() { # value base
	if [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; else echo "-"; fi
}
for fw in $frameworks; do
	echo "| $fw | ${per[$fw]} | $(ratio "${per[$fw]}" "${per[std-limits]:-}") | $(ratio "${per[$fw]}" "${per[std-defaults]:-}") |" >>"$md"
done
echo "wrote $md" >&2
